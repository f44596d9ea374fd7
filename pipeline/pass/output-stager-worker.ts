/**
 * The pass helper thread (started by ./output-stager.ts): the ledger's tree, folded from the leaf
 * hashes the pass sends (./leaf-tree.ts), and the streamed outputs, each piece validated
 * (pipeline/validate/), hashed and written to its temporary file; an output's first problem is
 * reported when it is finished. Every
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
import { JsonOfRecords } from "./json-of-records.ts";
import { LeafTree, type TreeEnd, type TreeStart } from "./leaf-tree.ts";

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
  /** One Int32: the messages handled so far, which the main thread reads at once. */
  handled: SharedArrayBuffer;
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
      /**
       * A JSON array of records with these columns: what is written to it are record frames
       * (./record-frames.ts), and the helper writes the file's text, its opening and closing included.
       */
      records?: readonly string[];
    }
  /** The ledger's tree, its leaf hashes written to it (./leaf-tree.ts); finishing it answers its root. */
  | { op: "tree"; id: number; start?: TreeStart }
  | { op: "bytes"; id: number; slot: number; length: number }
  | { op: "text"; id: number; text: string }
  /** `end`: for a JSON array of records, the sink's closing text, which must be the helper's. */
  | { op: "finish"; id: number; reply: number; end?: string }
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
  | { op: "reply"; reply: number; value: FileDigest | TreeEnd }
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
  /** A JSON array the helper writes from record frames (`records`). */
  #records: JsonOfRecords | null = null;
  /** A table made of another output's items (`rowsOf`): that output. */
  #source: OutputFile | null = null;
  #table: CsvOfItems | null = null;
  /** Text the helper makes (a table's records, a JSON array's lines), encoded as it comes. */
  #made: EncodedText | null = null;
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
    records?: readonly string[],
  ) {
    this.tmp = tmp;
    try {
      if (madeOf && !madeOf.source) throw new Error(`${tmp}: the output its rows come from is not open`);
      if (madeOf) this.#madeOf(madeOf.source!, check);
      else if (records) this.#ofRecords(records, check);
      else this.#validator = validatorFor(check);
      mkdirSync(dirname(tmp), { recursive: true });
      this.#fd = openSync(tmp, "w");
      if (this.#table || this.#records) this.#made = new EncodedText((bytes) => this.#put(bytes));
      if (resume) this.#resume(resume);
      else if (madeOf) {
        this.#table!.head(madeOf.head);
        this.#put(Buffer.from(madeOf.head, "utf8"));
      } else if (this.#records) this.#put(Buffer.from(this.#records.head, "utf8"));
    } catch (error) {
      this.problem = error;
    }
  }

  #ofRecords(columns: readonly string[], check: OutputCheck | null): void {
    if (check !== null && check.kind !== "json-array")
      throw new Error(`${this.tmp}: only a JSON array is written from records`);
    const item = check === null ? null : schemaSet(check.schemasDir).validator(check.schemaId);
    this.#records = new JsonOfRecords(check?.file ?? this.tmp, columns, item);
  }

  /** The validated items of this output, for a table made of them (a JSON array's only). */
  get #items(): { onItem: ((value: unknown) => void) | null } | null {
    return this.#records ?? (this.#validator instanceof JsonArrayValidator ? this.#validator : null);
  }

  /** Listens to the items `source` validates, each written as a record of this CSV table. */
  #madeOf(source: OutputFile, check: OutputCheck | null): void {
    this.#source = source;
    const items = source.#items;
    if (check?.kind !== "csv" || !items)
      throw new Error(`${this.tmp}: only a CSV table is made of the items of a JSON array`);
    if (items.onItem) throw new Error(`${this.tmp}: its source already makes another table`);
    const table = new CsvOfItems(check.file, check.table, schemaSet(check.schemasDir).validator(check.schemaId));
    this.#table = table;
    items.onItem = (item) => {
      if (this.problem !== null) return;
      try {
        this.#made!.add(table.row(item));
      } catch (error) {
        this.problem = error;
      }
    };
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
    const items = bytes > Buffer.byteLength(head) ? 1 : 0;
    if (validator instanceof JsonArrayValidator) validator.continueAfter(items);
    else validator?.feed(head);
    this.#records?.continueAfter(items);
  }

  /**
   * Appends UTF-8 bytes that hold whole characters, or, to a JSON array of records, whole record
   * frames. A table made of another output's items takes nothing this way: its header and records
   * are the helper's.
   */
  write(bytes: Buffer): void {
    if (this.problem !== null || bytes.length === 0) return;
    try {
      if (this.#table) throw new Error(`${this.tmp}: text written to a table made of another output's items`);
      if (this.#records) return this.#records.lines(bytes.toString("utf8"), (line) => this.#made!.add(line));
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

  /** `end`: the closing text the sink of a JSON array of records gave (the fold state counts its bytes). */
  finish(end?: string): FileDigest {
    if (this.problem === null && this.#made) {
      try {
        if (this.#table && !this.#source!.succeeded)
          throw new Error(`${this.tmp}: the output its rows come from failed`);
        if (this.#records) {
          const closing = this.#records.end();
          if (end !== undefined && end !== closing)
            throw new Error(`${this.tmp}: its sink closes with ${JSON.stringify(end)}, not ${JSON.stringify(closing)}`);
          this.#made.add(closing);
        }
        this.#made.flush();
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

/**
 * Text the helper makes, encoded into one buffer as it comes and handed on when the buffer is full:
 * no string of many rows is built only to be flattened and encoded at once.
 */
class EncodedText {
  static readonly BYTES = 1 << 18;
  readonly #buffer = Buffer.allocUnsafe(EncodedText.BYTES);
  #used = 0;
  readonly #put: (bytes: Buffer) => void;

  constructor(put: (bytes: Buffer) => void) {
    this.#put = put;
  }

  add(text: string): void {
    // A UTF-16 unit takes at most 3 UTF-8 bytes.
    const most = text.length * 3;
    if (this.#used + most > EncodedText.BYTES) this.flush();
    if (most > EncodedText.BYTES) this.#put(Buffer.from(text, "utf8"));
    else this.#used += this.#buffer.write(text, this.#used);
  }

  /** Hands on what is buffered (the buffer is reused: `put` must be done with it on return). */
  flush(): void {
    if (this.#used === 0) return;
    const used = this.#used;
    this.#used = 0;
    this.#put(this.#buffer.subarray(0, used));
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
  const { memory, slotBytes, handled: handledMemory } = workerData as WorkerSetup;
  const handled = new Int32Array(handledMemory);
  const outputs = new Map<number, OutputFile | LeafTree>();
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
      case "tree":
        outputs.set(request.id, new LeafTree(request.start));
        return;
      case "open": {
        const { madeOf } = request;
        const source = madeOf && outputs.get(madeOf.rowsOf);
        const table = madeOf && { source: source instanceof OutputFile ? source : null, head: madeOf.head };
        outputs.set(request.id, new OutputFile(request.tmp, request.check, request.resume, table, request.records));
        return;
      }
      case "finish": {
        const output = outputs.get(request.id);
        outputs.delete(request.id);
        try {
          if (!output) throw new Error(`output ${request.id} was never opened`);
          answer({ op: "reply", reply: request.reply, value: output.finish(request.end) });
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
    Atomics.add(handled, 0, 1);
    answer({ op: "ack" });
  });
}
