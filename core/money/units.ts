/**
 * MIC and shards: 1 MIC = 1,000,000 shards, shards are integers (`bigint`). Amounts cross the edges
 * as decimal strings and are converted from their text, never through a float.
 */

export const SHARDS_PER_MIC = 1_000_000n;
/** Decimal places of one shard in MIC. */
export const MIC_DECIMALS = 6;
/**
 * The largest balance accepted: 2^63 − 1 shards (9,223,372,036,854.775807 MIC), the largest value
 * a signed 64-bit integer column (SQLite INTEGER, PostgreSQL bigint) holds, so any v2 backend can
 * store every accepted balance natively. Amounts above it are refused, never clamped.
 */
export const MAX_BALANCE_SHARDS = 2n ** 63n - 1n;

export type MicParseError = "not-a-number" | "negative" | "too-precise" | "too-large";

/** The result of reading a MIC amount from text: shards, or why the text is not an exact amount. */
export type MicParse = { ok: true; shards: bigint } | { ok: false; error: MicParseError };

/** JSON number grammar (RFC 8259 §6), with the sign kept apart. */
const NUMBER = /^(-?)(0|[1-9][0-9]*)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/;
/** A plain amount: up to 19 digits before the point and at most six after it. */
const PLAIN = /^(0|[1-9][0-9]{0,18})(?:\.([0-9]{1,6}))?$/;

/**
 * Reads a MIC amount written as a JSON number's text (`12`, `1.005`, `1E2`, `1e-6`) exactly: the
 * digits are shifted by the exponent as text, so `1.005` is 1,005,000 shards and nothing rounds.
 * Refused, never rounded: anything that is not a JSON number, a negative amount, more than six
 * decimals that are not zeros, and amounts above `maxShards` (when given).
 */
export function parseMic(text: string, maxShards?: bigint): MicParse {
  // The common form (digits, at most six decimals, no sign or exponent) in one step.
  const plain = PLAIN.exec(text);
  if (plain) {
    const shards = BigInt(plain[1]! + (plain[2] ?? "").padEnd(MIC_DECIMALS, "0"));
    return maxShards !== undefined && shards > maxShards ? { ok: false, error: "too-large" } : { ok: true, shards };
  }
  const m = NUMBER.exec(text);
  if (!m) return { ok: false, error: "not-a-number" };
  const [, sign, whole, fraction = "", exponentText = "0"] = m as unknown as [string, string, string, string?, string?];
  // An exponent beyond this cannot describe an amount we could accept; refusing it early keeps the
  // digit shifting below bounded for hostile input such as 1e999999999.
  const exponent = Number(exponentText);
  if (!Number.isSafeInteger(exponent) || Math.abs(exponent) > 4096) {
    if (/^0*$/.test(whole + fraction)) return { ok: true, shards: 0n }; // zero, whatever the exponent
    return { ok: false, error: sign === "-" ? "negative" : exponent > 0 ? "too-large" : "too-precise" };
  }
  // value = digits × 10^(point − fraction length), in units of 10^-6 MIC (shards).
  let digits = (whole + fraction).replace(/^0+(?=\d)/, "");
  let scale = exponent - fraction.length + MIC_DECIMALS;
  if (scale < 0) {
    const dropped = digits.slice(Math.max(0, digits.length + scale));
    if (!/^0*$/.test(dropped)) return { ok: false, error: "too-precise" };
    digits = digits.slice(0, Math.max(0, digits.length + scale)) || "0";
    scale = 0;
  }
  const shards = BigInt(digits) * 10n ** BigInt(scale);
  if (sign === "-" && shards !== 0n) return { ok: false, error: "negative" };
  if (maxShards !== undefined && shards > maxShards) return { ok: false, error: "too-large" };
  return { ok: true, shards };
}

/** Shards as MIC with six decimals, without floating point: `1005000n` → `"1.005000"`. */
export function formatMicDecimal(shards: bigint): string {
  const negative = shards < 0n;
  const abs = negative ? -shards : shards;
  const fraction = (abs % SHARDS_PER_MIC).toString().padStart(MIC_DECIMALS, "0");
  return `${negative ? "-" : ""}${abs / SHARDS_PER_MIC}.${fraction}`;
}

/**
 * Shards as the shortest exact decimal text of MIC, a valid JSON number: `1005000n` → `"1.005"`,
 * `100000000n` → `"100"`, `1n` → `"0.000001"`. Written into JSON as it is, it carries the exact
 * value to any reader that keeps the number's text (a float reader still gets the nearest double).
 */
export function micNumberText(shards: bigint): string {
  return formatMicDecimal(shards).replace(/\.?0+$/, "");
}

/** Shards as a display number of MIC (exact while shards ≤ 2^53; use the decimal form beyond). */
export function shardsToMicNumber(shards: bigint): number {
  return Number(formatMicDecimal(shards));
}
