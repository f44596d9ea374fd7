/**
 * The one streaming pass over the ledger that the runner makes when a step needs it.
 *
 * Every entry (with its payload's stored JCS text) goes, in ledger order, to the facts accumulator
 * and to the sink of every streamed output; the work is split over two threads:
 * - this thread reads and parses the entries, feeds the accumulator and the sinks, and builds each
 *   entry's JCS text (core/ledger/entry.ts entryText);
 * - the helper thread (pipeline/pass/helper-thread.ts) hashes those texts into an RFC 9162 tree,
 *   and validates, hashes and writes the outputs' text to their temporary files.
 *
 * At the end the helper's root must equal the root the ledger reported for `size`: the facts and
 * the outputs are then derived from exactly the entries the ledger's root commits to (an entry
 * changed behind the store's back fails the pass, and nothing is published from it).
 *
 * A sink that throws, or an output whose text fails validation, fails that output alone (its
 * temporary file is removed); the pass itself fails only when the ledger does not match its root
 * or the helper thread dies, and then every temporary file is removed.
 */
import { rmSync } from "node:fs";
import { formatDigest } from "../../core/digest.ts";
import { entryText } from "../../core/ledger/entry.ts";
import type { LedgerReader } from "../../core/ledger/store.ts";
import type { FactsAccumulator } from "../facts/accumulate.ts";
import type { LedgerFacts } from "../facts/types.ts";
import type { RowSink } from "../step.ts";
import type { FileDigest } from "../../store/digest-cache.ts";
import { PassHelper } from "./helper.ts";
import type { OutputCheck } from "./helper-thread.ts";

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
  const helper = new PassHelper(options.outputs.length);
  const streams = options.outputs.map((output) => ({ output, id: helper.open(output.tmp, output.check), error: null as Error | null }));
  let result: PassResult | null = null;
  try {
    for (const s of streams) helper.write(s.id, s.output.head);
    let active = streams;
    let read = 0;
    for (const { entry, payloadText } of ledger.storedEntries(0, size)) {
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
      throw new Error(`the ledger pass read ${read} entries with root ${treeRoot}, but the ledger reported ${size} entries with root ${root}`);
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
