/**
 * The pass helper thread (started by ./output-stager.ts): the streamed outputs, each piece
 * validated (pipeline/validate/), hashed and written to its temporary file; an output's first
 * problem is reported when it is finished. Every
 * message is acknowledged once handled, which is how the main thread bounds the queue. It loads as
 * plain TypeScript through Node's own type stripping, whatever loaded its parent.
 */
import { createHash, type Hash } from "node:crypto";
import { closeSync, fstatSync, mkdirSync, openSync, readSync, renameSync, rmSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { parentPort, workerData } from "node:worker_threads";
import type { TableSchema } from "../manifest.ts";
import type { FileDigest } from "../../store/digest-cache.ts";
import { CsvValidator } from "../validate/csv-table.ts";
import { DataError, type DataErrorCode } from "../validate/data-error.ts";
import { JsonArrayValidator } from "../validate/json-array.ts";
import { JsonSchemaSet } from "../validate/json-schemas.ts";
import { CsvOfItems } from "./csv-of-items.ts";

/** How a streamed output is validated: its row schema, and for CSV the Table Schema. */
export type OutputCheck =
  | { kind: "json-array"; file: string; schemasDir: string; schemaId: string }
  | { kind: "csv"; file: string; schemasDir: string; schemaId: string; table: TableSchema };

/**
 * An output continued from a kept prefix: the first `bytes` bytes of `from` (the published file,
 * which must still be `published`, the file its fold state describes), and the validator is primed
 * as if it had read them: `head` (the CSV header) is fed to it, and a JSON array goes on after its
 * elements. While the pass runs the temporary file holds only what follows the prefix; at `finish`
 * the staged file becomes the whole output, a new file (see `#assemble`), so publishing stays a rename.
 */
export interface OutputResume {
  from: string;
  bytes: number;
  head: string;
  published: FileDigest;
}

/** The shared memory the main thread fills (pipeline/pass/output-stager.ts), cut into slots. */
export interface WorkerSetup {
  memory: SharedArrayBuffer;
  slotBytes: number;
}

/** Requests about the outputs (numbered from 1): `bytes` is UTF-8 in a shared slot, `text` a piece too large for one. */
export type WorkerRequest =
  | {
      op: "open";
      id: number;
      tmp: string;
      check: OutputCheck | null;
      resume?: OutputResume;
      /** A CSV table made of the items of output `rowsOf`, opening with `head` (when not resumed). */
      madeOf?: TableOfItems;
    }
  | { op: "bytes"; id: number; slot: number; length: number }
  | { op: "text"; id: number; text: string }
  | { op: "finish"; id: number; reply: number }
  | { op: "abort"; id: number };

/** A CSV table whose records the helper writes from the items of the JSON array output `rowsOf`. */
export interface TableOfItems {
  rowsOf: number;
  head: string;
}

/** A failure carried across the thread boundary; `data` when it was a DataError. */
export interface WorkerError {
  message: string;
  data?: { code: DataErrorCode; file: string; problem: string };
}

export type WorkerAnswer =
  | { op: "ack" }
  | { op: "reply"; reply: number; value: FileDigest }
  | { op: "reply"; reply: number; error: WorkerError };

interface Validator {
  feed(text: string): void;
  end(): void;
}

/** One streamed output. A failure to open it is kept like any other: reported at finish. */
class OutputFile {
  readonly tmp: string;
  readonly #hash: Hash = createHash("sha256");
  #fd: number | null = null;
  #validator: Validator | null = null;
  #bytes = 0;
  /** A kept prefix not hashed yet: it is hashed at `finish`, then the staged part read back after it. */
  #prefix: OutputResume | null = null;
  /** A table made of another output's items (`rowsOf`): that output, and the records not yet written. */
  #source: OutputFile | null = null;
  #table: CsvOfItems | null = null;
  #rows = "";
  /** Finished whole: a table made of this output's items may be finished too. */
  succeeded = false;
  problem: unknown = null;

  /**
   * `madeOf`: the output whose items this CSV table is made of (null: one was named but is not
   * open), and the table's header, written at once (its records may come before any other write).
   */
  constructor(
    tmp: string,
    check: OutputCheck | null,
    resume?: OutputResume,
    madeOf?: { source: OutputFile | null; head: string },
  ) {
    this.tmp = tmp;
    try {
      if (madeOf && !madeOf.source) throw new Error(`${tmp}: the output its rows come from is not open`);
      if (madeOf) this.#madeOf(madeOf.source!, check);
      else this.#validator = validatorFor(check);
      mkdirSync(dirname(tmp), { recursive: true });
      this.#fd = openSync(tmp, "w");
      if (resume) this.#resume(resume);
      else if (madeOf) {
        this.#table!.head(madeOf.head);
        this.#put(Buffer.from(madeOf.head, "utf8"));
      }
    } catch (error) {
      this.problem = error;
    }
  }

  /** Listens to the items `source` validates, each written as a record of this CSV table. */
  #madeOf(source: OutputFile, check: OutputCheck | null): void {
    this.#source = source;
    if (check?.kind !== "csv" || !(source.#validator instanceof JsonArrayValidator))
      throw new Error(`${this.tmp}: only a CSV table is made of the items of a JSON array`);
    if (source.#validator.onItem) throw new Error(`${this.tmp}: its source already makes another table`);
    const table = new CsvOfItems(check.file, check.table, schemaSet(check.schemasDir).validator(check.schemaId));
    this.#table = table;
    source.#validator.onItem = (item) => {
      if (this.problem !== null) return;
      try {
        this.#rows += table.row(item);
        if (this.#rows.length >= 1 << 18) this.#flushRows();
      } catch (error) {
        this.problem = error;
      }
    };
  }

  #flushRows(): void {
    const bytes = Buffer.from(this.#rows, "utf8");
    this.#rows = "";
    this.#put(bytes);
  }

  /**
   * Primes the validator as if it had read the kept prefix. The prefix is hashed at `finish`, not
   * here: the leaves queued behind this message are not held up, and the main thread goes on to the
   * documents while the helper reads the prefix.
   */
  #resume(resume: OutputResume): void {
    const { bytes, head } = resume;
    this.#prefix = resume;
    this.#bytes = bytes;
    this.#table?.continue();
    const validator = this.#validator;
    if (validator instanceof JsonArrayValidator) validator.continueAfter(bytes > Buffer.byteLength(head) ? 1 : 0);
    else validator?.feed(head);
  }

  /**
   * Appends UTF-8 bytes that hold whole characters. A table made of another output's items takes
   * nothing this way but an empty closing text: its header and records are the helper's.
   */
  write(bytes: Buffer): void {
    if (this.problem !== null || bytes.length === 0) return;
    try {
      if (this.#table) throw new Error(`${this.tmp}: text written to a table made of another output's items`);
      this.#validator?.feed(bytes.toString("utf8"));
      this.#put(bytes);
    } catch (error) {
      this.problem = error;
    }
  }

  #put(bytes: Buffer): void {
    if (!this.#prefix) this.#hash.update(bytes);
    writeSync(this.#fd!, bytes);
    this.#bytes += bytes.length;
  }

  finish(): FileDigest {
    if (this.problem === null && this.#table) {
      try {
        if (!this.#source!.succeeded) throw new Error(`${this.tmp}: the output its rows come from failed`);
        this.#flushRows();
      } catch (error) {
        this.problem = error;
      }
    }
    this.#close();
    if (this.problem !== null) throw this.problem;
    this.#validator?.end();
    if (this.#prefix) this.#assemble(this.#prefix);
    this.succeeded = true;
    return { bytes: this.#bytes, hash: `sha256:${this.#hash.digest("hex")}` };
  }

  /**
   * Makes the staged file the whole output: a new file of the kept prefix and the staged part,
   * hashed from the very bytes written. Publishing renames it over the published file as for any
   * output, so the published file is never changed in place: a reader that opened it (the API
   * checks a file against its manifest, then streams that same open file) keeps reading the version
   * it checked, and a run that fails leaves it whole. The published file is read once, through one
   * descriptor, and must be byte for byte the one the fold state describes (its old closing text
   * is hashed on a copy of the hash), else the output fails and the next run folds it whole.
   */
  #assemble({ from, bytes, published }: OutputResume): void {
    const whole = `${this.tmp}.whole`;
    try {
      const out = openSync(whole, "w");
      try {
        const old = openSync(from, "r");
        try {
          copyHashed(this.#hash, old, out, bytes, 0, from);
          const check = this.#hash.copy();
          copyHashed(check, old, null, Infinity, bytes, from);
          const seen = `sha256:${check.digest("hex")}`;
          if (seen !== published.hash || fstatSync(old).size !== published.bytes)
            throw new Error(`${from}: changed since its fold state was checked; the next run folds it whole`);
        } finally {
          closeSync(old);
        }
        const rest = openSync(this.tmp, "r");
        try {
          copyHashed(this.#hash, rest, out, Infinity, 0, this.tmp);
        } finally {
          closeSync(rest);
        }
        if (fstatSync(out).size !== this.#bytes)
          throw new Error(`${whole}: not the ${this.#bytes} bytes it was to hold`);
      } finally {
        closeSync(out);
      }
      renameSync(whole, this.tmp);
    } catch (error) {
      rmSync(whole, { force: true });
      throw error;
    }
  }

  abort(): void {
    this.#close();
    rmSync(this.tmp, { force: true });
  }

  #close(): void {
    if (this.#fd === null) return;
    closeSync(this.#fd);
    this.#fd = null;
  }
}

/** Feeds `file` (its first `bytes` bytes, or all of it) to `hash`. */
/**
 * Feeds `length` bytes of the open file `fd` from `position` (or all that follows) to `hash`, and
 * appends them to `out` when given, every short write resumed.
 */
function copyHashed(hash: Hash, fd: number, out: number | null, length: number, position: number, file: string): void {
  const chunk = Buffer.allocUnsafe(1 << 20);
  for (let at = 0; at < length;) {
    const n = readSync(fd, chunk, 0, Math.min(chunk.length, length - at), position + at);
    if (n === 0) {
      if (length === Infinity) return;
      throw new Error(`${file}: shorter than the ${length} bytes its fold state keeps`);
    }
    hash.update(chunk.subarray(0, n));
    if (out !== null) for (let w = 0; w < n;) w += writeSync(out, chunk, w, n - w);
    at += n;
  }
}

const schemaSets = new Map<string, JsonSchemaSet>();

function schemaSet(dir: string): JsonSchemaSet {
  let schemas = schemaSets.get(dir);
  if (!schemas) {
    schemas = new JsonSchemaSet(dir, { formats: "fast" });
    schemaSets.set(dir, schemas);
  }
  return schemas;
}

function validatorFor(check: OutputCheck | null): Validator | null {
  if (check === null) return null;
  const row = schemaSet(check.schemasDir).validator(check.schemaId);
  return check.kind === "csv"
    ? new CsvValidator(check.file, check.table, row)
    : new JsonArrayValidator(check.file, row);
}

function workerError(error: unknown): WorkerError {
  if (error instanceof DataError)
    return { message: error.message, data: { code: error.code, file: error.file, problem: error.problem } };
  return { message: error instanceof Error ? error.message : String(error) };
}

const port = parentPort;
if (port) {
  const { memory, slotBytes } = workerData as WorkerSetup;
  const outputs = new Map<number, OutputFile>();
  const answer = (message: WorkerAnswer) => port.postMessage(message);

  const take = (id: number, bytes: Buffer): void => outputs.get(id)?.write(bytes);

  const handle = (request: WorkerRequest): void => {
    switch (request.op) {
      case "bytes":
        // A view of the slot: used here and now, the slot is the main thread's again after the ack.
        take(request.id, Buffer.from(memory, request.slot * slotBytes, request.length));
        return;
      case "text":
        take(request.id, Buffer.from(request.text, "utf8"));
        return;
      case "open": {
        const { madeOf } = request;
        const table = madeOf && { source: outputs.get(madeOf.rowsOf) ?? null, head: madeOf.head };
        outputs.set(request.id, new OutputFile(request.tmp, request.check, request.resume, table));
        return;
      }
      case "finish": {
        const output = outputs.get(request.id);
        outputs.delete(request.id);
        try {
          if (!output) throw new Error(`output ${request.id} was never opened`);
          answer({ op: "reply", reply: request.reply, value: output.finish() });
        } catch (error) {
          output?.abort();
          answer({ op: "reply", reply: request.reply, error: workerError(error) });
        }
        return;
      }
      case "abort":
        outputs.get(request.id)?.abort();
        outputs.delete(request.id);
        return;
    }
  };

  port.on("message", (request: WorkerRequest) => {
    handle(request);
    answer({ op: "ack" });
  });
}
