/**
 * The one streaming pass over the ledger the runner makes when a step needs it. Every entry, in
 * order, is rehashed into its leaf and goes to the facts accumulator and to the sink of every
 * streamed output on this thread; the helper thread (./output-stager.ts) folds the leaves into the
 * ledger's tree and validates, hashes and writes the outputs. The rehashed root must equal the
 * ledger's: facts and outputs then come from exactly the entries the root commits to. The facts are
 * handed on before the helper has answered the root, so that documents are made meanwhile; nothing
 * may be published or kept from them until `outputs` resolves, which it does only once the root
 * matched. A sink that throws or an output that fails validation fails alone; a root mismatch or a
 * dead helper fails the pass, and every temporary file is removed.
 */
import { rmSync } from "node:fs";
import { entryText } from "../../core/ledger/entry.ts";
import { hash } from "node:crypto";
import { JSON_ROWS_HEAD } from "../../core/json-rows.ts";
import type { LedgerReader } from "../../core/ledger/store.ts";
import type { FactsAccumulator } from "../facts/accumulate.ts";
import type { LedgerFacts } from "../facts/types.ts";
import type { RowSink } from "../step.ts";
import type { FileDigest } from "../../store/digest-cache.ts";
import { OutputStager } from "./output-stager.ts";
import type { TreeEnd } from "./leaf-tree.ts";
import type { OutputCheck, OutputResume } from "./output-stager-worker.ts";

export interface StreamedOutput {
  /** Temporary file the output is staged in. */
  tmp: string;
  /** Text that opens the file, and the sink fed every entry. */
  head: string;
  sink: RowSink;
  check: OutputCheck | null;
  /** The entry the sink is fed from (0, or the watermark its kept prefix covers), and that prefix. */
  from?: number;
  resume?: OutputResume;
  /**
   * The index (among the pass's outputs, before this one) of a JSON array output whose items are
   * this CSV table's rows: the helper writes them from those items, and the sink is not fed
   * (RowsStep.rowsOf). Its head and closing text are still the sink's.
   */
  rowsOf?: number;
}

/** Where a streamed output's sink stopped: its state, and the bytes its closing text took. */
export interface OutputEnd {
  state: unknown;
  endBytes: number;
}

export interface PassResult {
  /** Entries read. */
  read: number;
  facts: LedgerFacts;
  /** The facts accumulator, to take a snapshot of. */
  accumulator: FactsAccumulator;
  /**
   * The root check and the streamed outputs, finished on the helper thread while the caller goes on
   * (a continued output's kept prefix is hashed then). It rejects only when the entries read are
   * not the ledger's (or the helper died): an output's own failure is that output's Error.
   */
  outputs: Promise<StreamedResults>;
}

export interface StreamedResults {
  /** The right edge of the tree of every entry (for a watermark at the ledger's size). */
  edge: Uint8Array[];
  /** Per output, in the order given: the staged file's size and sha256, or why it failed. */
  outputs: (FileDigest | Error)[];
  /** Per output: its sink's state and closing text's size, when the sink keeps a state. */
  ends: (OutputEnd | null)[];
}

