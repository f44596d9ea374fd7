/**
 * The one streaming pass over the ledger the runner makes when a step needs it. Every entry, in
 * order, goes to the facts accumulator and to the sink of every streamed output on this thread; the
 * helper thread (./rehash-and-stage.ts) rehashes the entries and validates, hashes and writes the
 * outputs. The rehashed root must equal the ledger's: facts and outputs then come from exactly the
 * entries the root commits to. A sink that throws or an output that fails validation fails alone;
 * a root mismatch or a dead helper fails the pass, and every temporary file is removed.
 */
import { rmSync } from "node:fs";
import { formatDigest } from "../../core/digest.ts";
import { entryText } from "../../core/ledger/entry.ts";
import type { LedgerReader } from "../../core/ledger/store.ts";
import type { FactsAccumulator } from "../facts/accumulate.ts";
import type { LedgerFacts } from "../facts/types.ts";
import type { RowSink } from "../step.ts";
import type { FileDigest } from "../../store/digest-cache.ts";
import { RehashAndStage } from "./rehash-and-stage.ts";
import type { OutputCheck } from "./rehash-and-stage-worker.ts";

export interface StreamedOutput {
  /** Temporary file the output is staged in. */
  tmp: string;
  /** Text that opens the file, and the sink fed every entry. */
  head: string;
  sink: RowSink;
  check: OutputCheck | null;
}

export interface PassResult {
  /** Entries read. */
  read: number;
  facts: LedgerFacts;
  /** Per output, in the order given: the staged file's size and sha256, or why it failed. */
  outputs: (FileDigest | Error)[];
}

export async function readLedgerOnce(options: {
  ledger: LedgerReader;
  /** The ledger's size and root (`sha256:<hex>`) the pass must reproduce. */
  size: number;
  root: string;
  accumulator: FactsAccumulator;
  outputs: readonly StreamedOutput[];
}): Promise<PassResult> {
  const { ledger, size, root, accumulator } = options;
  const helper = new RehashAndStage(options.outputs.length);
  const streams = options.outputs.map((output) => ({
    output,
    id: helper.open(output.tmp, output.check),
    error: null as Error | null,
  }));
  let result: PassResult | null = null;
  try {
    for (const s of streams) helper.write(s.id, s.output.head);
    let active = streams;
    let read = 0;
    for await (const { entry, payloadText } of ledger.storedEntries(0, size)) {
      accumulator.add(entry);
      helper.leaf(entryText(entry, payloadText));
      read += 1;
      for (let i = 0; i < active.length; i++) {
        const s = active[i]!;
        try {
          helper.write(s.id, s.output.sink.push(entry, payloadText));
        } catch (error) {
          s.error = error as Error;
          helper.abort(s.id);
          active = active.filter((x) => x !== s);
          i -= 1;
        }
      }
      if (helper.full) await helper.room();
    }
    const tree = await helper.root();
    const treeRoot = formatDigest(tree.root);
    if (read !== size || tree.size !== size || treeRoot !== root) {
      throw new Error(
        `the ledger pass read ${read} entries with root ${treeRoot}, but the ledger reported ${size} entries with root ${root}`,
      );
    }
    const outputs: (FileDigest | Error)[] = [];
    for (const s of streams) {
      if (s.error) {
        outputs.push(s.error);
        continue;
      }
      try {
        helper.write(s.id, s.output.sink.end());
        outputs.push(await helper.finish(s.id));
      } catch (error) {
        outputs.push(error as Error);
      }
    }
    result = { read, facts: accumulator.result(root), outputs };
    return result;
  } finally {
    await helper.close();
    // Only the staged files of outputs that succeeded in a pass that succeeded are kept.
    streams.forEach((s, i) => {
      if (!result || result.outputs[i] instanceof Error) rmSync(s.output.tmp, { force: true });
    });
  }
}
