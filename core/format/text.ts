/**
 * How numbers, amounts, shares, instants and durations read to a person: one module for every
 * portal page and the transparency PDF, so the same value is written the same way everywhere.
 *
 * - counts and plain numbers: `Intl.NumberFormat("en-US")` with grouping ("3,558,171");
 * - MIC: from integer shards (`core/money/units.ts`), rounded half up to a fixed number of
 *   decimals without floating point, grouped ("3,558,171.52 MIC");
 * - shares as percentages with one decimal by default, rounded half up on the exact binary value
 *   (the pulse badge's rule, so a page and its badge never differ by a rounding);
 * - instants as "23 Nov 2026, 14:05 UTC", days as "23 Nov 2026" (UTC, English month names, built
 *   by hand so the text never depends on the machine's ICU data);
 * - durations as "3 days" / "5 hours" / "12 minutes" with `Intl.PluralRules`.
 *
 * Pure: no clock (an age is measured between two instants the caller gives).
 */
import { formatMicDecimal, MIC_DECIMALS, parseMic } from "../money/units.ts";
import { MINUTE_MS, HOUR_MS, DAY_MS } from "../time.ts";

const LOCALE = "en-US";
const plurals = new Intl.PluralRules(LOCALE);
const integers = new Intl.NumberFormat(LOCALE, { maximumFractionDigits: 0 });
const fixedFormats = new Map<number, Intl.NumberFormat>();

function fixedFormat(digits: number): Intl.NumberFormat {
  let format = fixedFormats.get(digits);
  if (!format) {
    format = new Intl.NumberFormat(LOCALE, { minimumFractionDigits: digits, maximumFractionDigits: digits });
    fixedFormats.set(digits, format);
  }
  return format;
}

/** A whole count with grouping: 12345 → "12,345"; 12345n → "12,345". */
export function count(n: number | bigint): string {
  if (typeof n === "number" && !Number.isFinite(n)) throw new RangeError(`not a finite count: ${n}`);
  return integers.format(n);
}

/** A number with exactly `digits` decimals and grouping: (1234.5, 2) → "1,234.50". */
export function decimal(n: number, digits = 2): string {
  if (!Number.isFinite(n)) throw new RangeError(`not a finite number: ${n}`);
  return fixedFormat(digits).format(n);
}

/** "a government key", "an academic key": the indefinite article by the word's first letter (the words this platform uses). */
export function withArticle(phrase: string): string {
  return `${/^[aeiou]/i.test(phrase) ? "an" : "a"} ${phrase}`;
}

/** "1 pulse", "2 pulses", "12,345 entries" (`Intl.PluralRules` picks the form). */
export function plural(n: number | bigint, one: string, other = `${one}s`): string {
  const rule = plurals.select(typeof n === "bigint" ? Number(n) : n);
  return `${count(n)} ${rule === "one" ? one : other}`;
}

/** Groups the integer digits of a plain decimal text: "3558171.52" → "3,558,171.52". */
function groupDecimalText(text: string): string {
  const negative = text.startsWith("-");
  const [whole, fraction] = (negative ? text.slice(1) : text).split(".") as [string, string?];
  return `${negative ? "-" : ""}${count(BigInt(whole))}${fraction === undefined ? "" : `.${fraction}`}`;
}

/**
 * Shards as MIC with `decimals` decimals (0–6), rounded half up (away from zero) in integers, and
 * grouped: (3558171516452n, 2) → "3,558,171.52". The unit is not appended.
 */
export function micAmount(shards: bigint, decimals = 2): string {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > MIC_DECIMALS)
    throw new RangeError(`decimals must be 0..${MIC_DECIMALS}`);
  const step = 10n ** BigInt(MIC_DECIMALS - decimals);
  const negative = shards < 0n;
  const abs = negative ? -shards : shards;
  const rounded = ((abs + step / 2n) / step) * step;
  const text = formatMicDecimal(negative ? -rounded : rounded);
  const cut =
    decimals === 0 ? text.slice(0, text.indexOf(".")) : text.slice(0, text.length - (MIC_DECIMALS - decimals));
  return groupDecimalText(cut);
}

/** `micAmount` followed by " MIC". */
export function mic(shards: bigint, decimals = 2): string {
  return `${micAmount(shards, decimals)} MIC`;
}

/**
 * Shards of a MIC amount that a published document carries as a JSON number (at most six
 * decimals): read from its six-decimal text, so no float reaches the formatted amount.
 */
export function shardsOfMicNumber(value: number): bigint {
  if (!Number.isFinite(value)) throw new RangeError(`not a MIC amount: ${value}`);
  const parsed = parseMic(Math.abs(value).toFixed(MIC_DECIMALS));
  if (!parsed.ok) throw new RangeError(`not a MIC amount: ${value} (${parsed.error})`);
  return value < 0 ? -parsed.shards : parsed.shards;
}

