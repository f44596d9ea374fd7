/**
 * The v1 → v2 conversion of a v1 export (JSON lines `{"address", "balance_gic"}`): every line is
 * either converted exactly — shards = balance_gic × 1,000,000, read from the number's text by
 * core/balance/units.ts parseMic — or reported as a mismatch with its address, its text and a
 * reason. Nothing is rounded, clamped or dropped.
 *
 * Reasons:
 *   malformed-line     not a `{"address", "balance_gic"}` object (unknown, missing or repeated
 *                      member, nested value, bad JSON); the address is given when it could be read
 *   invalid-address    the address is not in the address format (core/balance/address.ts)
 *   duplicate-address  the address is on more than one line: every one of its lines is reported,
 *                      since nothing says which is right (the review settles it with a correction)
 *   not-a-number       balance_gic is not a JSON number (a string, null, NaN, Infinity, …)
 *   negative           below zero
 *   too-precise        more than six decimals that are not zeros (finer than one shard)
 *   too-large          above MAX_BALANCE_SHARDS (2^63 − 1 shards)
 *
 * `verifyConversion` then checks, by an independent route (core/migration/decimal.ts), that each
 * converted balance's shards / 1,000,000 equals its former balance as an exact decimal and that the
 * v1 and v2 totals agree.
 */
import { compareAddresses, isAddress } from "../balance/address.ts";
import { MAX_BALANCE_SHARDS, parseMic, type MicParseError } from "../balance/units.ts";
import { addDecimals, decimalOf, decimalOfShards, equalDecimals, formatDecimal, type Decimal } from "./decimal.ts";
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
  /** Sorted by address (core/balance/address.ts order); each address once. */
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
  // First sighting of each address, and the addresses seen more than once.
  const byAddress = new Map<string, ConvertedBalance | Mismatch>();
  const repeated = new Set<string>();

  for (let i = 0; i < lines.length; i++) {
    const input = lines[i]!;
    const line = i + 1;
    const scanned = scanV1Line(input);
    if (!scanned.ok) {
      mismatches.push({ line, address: scanned.address, input, reason: scanned.problem });
      continue;
    }
    const { address } = scanned;
    if (!isAddress(address)) {
      mismatches.push({ line, address, input, reason: "invalid-address" });
      continue;
    }
    if (byAddress.has(address)) {
      repeated.add(address);
      mismatches.push({ line, address, input, reason: "duplicate-address" });
      continue;
    }
    const read = scanned.valueIsString ? ({ ok: false, error: "not-a-number" } as const) : parseMic(scanned.value, MAX_BALANCE_SHARDS);
    byAddress.set(address, read.ok ? { address, shards: read.shards, v1Text: scanned.value, line } : { line, address, input, reason: read.error });
  }

  const balances: ConvertedBalance[] = [];
  let totalShards = 0n;
  for (const [address, first] of byAddress) {
    if (repeated.has(address)) {
      // The first line of a duplicated address is reported too, whatever it held.
      mismatches.push({ line: first.line, address, input: lines[first.line - 1]!, reason: "duplicate-address" });
    } else if ("reason" in first) {
      mismatches.push(first);
    } else {
      balances.push(first);
      totalShards += first.shards;
    }
  }
  balances.sort((a, b) => compareAddresses(a.address, b.address));
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
  // The v1 total as coefficient × 10^exponent, rescaled when a finer value arrives.
  let v1: Decimal = { coefficient: 0n, exponent: 0 };
  let sorted = true;
  for (let i = 0; i < c.balances.length; i++) {
    const b = c.balances[i]!;
    const former = decimalOf(b.v1Text);
    if (former === null || !equalDecimals(decimalOfShards(b.shards), former)) differing.push(b.address);
    else v1 = addDecimals(v1, former);
    if (i > 0 && compareAddresses(c.balances[i - 1]!.address, b.address) >= 0) sorted = false;
  }
  const lines = new Set<number>();
  for (const b of c.balances) lines.add(b.line);
  for (const m of c.mismatches) lines.add(m.line);
  const accounted = lines.size === c.lines && c.balances.length + c.mismatches.length === c.lines;
  const v1Total = formatDecimal(v1);
  const v2Total = formatDecimal(decimalOfShards(c.totalShards));
  return { ok: differing.length === 0 && v1Total === v2Total && accounted && sorted, v1Total, v2Total, differing, accounted, sorted };
}

export function mismatchCounts(mismatches: readonly Mismatch[]): Record<MismatchReason, number> {
  const counts = Object.fromEntries(MISMATCH_REASONS.map((r) => [r, 0])) as Record<MismatchReason, number>;
  for (const m of mismatches) counts[m.reason] += 1;
  return counts;
}