export async function readLedgerOnce(options: {
  ledger: LedgerReader;
  /** The ledger's size and root (`sha256:<hex>`) the pass must reproduce. */
  size: number;
  root: string;
  accumulator: FactsAccumulator;
  outputs: readonly StreamedOutput[];
  /**
   * Where the pass starts: the watermark of the earliest fold it continues (its size and tree edge),
   * or the first entry. The accumulator is fed from `factsFrom`, each output from its own `from`.
   */
  start?: { size: number; edge: Uint8Array[] };
  factsFrom?: number;
}): Promise<PassResult> {
  const { ledger, size, root, accumulator } = options;
  const start = options.start?.size ?? 0;
  const factsFrom = options.factsFrom ?? 0;
  options.outputs.forEach((output, i) => {
    if (output.rowsOf === undefined) return;
    const source = options.outputs[output.rowsOf];
    if (!(output.rowsOf >= 0 && output.rowsOf < i) || !source)
      throw new Error(`${output.tmp}: the output its rows come from must come before it`);
    // A table gets every item of its source: both folded from the same entry, both continued or both whole.
    if ((source.from ?? 0) !== (output.from ?? 0) || !source.resume !== !output.resume)
      throw new Error(`${output.tmp}: not folded from the same entry as the output its rows come from`);
  });
  const helper = new OutputStager(options.outputs.length + 1);
  // Every entry read is rehashed into its leaf of the ledger's RFC 9162 tree, which the helper
  // folds, continued from the watermark's edge: the pass fails unless its root is the ledger's, so
  // an entry changed behind the store's back is never published.
  const tree = helper.openTree(options.start);
  const streams: {
    output: StreamedOutput;
    from: number;
    id: number;
    /** The sink's records, which the helper writes as JSON (RowSink.records). */
    records: RowSink["records"];
    error: Error | null;
  }[] = [];
  options.outputs.forEach((output) => {
    const madeOf = output.rowsOf === undefined ? undefined : { rowsOf: streams[output.rowsOf]!.id, head: output.head };
    const records = output.head === JSON_ROWS_HEAD && output.check?.kind !== "csv" ? output.sink.records : undefined;
    streams.push({
      output,
      from: output.from ?? 0,
      id: helper.open(output.tmp, output.check, output.resume, madeOf, records?.columns),
      records,
      error: null,
    });
  });
  let finishing = false;
  try {
    // The helper opens a JSON array of records itself.
    for (const s of streams)
      if (!s.output.resume && s.output.rowsOf === undefined && !s.records) helper.write(s.id, s.output.head);
    // A table made of another output's items is not fed: the helper writes its rows.
    let active = streams.filter((s) => s.output.rowsOf === undefined);
    let read = 0;
    for await (const { entry, payloadText } of ledger.storedEntries(start, size)) {
      const seq = start + read;
      if (seq >= factsFrom) accumulator.add(entry);
      // Hashed here while the helper is busy, there while it has room: the leaf input starts with
      // the 0x00 that marks it (./leaf-tree.ts).
      const leafInput = `\u0000${entryText(entry, payloadText)}`;
      if (helper.spare) helper.writeLeafInput(tree, leafInput);
      else helper.writeLeaf(tree, hash("sha256", leafInput, "binary"));
      read += 1;
      for (let i = 0; i < active.length; i++) {
        const s = active[i]!;
        if (seq < s.from) continue;
        try {
          if (s.records) {
            const cells = s.records.record(entry, payloadText);
            if (cells) helper.writeRecord(s.id, cells);
          } else helper.write(s.id, s.output.sink.push(entry, payloadText));
        } catch (error) {
          // A helper that died fails the pass; a sink that threw fails its output alone.
          if (helper.failure) throw helper.failure;
          s.error = error as Error;
          helper.abort(s.id);
          active = active.filter((x) => x !== s);
          i -= 1;
        }
      }
      if (helper.full) await helper.room();
    }
    if (start + read !== size)
      throw new Error(`the ledger pass read ${start + read} entries, but the ledger reported ${size}`);
    // Asked first: the helper answers it before it finishes the outputs.
    const rehashed = helper.finishTree(tree);
    rehashed.catch(() => {}); // awaited below, on every path
    const rootOf = (end: TreeEnd): void => {
      if (end.size !== size || end.root !== root)
        throw new Error(
          `the ledger pass read ${end.size} entries with root ${end.root}, but the ledger reported ${size} entries with root ${root}`,
        );
    };
    let facts: LedgerFacts;
    try {
      facts = accumulator.result(root);
    } catch (error) {
      // Entries that are not the ledger's can make a fold throw: then that is the error to report.
      rootOf(await rehashed);
      throw error;
    }
    // Every output's closing text and finish are sent now; each answer is taken as it comes, so
    // that none is left rejected without a handler while an earlier one is awaited.
    const finished = streams.map((s): Promise<[FileDigest | Error, OutputEnd | null]> => {
      if (s.error) return Promise.resolve([s.error, null]);
      try {
        const { sink } = s.output;
        const state = sink.state ? sink.state() : undefined;
        const end = sink.end();
        // A JSON array of records is closed by the helper, which checks it is the sink's closing text.
        if (!s.records) helper.write(s.id, end);
        const ending = sink.state ? { state, endBytes: Buffer.byteLength(end) } : null;
        return helper.finish(s.id, s.records ? end : undefined).then(
          (digest) => [digest, ending],
          (error: Error) => [error, null],
        );
      } catch (error) {
        if (!helper.failure) helper.abort(s.id);
        return Promise.resolve([error as Error, null]);
      }
    });
    finishing = true;
    const outputs = (async (): Promise<StreamedResults> => {
      let results: [FileDigest | Error, OutputEnd | null][];
      let edge: Uint8Array[];
      try {
        const [end, ...all] = await Promise.all([rehashed, ...finished]);
        rootOf(end);
        results = all;
        edge = end.edge;
      } catch (error) {
        await helper.close().catch(() => {});
        for (const s of streams) rmSync(s.output.tmp, { force: true });
        throw error;
      }
      await helper.close().catch(() => {}); // every answer is in: a failing close changes none
      // Only the staged files of outputs that succeeded are kept.
      streams.forEach((s, i) => {
        if (results[i]![0] instanceof Error) rmSync(s.output.tmp, { force: true });
      });
      return { edge, outputs: results.map((r) => r[0]), ends: results.map((r) => r[1]) };
    })();
    return { read, facts, accumulator, outputs };
  } finally {
    if (!finishing) {
      await helper.close();
      for (const s of streams) rmSync(s.output.tmp, { force: true });
    }
  }
}