/** A MIC amount given as a JSON number: (3558171.516452, 2) → "3,558,171.52 MIC". */
export function micOfNumber(value: number, decimals = 2): string {
  return mic(shardsOfMicNumber(value), decimals);
}

/**
 * A share in [0, 1] (or beyond) as a percentage with `digits` decimals, rounded half up on the
 * exact binary value: 0.8436 → "84.4%", 1 → "100.0%", (0.5, 0) → "50%".
 */
export function percent(share: number, digits = 1): string {
  if (!Number.isFinite(share)) throw new RangeError(`not a finite share: ${share}`);
  if (!Number.isInteger(digits) || digits < 0 || digits > 6) throw new RangeError("digits must be 0..6");
  const negative = share < 0;
  // toFixed rounds the exact double (not share × 100, which adds its own error).
  const [whole, fraction = ""] = Math.abs(share)
    .toFixed(digits + 2)
    .split(".") as [string, string?];
  const units = BigInt(whole + fraction); // the share in units of 10^-(digits+2)
  const text = units.toString().padStart(digits + 1, "0");
  const intPart = text.slice(0, text.length - digits);
  const shown = digits === 0 ? count(BigInt(intPart)) : `${count(BigInt(intPart))}.${text.slice(text.length - digits)}`;
  return `${negative && units !== 0n ? "-" : ""}${shown}%`;
}

// ------------------------------------------------------------------------------------------------
// Instants

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"] as const;
const two = (n: number) => String(n).padStart(2, "0");

function parseInstant(iso: string): Date {
  const date = new Date(iso);
  if (!/^\d{4}-\d{2}-\d{2}(T|$)/.test(iso) || Number.isNaN(date.getTime()))
    throw new RangeError(`not an ISO 8601 instant: ${JSON.stringify(iso)}`);
  return date;
}

/** "2026-11-23T14:05:09.123Z" → "23 Nov 2026, 14:05 UTC" (minutes; seconds and milliseconds dropped). */
export function dateTime(iso: string | Date): string {
  const d = typeof iso === "string" ? parseInstant(iso) : iso;
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}, ${two(d.getUTCHours())}:${two(d.getUTCMinutes())} UTC`;
}

/** An instant to the second, for boundaries that fall inside a minute: "30 Nov 2025, 23:59:59 UTC". */
export function dateTimeSeconds(iso: string | Date): string {
  const d = typeof iso === "string" ? parseInstant(iso) : iso;
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}, ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} UTC`;
}

/** "2026-11-23T14:05:09.123Z" → "14:05:09 UTC" (a clock: the time of day to the second). */
export function clockTime(iso: string | Date): string {
  const d = typeof iso === "string" ? parseInstant(iso) : iso;
  return `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} UTC`;
}

/** An instant without its year, for axis labels: "21 Nov, 01:08" (UTC). */
export function dayAndTime(iso: string | Date): string {
  const d = typeof iso === "string" ? parseInstant(iso) : iso;
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]}, ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}`;
}

/** "2026-11-23" or an instant → "23 Nov 2026" (the UTC day). */
export function day(iso: string | Date): string {
  const d = typeof iso === "string" ? parseInstant(iso) : iso;
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
}

/**
 * A duration in words, rounded down: ten days and more in days ("67 days"), two days and more in
 * days and hours ("2 days, 12 hours"), two hours and more in hours ("5 hours"), else minutes
 * ("1 minute", "0 minutes").
 */
export function duration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`not a duration: ${ms}`);
  if (ms >= 10 * DAY_MS) return plural(Math.floor(ms / DAY_MS), "day");
  if (ms >= 2 * DAY_MS) {
    const days = Math.floor(ms / DAY_MS);
    const hours = Math.floor((ms - days * DAY_MS) / HOUR_MS);
    return hours === 0 ? plural(days, "day") : `${plural(days, "day")}, ${plural(hours, "hour")}`;
  }
  if (ms >= 2 * HOUR_MS) return plural(Math.floor(ms / HOUR_MS), "hour");
  return plural(Math.floor(ms / MINUTE_MS), "minute");
}

/** The age of `iso` at `atIso` in words ("3 days"); an instant after `atIso` has age "0 minutes". */
export function age(iso: string, atIso: string): string {
  return duration(Math.max(0, parseInstant(atIso).getTime() - parseInstant(iso).getTime()));
}

/** Whole days from `fromIso` to the UTC day `date` (YYYY-MM-DD), negative when the day is past. */
export function daysUntil(date: string, fromIso: string): number {
  const target = parseInstant(`${date.slice(0, 10)}T00:00:00.000Z`).getTime();
  return Math.ceil((target - parseInstant(fromIso).getTime()) / DAY_MS);
}

/** "under_review" → "under review". */
export function words(value: string): string {
  return value.replaceAll("_", " ");
}
