/**
 * Exact decimals for the migration's verification: a JSON number's text as coefficient × 10^exponent
 * (bigint, integer), with no limit on decimals and no rounding. The conversion (core/money/units.ts
 * parseMic) and the verification read a number's text by different routes, and the verification
 * compares shards × 10^-6 with the former balance exactly, so a conversion that lost or invented a
 * unit cannot pass.
 */

export interface Decimal {
  coefficient: bigint;
  exponent: number;
}

const NUMBER = /^(-?)(0|[1-9][0-9]*)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/;

/** The exact value of a JSON number's text, as written (`"12.50"` → 1250 × 10^-2); null if not a JSON number. */
export function decimalOf(text: string): Decimal | null {
  const m = NUMBER.exec(text);
  if (!m) return null;
  const exponent = Number(m[4] ?? "0") - (m[3]?.length ?? 0);
  if (!Number.isSafeInteger(exponent) || Math.abs(exponent) > 10_000) return null;
  const digits = BigInt(`${m[2]}${m[3] ?? ""}`);
  return { coefficient: m[1] === "-" ? -digits : digits, exponent };
}

const POWERS: bigint[] = [1n];
/** 10^k as a bigint, cached for the small k that amounts need. */
function pow10(k: number): bigint {
  if (k < 64) {
    while (POWERS.length <= k) POWERS.push(POWERS[POWERS.length - 1]! * 10n);
    return POWERS[k]!;
  }
  return 10n ** BigInt(k);
}

/** Whether `d` is exactly shards × 10^-6. */
export function equalsShards(d: Decimal, shards: bigint): boolean {
  return d.exponent <= -6
    ? shards * pow10(-6 - d.exponent) === d.coefficient
    : d.coefficient * pow10(d.exponent + 6) === shards;
}

/** Shards as the decimal they stand for: shards × 10^-6 MIC, without trailing zeros. */
export function decimalOfShards(shards: bigint): Decimal {
  let coefficient = shards;
  let exponent = -6;
  while (coefficient !== 0n && exponent < 0 && coefficient % 10n === 0n) {
    coefficient /= 10n;
    exponent += 1;
  }
  return { coefficient, exponent: coefficient === 0n ? 0 : exponent };
}

/** Plain decimal text without an exponent: `{1005, -3}` → `"1.005"`, `{1, 2}` → `"100"`. */
export function formatDecimal(d: Decimal): string {
  const { coefficient, exponent } = d;
  const negative = coefficient < 0n;
  const digits = (negative ? -coefficient : coefficient).toString();
  let text: string;
  if (exponent >= 0) text = digits + "0".repeat(exponent);
  else {
    const padded = digits.padStart(-exponent + 1, "0");
    text = `${padded.slice(0, exponent)}.${padded.slice(exponent)}`.replace(/\.?0+$/, "");
  }
  return negative ? `-${text}` : text;
}
