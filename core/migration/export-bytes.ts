/**
 * The snapshot of a v1 export from its bytes: the path `npm run migration -- snapshot` and the
 * published sample take. It gives byte for byte what the reference path gives (convert.ts
 * convertV1Export, then snapshot.ts snapshotLeaf and verifyConversion), which stays the readable
 * statement of the rules; a test holds the two equal on awkward exports. What differs is cost: no
 * object, string or regex per line, and every stage one pass.
 *
 * Over 500 lines on purpose: the scan, the columns, the leaf writer and the tree are one hot loop
 * over the same columns (the migration benchmark's snapshot target), and splitting them would pass
 * the columns between modules for no reader's gain.
 *
 *   1. scan     one hand-written scanner over the bytes reads the v1 system's own line form,
 *               `{"address":"<address>","balance_gic":<number>}`: the address is checked against
 *               the address format as it is read; the number's digits become shards by position
 *               (whole MIC and the six decimals, each an exact double). Any other line — spaces,
 *               escapes, a negative, not a number, an exponent beyond ±4096 — goes through the
 *               reference (scanV1Line, isAddress, parseMic), so every verdict is the reference's.
 *   2. order    the addresses are sorted by their bytes (core/balance/address.ts
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
import { addressOrderOfBytes, isAddress } from "../balance/address.ts";
import { MAX_BALANCE_SHARDS, parseMic, type MicParseError } from "../balance/units.ts";
import { StreamingRoot } from "../merkle-stream.ts";
import type { Mismatch, MismatchReason } from "./convert.ts";
import { scanV1Line } from "./v1-export.ts";
import { CodedError } from "../errors.ts";

const ascii = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));
const OPEN = ascii('{"address":"');
const MIDDLE = ascii('","balance_gic":');
const LEAF_OPEN = ascii('{"address":"');
const LEAF_SHARDS = ascii('","balance_shards":"');
const LEAF_V1 = ascii('","v1_balance_gic":"');
const LEAF_CLOSE = ascii('"}');
/** Bytes of a leaf besides its address, shard digits and v1 text, with its newline. */
const LEAF_FIXED = LEAF_OPEN.length + LEAF_SHARDS.length + LEAF_V1.length + LEAF_CLOSE.length + 1;
const MAX_DIGITS = ascii(MAX_BALANCE_SHARDS.toString());

const NL = 0x0a;
const QUOTE = 0x22;
const ZERO = 0x30;
const MINUS = 0x2d;
const DOT = 0x2e;
const CLOSE_BRACE = 0x7d;

/** 1 for an address byte ([A-Za-z0-9._:-]), 2 for one that may also start an address. */
const ADDRESS_BYTE = (() => {
  const table = new Uint8Array(256);
  for (const c of "._:-") table[c.charCodeAt(0)] = 1;
  for (const c of "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") table[c.charCodeAt(0)] = 2;
  return table;
})();
function isDigit(b: number): boolean {
  return b >= ZERO && b <= ZERO + 9;
}

/** Digit `v` of a number's digits, the int part [intStart, intStart + intLength) then the fraction from fractionStart. */
function digitAt(bytes: Uint8Array, intStart: number, intLength: number, fractionStart: number, v: number): number {
  return (v < intLength ? bytes[intStart + v]! : bytes[fractionStart + v - intLength]!) - ZERO;
}

/** Copies bytes [from, to) of `source` to `out` at `at` (a loop: these runs are short); returns the end. */
function copyBytes(out: Uint8Array, at: number, source: Uint8Array, from: number, to: number): number {
  for (let k = from; k < to; k++) out[at++] = source[k]!;
  return at;
}

/** A value's verdict: 0 converted, else the reason it is not. */
const VERDICTS: readonly (MicParseError | null)[] = [null, "not-a-number", "negative", "too-precise", "too-large"];
const OK = 0;
const TOO_PRECISE = VERDICTS.indexOf("too-precise");
const TOO_LARGE = VERDICTS.indexOf("too-large");
function verdictOf(error: MicParseError): number {
  return VERDICTS.indexOf(error);
}

