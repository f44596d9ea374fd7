/**
 * What a store driver is to the rest of the platform: its kind's name, how it recognises a
 * location, and how it opens a ledger there, tells whether one is there, and opens the API's
 * limits beside it. The ledger engine sees only the driver's backend (store/ledger/backend.ts).
 * Every driver is a folder under store/drivers/ and one line of store/drivers/registry.ts
 * (docs/ledger-store.md, "Adding a store driver").
 */
import { CodedError } from "../../core/errors.ts";
import type { LedgerBackend } from "../ledger/backend.ts";
import type { LimitsStore } from "../limits.ts";

/** How a ledger is opened, whatever the driver (each takes what applies to it). */
export interface DriverOptions {
  /** "full" syncs every commit to disk (survives power loss); "normal" survives process crashes only (SQLite). */
  durability?: "full" | "normal";
  /** How long a write waits for another writer's lock before it fails. */
  busyTimeoutMs?: number;
  /** In a database: the schema of this ledger's tables (the access ledger's own); ignored by a file. */
  schema?: string;
  /** The environment, for the driver's own settings (PostgreSQL: DATABASE_LOCK_TIMEOUT_MS). */
  env: NodeJS.ProcessEnv;
}

export interface StoreDriver {
  /** The kind's name: the ledger's `store.kind`, what /health shows, never a location. */
  readonly kind: string;
  /** Its name as a person reads it in a log line ("PostgreSQL"). */
  readonly title: string;
  /** Where the API's limits are counted with this driver: in its database, or "memory" (each process its own). */
  readonly limitsKind: string;
  /**
   * How its stores are named: "url", every store in one database named by a URL (`DATABASE_URL`, a
   * flag); "file", each ledger a file of its own under the state folder (the embedded default).
   */
  readonly names: "url" | "file";
  /** Whether `location` (a URL or a path, as given) names a store of this driver. */
  recognises(location: string): boolean;
  /**
   * `location` checked, as the value of `name` (the variable or flag it came from): what may be
   * shown of it (no password). Throws a StoreLocationError naming `name`, never the value.
   */
  check(location: string, name: string): string;
  /** What may be shown of a location (no password); never throws. */
  shown(location: string): string;
  /** The ledger backend at `location`, not yet opened. */
  ledger(location: string, options: DriverOptions): LedgerBackend;
  /** Whether a ledger is there to read at `location` (in `schema`, where the driver has schemas), creating nothing. */
  exists(location: string, schema?: string): Promise<boolean>;
  /** The API's limits for the stores at `location`; `instanceId` names this instance's rows where they are shared. */
  limits(location: string, instanceId: string): Promise<LimitsStore>;
}

export class StoreLocationError extends CodedError<"bad-database-url"> {
  constructor(message: string) {
    super("bad-database-url", message);
  }
}
