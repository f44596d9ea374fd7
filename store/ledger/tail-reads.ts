/**
 * Reads of the ledger's size shared by the requests that ask in the same turn of the event loop.
 *
 * A read answer must reflect every entry committed before the request arrived — by this process or
 * by another instance on the same store — so each answer catches up with the tail first. Reading
 * the tail is a read transaction (file locks: system calls, dear on a VM) and costs more than the
 * lookup it guards. `size()` therefore schedules one read after the current I/O phase
 * (`setImmediate`), and every caller that asks before it runs shares it: each caller still gets a
 * size read *after* it asked, never a remembered one, so nothing committed before the request can
 * be missed, and no answer depends on this process's memory.
 */

export class TailReads {
  readonly #reader: { size(): number | Promise<number> };
  #pending: Promise<number> | null = null;

  constructor(reader: { size(): number | Promise<number> }) {
    this.#reader = reader;
  }

  /** The ledger's size, read after this call (shared with the callers of the same turn). */
  size(): Promise<number> {
    // A pending read has not started yet (it runs in setImmediate), so it begins after this call.
    this.#pending ??= new Promise<number>((resolve, reject) => {
      setImmediate(() => {
        this.#pending = null;
        try {
          resolve(this.#reader.size());
        } catch (error) {
          reject(error); // a store whose size() throws rather than rejects
        }
      });
    });
    return this.#pending;
  }
}
