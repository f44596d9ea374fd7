/**
 * The SQLite driver, the embedded default: each ledger a file of its own (the platform ledger's and
 * the access ledger's under the state folder), the API's limits in this process's memory
 * (store/memory-limits.ts). Its folder holds the backend (backend.ts) with its schema and statements.
 * It takes any location no other driver recognises, so it is registered last.
 */
import { existsSync } from "node:fs";
import { memoryLimits } from "../../memory-limits.ts";
import type { StoreDriver } from "../driver.ts";
import { SqliteBackend } from "./backend.ts";

export const sqliteDriver: StoreDriver = {
  kind: "sqlite",
  title: "SQLite",
  limitsKind: "memory",
  names: "file",
  recognises: () => true,
  check: (location) => location,
  shown: (location) => location,
  ledger: (location, options) =>
    new SqliteBackend(location, {
      ...(options.durability ? { durability: options.durability } : {}),
      ...(options.busyTimeoutMs !== undefined ? { busyTimeoutMs: options.busyTimeoutMs } : {}),
    }),
  exists: (location) => Promise.resolve(existsSync(location)),
  limits: async () => memoryLimits(),
};
