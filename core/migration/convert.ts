/**
 * The v1 → v2 conversion of a v1 export (JSON lines `{"address", "balance_gic"}`): every line is
 * either converted exactly — shards = balance_gic × 1,000,000, read from the number's text by
 * core/money/units.ts parseMic — or reported as a mismatch with its address, its text and a
 * reason. Nothing is rounded, clamped or dropped.
 *
 * Reasons:
 *   malformed-line     not a `{"address", "balance_gic"}` object (unknown, missing or repeated
 *                      member, nested value, bad JSON); the address is given when it could be read
 *   invalid-address    the address is not in the address format (core/money/address.ts)
 *   duplicate-address  the address is on more than one line: every one of its lines is reported,
 *                      since nothing says which is right (the review settles it with a correction)
 *   not-a-number       balance_gic is not a JSON number (a string, null, NaN, Infinity, …)
 *   negative           below zero
 *   too-precise        more than six decimals that are not zeros (finer than one shard)
 *   too-large          above MAX_BALANCE_SHARDS (2^63 − 1 shards)
 *
 * `verifyConversion` then checks by another route — the shards written out as decimal text, or an
 * exact decimal (core/migration/decimal.ts) — that each converted balance's shards / 1,000,000
 * equals its former balance, and that the v1 and v2 totals agree.
 */
import { addressOrder, compareAddresses, isAddress } from "../money/address.ts";
import { MAX_BALANCE_SHARDS, parseMic, type MicParseError } from "../money/units.ts";
import { decimalOf, decimalOfShards, equalsShards, formatDecimal } from "./decimal.ts";
import { scanV1Line } from "./v1-export.ts";

export type MismatchReason = "malformed-line" | "invalid-address" | "duplicate-address" | MicParseError;
export const MISMATCH_REASONS: readonly MismatchReason[] = [
  "malformed-line",
  "invalid-address",
  "duplicate-address",
  "not-a-number",
  "negative",
  "too-precise",
  "too-large",
];

export interface ConvertedBalance {
  address: string;
  shards: bigint;
  /** balance_gic exactly as the v1 export wrote it. */
  v1Text: string;
  /** 1-based line of the export. */
  line: number;
}

export interface Mismatch {
  line: number;
  /** The address as read from the line, or null when none could be read. */
  address: string | null;
  /** The whole line as it was read. */
  input: string;
  reason: MismatchReason;
}

export interface Conversion {
  /** Sorted by address (core/money/address.ts order); each address once. */
  balances: ConvertedBalance[];
  /** In line order. */
  mismatches: Mismatch[];
  /** Lines read (a final newline ends the last line; it does not start another). */
  lines: number;
  /** Sum of the converted balances in shards. */
  totalShards: bigint;
}

/** Splits export text into lines: "\n" separated, a final newline optional. */
export function exportLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

export function convertV1Export(lines: readonly string[]): Conversion {
  const mismatches: Mismatch[] = [];
  // The lines with a valid address; sorted by address, the lines of one address come together.
  const addresses: string[] = [];
  const lineOf: number[] = [];
  const values: string[] = [];
  const isString: boolean[] = [];
  for (let i = 0; i < lines.length; i++) {
    const input = lines[i]!;
    const scanned = scanV1Line(input);
    if (!scanned.ok) {
      mismatches.push({ line: i + 1, address: scanned.address, input, reason: scanned.problem });
      continue;
    }
    if (!isAddress(scanned.address)) {
      mismatches.push({ line: i + 1, address: scanned.address, input, reason: "invalid-address" });
      continue;
    }
    addresses.push(scanned.address);
    lineOf.push(i);
    values.push(scanned.value);
    isString.push(scanned.valueIsString);
  }
  const order = addressOrder(addresses);

  const balances: ConvertedBalance[] = [];
  let totalShards = 0n;
  for (let k = 0; k < order.length;) {
    const first = order[k]!;
    const address = addresses[first]!;
    let end = k + 1;
    while (end < order.length && addresses[order[end]!] === address) end++;
    if (end - k > 1) {
      // Every line of a repeated address is reported: nothing says which one is right.
      for (let j = k; j < end; j++) {
        const i = lineOf[order[j]!]!;
        mismatches.push({ line: i + 1, address, input: lines[i]!, reason: "duplicate-address" });
      }
    } else {
      const i = lineOf[first]!;
      const read = isString[first]
        ? ({ ok: false, error: "not-a-number" } as const)
        : parseMic(values[first]!, MAX_BALANCE_SHARDS);
      if (read.ok) {
        balances.push({ address, shards: read.shards, v1Text: values[first]!, line: i + 1 });
        totalShards += read.shards;
      } else mismatches.push({ line: i + 1, address, input: lines[i]!, reason: read.error });
    }
    k = end;
  }
  mismatches.sort((a, b) => a.line - b.line);
  return { balances, mismatches, lines: lines.length, totalShards };
}

