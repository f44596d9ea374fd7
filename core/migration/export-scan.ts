/**
 * Stage 1 of the snapshot of a v1 export from its bytes (core/migration/export-bytes.ts): one
 * hand-written scanner over the bytes that reads the v1 system's own line form into columns
 * (`Entries`: no object per line), each value's digits turned into shards by position and given its
 * verdict; a line in any other form goes through the reference (scanV1Line, isAddress, parseMic).
 * Also the byte-level pieces the leaf writer shares (the digits, the separators).
 */
import { isAddress } from "../money/address.ts";
import { MAX_BALANCE_SHARDS, parseMic, type MicParseError } from "../money/units.ts";
import type { Mismatch } from "./convert.ts";
import { scanV1Line } from "./v1-export.ts";

export const ascii = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));
const OPEN = ascii('{"address":"');
const MIDDLE = ascii('","balance_gic":');
const MAX_DIGITS = ascii(MAX_BALANCE_SHARDS.toString());
export const NL = 0x0a;
const QUOTE = 0x22;
export const ZERO = 0x30;
export const MINUS = 0x2d;
export const DOT = 0x2e;
const CLOSE_BRACE = 0x7d;

/** 1 for an address byte ([A-Za-z0-9._:-]), 2 for one that may also start an address. */
const ADDRESS_BYTE = (() => {
  const table = new Uint8Array(256);
  for (const c of "._:-") table[c.charCodeAt(0)] = 1;
  for (const c of "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") table[c.charCodeAt(0)] = 2;
  return table;
})();

export function isDigit(b: number): boolean {
  return b >= ZERO && b <= ZERO + 9;
}

/** Digit `v` of a number's digits, the int part [intStart, intStart + intLength) then the fraction from fractionStart. */
export function digitAt(
  bytes: Uint8Array,
  intStart: number,
  intLength: number,
  fractionStart: number,
  v: number,
): number {
  return (v < intLength ? bytes[intStart + v]! : bytes[fractionStart + v - intLength]!) - ZERO;
}

/** A value's verdict: 0 converted, else the reason it is not. */
export const VERDICTS: readonly (MicParseError | null)[] = [
  null,
  "not-a-number",
  "negative",
  "too-precise",
  "too-large",
];

export const OK = 0;
const TOO_PRECISE = VERDICTS.indexOf("too-precise");
const TOO_LARGE = VERDICTS.indexOf("too-large");

function verdictOf(error: MicParseError): number {
  return VERDICTS.indexOf(error);
}

/** The lines that carry a valid address, in line order, as columns (no object per line). */
export class Entries {
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
export class SideBytes {
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

/** 1. scan: every line; entries for lines with a valid address, mismatches for the others. Returns the line count. */
export function scanLines(source: Buffer, entries: Entries, side: SideBytes, mismatches: Mismatch[]): number {
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
