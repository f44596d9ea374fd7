/**
 * The PostgreSQL driver's conditional append (its AppendStrategy, store/ledger/backend.ts): a group
 * in one statement outside a transaction (statements.ts APPEND_IF_TAIL_DDL) that takes the write
 * lock only if it is free, reads the committed tail after it, and inserts only if that tail is the
 * one the group was sealed after — on a connection kept while such statements follow one another.
 */
import type pg from "pg";
import type { AppendIfTail, AppendWrite } from "../../ledger/backend.ts";
import { Session } from "./connection.ts";
import { classifyFailure, sqlState } from "./failures.ts";
import { APPEND_IF_TAIL_FUNCTION, APPEND_IF_TAIL_SQL, appendIfTailValues } from "./statements.ts";

export interface ConditionalAppendEvents {
  /** A group was appended: a committed write transaction, as the backend counts them. */
  appended(): void;
  /** This role was refused the function's EXECUTE (42501): the strategy has no conditional append from then on. */
  refused(): void;
}

export class ConditionalAppends {
  readonly #pool: pg.Pool;
  readonly #poolSize: number;
  readonly #events: ConditionalAppendEvents;
  /** The connection kept while appends follow one another (#session). */
  #appending: Session | null = null;
  #appendsInFlight = 0;
  #releaseScheduled = false;

  constructor(pool: pg.Pool, poolSize: number, events: ConditionalAppendEvents) {
    this.#pool = pool;
    this.#poolSize = poolSize;
    this.#events = events;
  }

  /**
   * The group in one statement: it commits by itself when it appends. A committed append counts as
   * a write transaction in the backend's lockWaits(); a `busy` or `moved` one wrote nothing and is
   * not counted (the ordinary transaction that follows is). Not retried on another connection when
   * the one it used is found lost: the append may have committed. A role refused the function's
   * EXECUTE (42501) answers `busy`, and the backend offers no conditional append from then on.
   */
  async append(after: { seq: number; hash: string } | null, write: AppendWrite): Promise<AppendIfTail> {
    const values = appendIfTailValues(after, write);
    this.#appendsInFlight++;
    try {
      const session = await this.#session();
      try {
        const { outcome } = (await session.query(APPEND_IF_TAIL_SQL, "append", values, APPEND_IF_TAIL_FUNCTION))
          .rows[0] as { outcome: AppendIfTail };
        if (outcome === "appended") this.#events.appended();
        return outcome;
      } catch (error) {
        // Not kept after a failure: back to the pool (destroyed when lost); the next append takes another.
        if (this.#appending === session) this.#appending = null;
        session.release();
        if (sqlState(error) !== "42501") throw error;
        this.#events.refused();
        return "busy";
      }
    } finally {
      this.#appendsInFlight--;
      this.#releaseWhenIdle();
    }
  }

  /** Gives the kept connection back (the backend is closing). */
  close(): void {
    this.#appending?.release();
    this.#appending = null;
  }

  /**
   * The connection the statements go on, checked out and kept while they follow one another: the
   * next group's statement leaves the moment the group before it has been answered, without waiting
   * for the pool (which hands a connection over on a later tick). One the server closed while it
   * sat kept is replaced before use.
   */
  async #session(): Promise<Session> {
    const kept = this.#appending;
    if (kept !== null && kept.lost === null) return kept;
    if (kept !== null) {
      this.#appending = null;
      kept.release();
    }
    let client: pg.PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (error) {
      throw classifyFailure(error, "connect");
    }
    // Two first appends at once (not the ledger's way): the second connection goes back at once.
    if (this.#appending !== null) {
      client.release();
      return this.#appending;
    }
    this.#appending = new Session(client);
    return this.#appending;
  }

  /**
   * The kept connection goes back to the pool once a turn of the event loop passes with no append
   * on its way — so it is never held through a quiet spell (the pool's idle timeout and its watch
   * for connections the server dropped apply to it again) — and at once with a pool of one, whose
   * only connection the reads need.
   */
  #releaseWhenIdle(): void {
    if (this.#appending === null || this.#releaseScheduled) return;
    const release = () => {
      if (this.#appendsInFlight > 0 || this.#appending === null) return;
      this.#appending.release();
      this.#appending = null;
    };
    if (this.#poolSize < 2) return release();
    this.#releaseScheduled = true;
    setImmediate(() => {
      this.#releaseScheduled = false;
      release();
    });
  }
}
