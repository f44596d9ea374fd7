/**
 * Exact decimals for the migration's verification: a JSON number's text as coefficient × 10^exponent
 * (bigint, integer), with no limit on decimals and no rounding. The conversion (core/balance/units.ts
 * parseMic) and this check read the same text by two different routes; the verification compares
 * shards × 10^-6 with the former balance as decimals, so a conversion that lost or invented a unit
 * cannot pass.
 */

export interface Decimal {
  coefficient: bigint;
  exponent: number;
}

const NUMBER = /^(-?)(0|[1-9][0-9]*)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/;

/** The exact value of a JSON number's text, normalized (no trailing zeros in the coefficient); null if not a JSON number. */
export function decimalOf(text: string): Decimal | null {
  const m = NUMBER.exec(text);
  if (!m) return null;
  const exponent = Number(m[4] ?? "0") - (m[3]?.length ?? 0);
  if (!Number.isSafeInteger(exponent)) return null;
  const digits = BigInt(`${m[2]}${m[3] ?? ""}`);
  return normalize({ coefficient: m[1] === "-" ? -digits : digits, exponent });
}

export function normalize(d: Decimal): Decimal {
  if (d.coefficient === 0n) return { coefficient: 0n, exponent: 0 };
  let { coefficient, exponent } = d;
  while (coefficient % 10n === 0n) {
    coefficient /= 10n;
    exponent += 1;
  }
  return { coefficient, exponent };
}

/** Shards as the decimal they stand for: shards × 10^-6 MIC. */
export function decimalOfShards(shards: bigint): Decimal {
  return normalize({ coefficient: shards, exponent: -6 });
}

export function equalDecimals(a: Decimal, b: Decimal): boolean {
  const x = normalize(a);
  const y = normalize(b);
  return x.coefficient === y.coefficient && x.exponent === y.exponent;
}

/** a + b, at the finer of the two exponents (not normalized, so a long sum stays cheap). */
export function addDecimals(a: Decimal, b: Decimal): Decimal {
  const e = Math.min(a.exponent, b.exponent);
  const scale = (d: Decimal) => (d.exponent === e ? d.coefficient : d.coefficient * 10n ** BigInt(d.exponent - e));
  return { coefficient: scale(a) + scale(b), exponent: e };
}

/** Plain decimal text without an exponent: `{1005, -3}` → `"1.005"`, `{1, 2}` → `"100"`. */
export function formatDecimal(d: Decimal): string {
  const { coefficient, exponent } = normalize(d);
  const negative = coefficient < 0n;
  const digits = (negative ? -coefficient : coefficient).toString();
  let text: string;
  if (exponent >= 0) text = digits + "0".repeat(exponent);
  else {
    const padded = digits.padStart(-exponent + 1, "0");
    text = `${padded.slice(0, exponent)}.${padded.slice(exponent)}`;
  }
  return negative ? `-${text}` : text;
}
