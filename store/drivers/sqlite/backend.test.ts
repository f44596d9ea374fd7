/** The SQLite backend held to the same primitives as PostgreSQL's (test/support/store/backend-conformance.ts). */
import { SqliteBackend } from "./backend.ts";
import { backendConformance } from "../../../test/support/store/backend-conformance.ts";

backendConformance(async () => new SqliteBackend(":memory:"));
