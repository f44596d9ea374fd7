/**
 * Stage 4 of the snapshot of a v1 export from its bytes (core/migration/export-bytes.ts): the leaf
 * writer. Each converted line's leaf is written at its place in the output and checked there by
 * another route than the conversion (`sameDecimal`: shards / 10^6 = the v1 value as exact decimals).
 */
import { ascii, ZERO, MINUS, DOT, isDigit, digitAt } from "./export-scan.ts";

const LEAF_OPEN = ascii('{"address":"');
const LEAF_SHARDS = ascii('","balance_shards":"');
const LEAF_V1 = ascii('","v1_balance_gic":"');
const LEAF_CLOSE = ascii('"}');

/** Bytes of a leaf besides its address, shard digits and v1 text, with its newline. */
const LEAF_FIXED = LEAF_OPEN.length + LEAF_SHARDS.length + LEAF_V1.length + LEAF_CLOSE.length + 1;

/** Copies bytes [from, to) of `source` to `out` at `at` (a loop: these runs are short); returns the end. */
function copyBytes(out: Uint8Array, at: number, source: Uint8Array, from: number, to: number): number {
  for (let k = from; k < to; k++) out[at++] = source[k]!;
  return at;
}

/** The length of a converted line's leaf. */
export function leafLength(addressLength: number, digits: number, valueLength: number): number {
  return LEAF_FIXED - 1 + addressLength + digits + valueLength;
}

/**
 * Writes the leaf of a converted line at `at` in `out` (address and v1 text read from `bytes`) and
 * checks it there: the spec's verification (shards / 10^6 = the v1 value), on the bytes just
 * written. Returns false when the shards are not the v1 value.
 */
export function writeLeaf(
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