/** The lines that carry a valid address, in line order, as columns (no object per line). */
class Entries {
  count = 0;
  lineIndex: Uint32Array;
  lineStart: Uint32Array;
  addressStart: Uint32Array;
  addressLength: Uint8Array;
  valueStart: Uint32Array;
  valueLength: Uint32Array;
  verdict: Uint8Array;
  /** The shards as whole MIC and the six decimals, both exact doubles. */
  whole: Float64Array;
  fraction: Uint32Array;
  /** How many decimal digits the shards take (known when they are read: no division per leaf later). */
  digits: Uint8Array;
  /** Where a line's leaf input (0x00 ‖ leaf) starts in the output, plus one; 0: not in the snapshot. */
  dest: Uint32Array;

  /** Room for `capacity` lines to start with (grown by doubling past it). */
  constructor(capacity: number) {
    this.lineIndex = new Uint32Array(capacity);
    this.lineStart = new Uint32Array(capacity);
    this.addressStart = new Uint32Array(capacity);
    this.addressLength = new Uint8Array(capacity);
    this.valueStart = new Uint32Array(capacity);
    this.valueLength = new Uint32Array(capacity);
    this.verdict = new Uint8Array(capacity);
    this.whole = new Float64Array(capacity);
    this.fraction = new Uint32Array(capacity);
    this.digits = new Uint8Array(capacity);
    this.dest = new Uint32Array(capacity);
  }

  add(
    lineIndex: number,
    lineStart: number,
    addressStart: number,
    addressLength: number,
    valueStart: number,
    valueLength: number,
  ): number {
    if (this.count === this.lineIndex.length) this.#grow();
    const i = this.count++;
    this.lineIndex[i] = lineIndex;
    this.lineStart[i] = lineStart;
    this.addressStart[i] = addressStart;
    this.addressLength[i] = addressLength;
    this.valueStart[i] = valueStart;
    this.valueLength[i] = valueLength;
    return i;
  }

  #grow(): void {
    const size = this.lineIndex.length * 2;
    const grow = <T extends Uint32Array | Uint8Array | Float64Array>(a: T): T => {
      const b = new (a.constructor as new (n: number) => T)(size);
      b.set(a);
      return b;
    };
    this.lineIndex = grow(this.lineIndex);
    this.lineStart = grow(this.lineStart);
    this.addressStart = grow(this.addressStart);
    this.addressLength = grow(this.addressLength);
    this.valueStart = grow(this.valueStart);
    this.valueLength = grow(this.valueLength);
    this.verdict = grow(this.verdict);
    this.whole = grow(this.whole);
    this.fraction = grow(this.fraction);
    this.digits = grow(this.digits);
    this.dest = grow(this.dest);
  }
}

/** Bytes the reference path decoded (an address or number of a line not in the v1 form), kept after the input. */
class SideBytes {
  chunks: Buffer[] = [];
  length = 0;
  /** Appends ASCII text; returns its offset from the end of the input. */
  add(text: string): number {
    const at = this.length;
    this.chunks.push(Buffer.from(text, "latin1"));
    this.length += text.length;
    return at;
  }
}

/** The length of a converted line's leaf. */
function leafLength(addressLength: number, digits: number, valueLength: number): number {
  return LEAF_FIXED - 1 + addressLength + digits + valueLength;
}

/**
 * Writes the leaf of a converted line at `at` in `out` (address and v1 text read from `bytes`) and
 * checks it there: the spec's verification (shards / 10^6 = the v1 value), on the bytes just
 * written. Returns false when the shards are not the v1 value.
 */
