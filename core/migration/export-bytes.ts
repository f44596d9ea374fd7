/**
 * The snapshot of a v1 export from its bytes: the path `npm run migration -- snapshot` and the
 * published sample take. It gives byte for byte what the reference path gives (convert.ts
 * convertV1Export, then snapshot.ts snapshotLeaf and verifyConversion), which stays the readable
 * statement of the rules; a test holds the two equal on awkward exports. What differs is cost: no
 * object, string or regex per line, and every stage one pass.
 *
 * The stages pass one set of columns (`Entries`, no object per line) along: the scan that fills
 * them is export-scan.ts, the leaf writer export-leaves.ts; the order, the places, the tree and the
 * totals are here.
 *
 *   1. scan     one hand-written scanner over the bytes reads the v1 system's own line form,
 *               `{"address":"<address>","balance_gic":<number>}`: the address is checked against
 *               the address format as it is read; the number's digits become shards by position
 *               (whole MIC and the six decimals, each an exact double). Any other line — spaces,
 *               escapes, a negative, not a number, an exponent beyond ±4096 — goes through the
 *               reference (scanV1Line, isAddress, parseMic), so every verdict is the reference's.
 *   2. order    the addresses are sorted by their bytes (core/money/address.ts
 *               addressOrderOfBytes); the lines of a repeated address come out next to each other,
 *               and all of them are reported.
 *   3. place    each converted address's place in the output follows from the order and its leaf's
 *               length (known from the columns: address, shard digits, v1 text).
 *   4. leaves   the lines are taken again in line order (columns and input read in memory order)
 *               and each leaf input (0x00 ‖ leaf) is written at its place — the writes scatter,
 *               the reads do not — and checked there: the spec's verification (shards / 1,000,000
 *               = the v1 value as exact decimals) by another route than the conversion — the shard
 *               digits just written and the v1 text are each reduced to their significant digits
 *               and a power of ten, and compared. A balance that differs throws; nothing is
 *               returned.
 *   5. tree     the root is streamed over the leaf inputs exactly as the benchmark's floor does it
 *               (core/merkle-stream.ts: each leaf hashed once, each inner node once), or by the
 *               caller's LeafRooter (the store hashes the tree's right subtree on a second
 *               thread); then the 0x00 separators become the newlines of snapshot.jsonl in place.
 * No intermediate copy of the leaves is kept: the output buffer is the only one.
 */
import { addressOrderOfBytes } from "../money/address.ts";
import { StreamingRoot } from "../merkle-stream.ts";
import type { Mismatch, MismatchReason } from "./convert.ts";
import { CodedError } from "../errors.ts";
import { leafLength, writeLeaf } from "./export-leaves.ts";
import { NL, VERDICTS, OK, Entries, SideBytes, scanLines } from "./export-scan.ts";

export interface ExportSnapshot {
  /** snapshot.jsonl: one leaf per converted address, sorted, each line ending in "\n". */
  jsonl: Buffer;
  /** Leaves (= converted addresses). */
  size: number;
  rootHash: Uint8Array;
  /** In line order. */
  mismatches: Mismatch[];
  /** Lines read (a final newline ends the last line; it does not start another). */
  lines: number;
  /** Sum of the converted balances. */
  totalShards: bigint;
}

export type ExportCheckCode = "amount-differs" | "lines-unaccounted" | "input-too-large";

/** The conversion did not verify; nothing may be written. */
export class ExportCheckError extends CodedError<ExportCheckCode> {}

/** The largest export taken: leaf offsets are 32-bit (a gibibyte holds some 16 million addresses). */
export const MAX_EXPORT_BYTES = 2 ** 30;

/**
 * How the snapshot's root is computed from its leaf inputs, and where they are written. The default
 * is one StreamingRoot on this thread (the benchmark's floor); a store may hash parts of the tree
 * elsewhere (store/leaf-root-helper.ts) as long as it gives the same RFC 9162 root.
 */
export interface LeafRooter {
  /** A buffer of `length` bytes for the leaf inputs (memory another thread can read, say). */
  allocate(length: number): Buffer;
  /** The root of `count` leaf inputs (0x00 ‖ leaf) back to back; leaf i starts at `offsets[i]`. */
  root(leafInputs: Buffer, offsets: Uint32Array, count: number): Uint8Array;
}

export const STREAMING_ROOTER: LeafRooter = {
  allocate: (length) => Buffer.allocUnsafe(length),
  root(leafInputs) {
    const stream = new StreamingRoot();
    stream.appendLeafInputs(leafInputs);
    return stream.root();
  },
};

