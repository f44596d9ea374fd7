/**
 * The API's request limits as one interface with two implementations: in this process
 * (store/memory-limits.ts, the embedded default) and in PostgreSQL (store/drivers/postgres/limits.ts,
 * shared by N API instances behind a load balancer). store/open-limits.ts opens the one of the
 * stores' location, by its driver (store/drivers/<driver>/driver.ts `limits`).
 * The limits are daily quotas (a count per UTC day, bucket and client) and open WebSocket
 * connections per client. These tables are not the ledger: old rows may be pruned.
 */
import { CodedError } from "../core/errors.ts";

/** A count of requests per UTC day (`YYYY-MM-DD`), bucket and client (`ip:<address or /64>` or `key:<id>`). */
export interface QuotaCounter {
  /**
   * Counts one request unless the client's count has reached `quota`: `allowed` and the count
   * after it, or `allowed: false` and the count as it stands (at least `quota`).
   */
  take(day: string, bucket: string, client: string, quota: number): Promise<{ allowed: boolean; used: number }>;
  /** The count as it stands, without counting (HEAD, 304). */
  peek(day: string, bucket: string, client: string): Promise<number>;
}

/** Open connections per client (the simulation WebSocket's cap). */
export interface ConnectionCap {
  /** Opens one connection of `client` unless it has `max` open: the function that closes it (idempotent), or null. */
  open(client: string, max: number): Promise<(() => void) | null>;
}

/** Whether the limits store answers now: what /health reports. */
export type LimitsHealth = { ok: true } | { ok: false; reason: string };

export interface LimitsStore {
  /** Where the counts are kept: "memory" (this process), or a store driver's database (its `limitsKind`). */
  readonly kind: string;
  readonly quotas: QuotaCounter;
  readonly connections: ConnectionCap;
  /** A read-only probe (it never writes), bounded in time; never rejects. */
  health(): Promise<LimitsHealth>;
  close(): Promise<void>;
}

/**
 * The limits' store failed (unreachable, timed out, restarting), so no limit could be checked: the
 * API refuses the request (fail closed) with 503 `limits-unavailable` and Retry-After.
 */
export class LimitsUnavailableError extends CodedError<"limits-unavailable"> {
  constructor(message: string, options?: { cause?: unknown }) {
    super("limits-unavailable", message, options);
  }
}