function writeLeaf(
  out: Buffer,
  at: number,
  bytes: Uint8Array,
  addressStart: number,
  addressEnd: number,
  whole: number,
  fraction: number,
  digits: number,
  valueStart: number,
  valueEnd: number,
): boolean {
  at = copyBytes(out, at, LEAF_OPEN, 0, LEAF_OPEN.length);
  at = copyBytes(out, at, bytes, addressStart, addressEnd);
  at = copyBytes(out, at, LEAF_SHARDS, 0, LEAF_SHARDS.length);
  const digitsStart = at;
  at = writeShards(out, at, whole, fraction, digits);
  const digitsEnd = at;
  at = copyBytes(out, at, LEAF_V1, 0, LEAF_V1.length);
  const textStart = at;
  at = copyBytes(out, at, bytes, valueStart, valueEnd);
  const textEnd = at;
  copyBytes(out, at, LEAF_CLOSE, 0, LEAF_CLOSE.length);
  return sameDecimal(out, digitsStart, digitsEnd, out, textStart, textEnd);
}

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

/** 1. scan: every line; entries for lines with a valid address, mismatches for the others. Returns the line count. */
function scanLines(source: Buffer, entries: Entries, side: SideBytes, mismatches: Mismatch[]): number {
  let lineIndex = 0;
  for (let start = 0; start < source.length; lineIndex++) {
    let end = source.indexOf(NL, start);
    if (end < 0) end = source.length;
    if (!scanV1Form(source, start, end, lineIndex, entries))
      scanOther(source, start, end, lineIndex, entries, side, mismatches);
    start = end + 1;
  }
  return lineIndex;
}

function matches(source: Buffer, at: number, token: Uint8Array): boolean {
  for (let k = 0; k < token.length; k++) if (source[at + k] !== token[k]) return false;
  return true;
}

/** The v1 system's own form with a valid address and a non-negative JSON number; false: not this form. */
function scanV1Form(source: Buffer, start: number, end: number, lineIndex: number, entries: Entries): boolean {
  if (end - start < OPEN.length + MIDDLE.length + 3 || source[end - 1] !== CLOSE_BRACE || !matches(source, start, OPEN))
    return false;
  const addressStart = start + OPEN.length;
  if (ADDRESS_BYTE[source[addressStart]!] !== 2) return false;
  let p = addressStart + 1;
  while (p < end && ADDRESS_BYTE[source[p]!] !== 0) p++;
  const addressLength = p - addressStart;
  if (addressLength > 128 || source[p] !== QUOTE || !matches(source, p, MIDDLE)) return false;
  const valueStart = p + MIDDLE.length;
  const valueEnd = end - 1;
  if (valueEnd <= valueStart) return false;
  // A JSON number: int, optional fraction, optional exponent (the sign: the reference decides).
  let q = valueStart;
  const intStart = q;
  if (source[q] === ZERO) q++;
  else if (source[q]! > ZERO && source[q]! <= ZERO + 9) while (q < valueEnd && isDigit(source[q]!)) q++;
  else return false;
  const intEnd = q;
  let fractionStart = q;
  let fractionEnd = q;
  if (source[q] === DOT) {
    fractionStart = ++q;
    while (q < valueEnd && isDigit(source[q]!)) q++;
    fractionEnd = q;
    if (fractionEnd === fractionStart) return false;
  }
  let exponent = 0;
  if (q < valueEnd && (source[q] === 0x65 || source[q] === 0x45)) {
    q++;
    let sign = 1;
    if (source[q] === MINUS || source[q] === 0x2b) sign = source[q++] === MINUS ? -1 : 1;
    if (q >= valueEnd || !isDigit(source[q]!)) return false;
    while (q < valueEnd && isDigit(source[q]!)) {
      exponent = exponent * 10 + source[q++]! - ZERO;
      if (exponent > 4096) return false; // the reference's bound
    }
    exponent *= sign;
  }
  if (q !== valueEnd) return false;
  const i = entries.add(lineIndex, start, addressStart, addressLength, valueStart, valueEnd - valueStart);
  convertDigits(source, intStart, intEnd, fractionStart, fractionEnd, exponent, entries, i);
  return true;
}