/** The snapshot of the export `input` (its bytes, UTF-8): leaves, root, mismatch report, totals. */
export function snapshotExport(input: Uint8Array, rooter: LeafRooter = STREAMING_ROOTER): ExportSnapshot {
  if (input.length > MAX_EXPORT_BYTES)
    throw new ExportCheckError(
      "input-too-large",
      `exports above ${MAX_EXPORT_BYTES} bytes are not taken (this one has ${input.length})`,
    );
  const source = Buffer.from(input.buffer, input.byteOffset, input.length);
  // A line of the v1 form takes some 60 bytes: room for most exports without growing the columns.
  const entries = new Entries(Math.max(1024, Math.ceil(input.length / 40)));
  const side = new SideBytes();
  const mismatches: Mismatch[] = [];
  const lines = scanLines(source, entries, side, mismatches);
  const bytes = side.length === 0 ? source : Buffer.concat([source, ...side.chunks]);

  // 2. order: every line of a repeated address is reported; the others convert or are reported.
  const { order, sameAsPrevious } = addressOrderOfBytes(
    bytes,
    entries.addressStart,
    entries.addressLength,
    entries.count,
  );
  let size = 0;
  let jsonlLength = 0;
  // Where each leaf input starts, in address order (for a rooter that splits the tree).
  const offsets = new Uint32Array(entries.count);
  const report = (i: number, reason: MismatchReason) => {
    const lineEnd = source.indexOf(NL, entries.lineStart[i]!);
    mismatches.push({
      line: entries.lineIndex[i]! + 1,
      address: bytes.toString("latin1", entries.addressStart[i]!, entries.addressStart[i]! + entries.addressLength[i]!),
      input: source.toString("utf8", entries.lineStart[i]!, lineEnd < 0 ? source.length : lineEnd),
      reason,
    });
  };
  for (let k = 0; k < entries.count;) {
    let end = k + 1;
    while (end < entries.count && sameAsPrevious[end] === 1) end++;
    if (end - k > 1) {
      for (let j = k; j < end; j++) {
        report(order[j]!, "duplicate-address");
      }
    } else {
      const i = order[k]!;
      const verdict = entries.verdict[i]!;
      if (verdict === OK) {
        offsets[size++] = jsonlLength;
        // Its leaf input goes next in the output (dest is one past its start: 0 means none).
        entries.dest[i] = jsonlLength + 1;
        jsonlLength += 1 + leafLength(entries.addressLength[i]!, entries.digits[i]!, entries.valueLength[i]!);
      } else report(i, VERDICTS[verdict]!);
    }
    k = end;
  }
  mismatches.sort((a, b) => a.line - b.line);
  if (size + mismatches.length !== lines) {
    throw new ExportCheckError(
      "lines-unaccounted",
      `${lines} lines read, ${size} converted and ${mismatches.length} reported`,
    );
  }

  // 3. leaves, 4. output: each converted line's leaf input (0x00 ‖ leaf) written at its place in
  // address order, the lines taken in line order (reads in memory order; the writes scatter), each
  // leaf checked as it is written; the root streamed over the leaf inputs; then each 0x00 after the
  // first made the newline that ends the leaf before it, and the last newline added.
  if (size === 0)
    return { jsonl: Buffer.alloc(0), size, rootHash: new StreamingRoot().root(), mismatches, lines, totalShards: 0n };
  const out = rooter.allocate(jsonlLength + 1);
  const differing: string[] = [];
  for (let i = 0; i < entries.count; i++) {
    const dest = entries.dest[i]!;
    if (dest === 0) continue;
    out[dest - 1] = 0x00;
    const addressStart = entries.addressStart[i]!;
    const addressEnd = addressStart + entries.addressLength[i]!;
    const valueStart = entries.valueStart[i]!;
    if (
      !writeLeaf(
        out,
        dest,
        bytes,
        addressStart,
        addressEnd,
        entries.whole[i]!,
        entries.fraction[i]!,
        entries.digits[i]!,
        valueStart,
        valueStart + entries.valueLength[i]!,
      )
    ) {
      differing.push(bytes.toString("latin1", addressStart, addressEnd));
    }
  }
  if (differing.length > 0) {
    throw new ExportCheckError(
      "amount-differs",
      `${differing.length} converted balance(s) differ from their v1 value: ${differing.slice(0, 5).join(", ")}`,
    );
  }
  const rootHash = rooter.root(out.subarray(0, jsonlLength), offsets, size);
  for (let i = 0; i < entries.count; i++) if (entries.dest[i]! > 1) out[entries.dest[i]! - 1] = NL;
  out[jsonlLength] = NL;
  const totalShards = sumConverted(entries);
  return { jsonl: out.subarray(1), size, rootHash, mismatches, lines, totalShards };
}

/** The exact sum of the converted balances: the lines with a leaf in line order (memory order), less those of repeated addresses. */
function sumConverted(entries: Entries): bigint {
  let total = 0n;
  let whole = 0;
  let fraction = 0;
  for (let i = 0; i < entries.count; i++) {
    if (entries.dest[i] === 0) continue;
    whole += entries.whole[i]!;
    fraction += entries.fraction[i]!;
    if (whole >= 2 ** 52) {
      total += BigInt(whole);
      whole = 0;
    }
  }
  return (total + BigInt(whole)) * 1_000_000n + BigInt(fraction);
}