export interface ConversionCheck {
  ok: boolean;
  /** Exact decimal sum of the converted lines' former balances. */
  v1Total: string;
  /** The same total from the shards: totalShards / 1,000,000 as a decimal. */
  v2Total: string;
  /** Addresses whose shards / 1,000,000 differ from their former balance (empty when ok). */
  differing: string[];
  /** Every line is accounted for exactly once: converted + reported = lines read. */
  accounted: boolean;
  sorted: boolean;
}

/** The spec's verification, computed apart from the conversion. */
export function verifyConversion(c: Conversion): ConversionCheck {
  const differing: string[] = [];
  let sum = 0n;
  let sorted = true;
  // Each line converted or reported exactly once.
  const seen = new Uint8Array(c.lines + 1);
  let accounted = c.balances.length + c.mismatches.length === c.lines;
  for (let i = 0; i < c.balances.length; i++) {
    const b = c.balances[i]!;
    if (!sameAmount(b.v1Text, b.shards)) differing.push(b.address);
    sum += b.shards;
    if (i > 0 && compareAddresses(c.balances[i - 1]!.address, b.address) >= 0) sorted = false;
    if (b.line < 1 || b.line > c.lines || seen[b.line] === 1) accounted = false;
    else seen[b.line] = 1;
  }
  for (const m of c.mismatches) {
    if (m.line < 1 || m.line > c.lines || seen[m.line] === 1) accounted = false;
    else seen[m.line] = 1;
  }
  // Every former value equals its shards × 10^-6 (checked above), so the v1 total is their sum.
  const v1Total = formatDecimal(decimalOfShards(sum));
  const v2Total = formatDecimal(decimalOfShards(c.totalShards));
  return {
    ok: differing.length === 0 && v1Total === v2Total && accounted && sorted,
    v1Total,
    v2Total,
    differing,
    accounted,
    sorted,
  };
}

const PLAIN = /^(0|[1-9][0-9]*)(?:\.([0-9]{1,6}))?$/;

/**
 * Whether the v1 text is exactly shards × 10^-6. A plain number is compared as text with the shards
 * written out (1005000 → "1" and "005000" against `1.005`); any other form as an exact decimal
 * (decimal.ts).
 */
function sameAmount(text: string, shards: bigint): boolean {
  const plain = PLAIN.exec(text);
  if (plain) {
    if (shards < 0n) return false;
    const digits = shards.toString().padStart(7, "0");
    return digits.slice(0, -6) === plain[1] && digits.slice(-6) === (plain[2] ?? "").padEnd(6, "0");
  }
  const d = decimalOf(text);
  return d !== null && equalsShards(d, shards);
}

export function mismatchCounts(mismatches: readonly Mismatch[]): Record<MismatchReason, number> {
  const counts = Object.fromEntries(MISMATCH_REASONS.map((r) => [r, 0])) as Record<MismatchReason, number>;
  for (const m of mismatches) counts[m.reason] += 1;
  return counts;
}