/**
 * shards = digits × 10^(exponent − decimals + 6), shifted by position: the digits dropped on the
 * right must be zeros (else too precise), at most 19 digits and at most MAX_BALANCE_SHARDS.
 */
function convertDigits(
  source: Buffer,
  intStart: number,
  intEnd: number,
  fractionStart: number,
  fractionEnd: number,
  exponent: number,
  entries: Entries,
  i: number,
): void {
  const intLength = intEnd - intStart;
  const digitCount = intLength + (fractionEnd - fractionStart);
  let lead = 0;
  while (lead < digitCount && digitAt(source, intStart, intLength, fractionStart, lead) === 0) lead++;
  if (lead === digitCount) {
    entries.verdict[i] = OK;
    entries.whole[i] = 0;
    entries.fraction[i] = 0;
    entries.digits[i] = 1;
    return;
  }
  const scale = exponent - (fractionEnd - fractionStart) + 6;
  let kept = digitCount;
  let zeros = 0;
  if (scale < 0) {
    kept = digitCount + scale;
    for (let v = Math.max(lead, kept); v < digitCount; v++) {
      if (digitAt(source, intStart, intLength, fractionStart, v) !== 0) return void (entries.verdict[i] = TOO_PRECISE);
    }
  } else zeros = scale;
  // The shard digits: the kept significant digits, then `zeros` zeros.
  const significant = kept - lead;
  const length = significant + zeros;
  if (length > MAX_DIGITS.length) return void (entries.verdict[i] = TOO_LARGE);
  if (length === MAX_DIGITS.length) {
    for (let k = 0; k < length; k++) {
      const d =
        (k < significant ? digitAt(source, intStart, intLength, fractionStart, lead + k) : 0) - (MAX_DIGITS[k]! - ZERO);
      if (d > 0) return void (entries.verdict[i] = TOO_LARGE);
      if (d < 0) break;
    }
  }
  let whole = 0;
  let fraction = 0;
  for (let k = 0; k < length; k++) {
    const d = k < significant ? digitAt(source, intStart, intLength, fractionStart, lead + k) : 0;
    if (k < length - 6) whole = whole * 10 + d;
    else fraction = fraction * 10 + d;
  }
  entries.verdict[i] = OK;
  entries.whole[i] = whole;
  entries.fraction[i] = fraction;
  // The leading digit is not zero: the shards take exactly `length` digits.
  entries.digits[i] = length;
}

/**
 * Where the ASCII `text` occurs in the line [start, end) of `source`, if it does: the reference's
 * decoded address or number is usually there verbatim (a negative, a space), and pointing at it
 * spares copying the whole export to append side bytes.
 */
function inLine(source: Buffer, start: number, end: number, text: string): number | undefined {
  const at = source.subarray(start, end).indexOf(text, 0, "latin1");
  return at < 0 ? undefined : start + at;
}

/** Any other line, through the reference scanner and parseMic. */
function scanOther(
  source: Buffer,
  start: number,
  end: number,
  lineIndex: number,
  entries: Entries,
  side: SideBytes,
  mismatches: Mismatch[],
): void {
  const input = source.toString("utf8", start, end);
  const scanned = scanV1Line(input);
  if (!scanned.ok)
    return void mismatches.push({ line: lineIndex + 1, address: scanned.address, input, reason: scanned.problem });
  if (!isAddress(scanned.address))
    return void mismatches.push({ line: lineIndex + 1, address: scanned.address, input, reason: "invalid-address" });
  const addressAt = inLine(source, start, end, scanned.address) ?? source.length + side.add(scanned.address);
  // The value's text is kept only when it converts (a JSON number is ASCII).
  const read = scanned.valueIsString
    ? ({ ok: false, error: "not-a-number" } as const)
    : parseMic(scanned.value, MAX_BALANCE_SHARDS);
  const valueAt = read.ok ? (inLine(source, start, end, scanned.value) ?? source.length + side.add(scanned.value)) : 0;
  const i = entries.add(
    lineIndex,
    start,
    addressAt,
    scanned.address.length,
    valueAt,
    read.ok ? scanned.value.length : 0,
  );
  if (!read.ok) return void (entries.verdict[i] = verdictOf(read.error));
  entries.verdict[i] = OK;
  entries.whole[i] = Number(read.shards / 1_000_000n);
  entries.fraction[i] = Number(read.shards % 1_000_000n);
  entries.digits[i] = shardDigits(entries.whole[i]!, entries.fraction[i]!);
}

