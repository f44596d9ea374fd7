/**
 * One checked-out PostgreSQL connection of the ledger's pool, watched (Session), and how the pool
 * reads int8 and bytea (TYPES): the pieces of store/drivers/postgres/backend.ts that know pg's client
 * rather than the ledger.
 */
import pg from "pg";
import { classifyFailure, isConnectionLost } from "./failures.ts";
import type { TailRow } from "../../ledger/backend.ts";
import type { Run } from "./statements.ts";

const INT8_OID = 20;
const BYTEA_OID = 17;

/** int8 as a JS number: every seq, size and count stays below 2^53. */
function parseInt8(text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new RangeError(`int8 ${text} is beyond 2^53`);
  return n;
}

/** bytea (hex output, PostgreSQL's default) as a Uint8Array of its own, like node:sqlite's BLOBs. */
function parseBytea(text: string): Uint8Array {
  if (!text.startsWith("\\x")) throw new RangeError("bytea is not in hex output format (bytea_output = hex)");
  return new Uint8Array(Buffer.from(text.slice(2), "hex"));
}

export const TYPES = {
  getTypeParser: ((oid: number, format?: string) => {
    if (format !== "binary" && oid === INT8_OID) return parseInt8;
    if (format !== "binary" && oid === BYTEA_OID) return parseBytea;
    return pg.types.getTypeParser(oid, format as "text");
  }) as typeof pg.types.getTypeParser,
};

/**
 * One checked-out connection, watched. A checked-out client that loses its connection emits
 * "error", which without a listener is an uncaught exception; `lost` keeps it, and a lost
 * connection is destroyed on release (`release(true)`) instead of going back to the pool.
 */
export class Session {
  lost: unknown = null;
  /** The committed tail, read in the lock's round trip (when asked for). */
  tail: TailRow | null = null;
  /** Whether the lock was held by another session and waited for. */
  waited = false;
  readonly client: pg.PoolClient;
  readonly #onError = (error: Error) => {
    this.lost ??= error;
  };

  constructor(client: pg.PoolClient) {
    this.client = client;
    client.on("error", this.#onError);
  }

  /** A statement; its failure classified (store/drivers/postgres/failures.ts), the lost connection's own error preferred as the cause. */
  async query(sql: string, where: string, params?: unknown[], name?: string): Promise<pg.QueryResult> {
    try {
      return await (name === undefined
        ? this.client.query(sql, params)
        : this.client.query({ name, text: sql, values: params ?? [] }));
    } catch (error) {
      if (isConnectionLost(error)) this.lost ??= error;
      throw classifyFailure(this.lost ?? error, where);
    }
  }

  readonly run: Run = async (sql, params, name) => (await this.query(sql, "write", params, name)).rows;

  release(): void {
    this.client.removeListener("error", this.#onError);
    this.client.release(this.lost !== null ? true : undefined);
  }
}