function digitsOf(n: number): number {
  let digits = 1;
  while (n >= 10) {
    n = Math.floor(n / 10);
    digits++;
  }
  return digits;
}

/** Decimal digits of the shards `whole` · 10^6 + `fraction`. */
function shardDigits(whole: number, fraction: number): number {
  return whole > 0 ? digitsOf(whole) + 6 : digitsOf(fraction);
}

/** Writes the shards' `digits` decimal digits at `at`; returns the end. */
function writeShards(out: Buffer, at: number, whole: number, fraction: number, digits: number): number {
  let end = at + digits;
  const stop = end;
  let rest = fraction;
  const fractionDigits = whole > 0 ? 6 : end - at;
  for (let k = 0; k < fractionDigits; k++) {
    out[--end] = ZERO + (rest % 10);
    rest = Math.floor(rest / 10);
  }
  rest = whole;
  while (end > at) {
    out[--end] = ZERO + (rest % 10);
    rest = Math.floor(rest / 10);
  }
  return stop;
}

/**
 * Whether the shard digits `shards[s0, s1)` × 10^-6 and the JSON number text `text[t0, t1)` are the
 * same decimal: each reduced to its significant digits (no leading or trailing zeros) and the power
 * of ten of its last one, then compared digit by digit. Zero equals zero whatever its form.
 */
export function sameDecimal(shards: Buffer, s0: number, s1: number, text: Buffer, t0: number, t1: number): boolean {
  // The shards: digits, trailing zeros off.
  let shardsEnd = s1;
  while (shardsEnd > s0 && shards[shardsEnd - 1] === ZERO) shardsEnd--;
  const shardsZero = shardsEnd === s0;
  const shardsPower = s1 - shardsEnd - 6;
  // The text: [-] int [. fraction] [e exponent].
  let p = t0;
  const negative = text[p] === MINUS;
  if (negative) p++;
  const intStart = p;
  while (p < t1 && isDigit(text[p]!)) p++;
  const intEnd = p;
  let fractionStart = p;
  let fractionEnd = p;
  if (text[p] === DOT) {
    fractionStart = ++p;
    while (p < t1 && isDigit(text[p]!)) p++;
    fractionEnd = p;
  }
  let exponent = 0;
  if (p < t1) {
    p++; // e or E
    let sign = 1;
    if (text[p] === MINUS || text[p] === 0x2b) sign = text[p++] === MINUS ? -1 : 1;
    while (p < t1) exponent = Math.min(exponent * 10 + text[p++]! - ZERO, 1e9);
    exponent *= sign;
  }
  const intLength = intEnd - intStart;
  const count = intLength + fractionEnd - fractionStart;
  let first = 0;
  while (first < count && digitAt(text, intStart, intLength, fractionStart, first) === 0) first++;
  let last = count;
  while (last > first && digitAt(text, intStart, intLength, fractionStart, last - 1) === 0) last--;
  if (first === last) return shardsZero;
  if (shardsZero || negative) return false;
  const textPower = exponent - (fractionEnd - fractionStart) + (count - last);
  if (textPower !== shardsPower || last - first !== shardsEnd - s0) return false;
  for (let k = 0; k < last - first; k++)
    if (digitAt(text, intStart, intLength, fractionStart, first + k) !== shards[s0 + k]! - ZERO) return false;
  return true;
}
