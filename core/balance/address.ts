/**
 * Balance addresses. An address is a ledger account name exactly as the ledger records it: the
 * `sentinel` of a mint, the `account` of a burn, lock or unlock, the `ledger_id` of a stake — the
 * ledger's Identifier (core/schemas/common.ts): an ASCII letter or digit, then up to 127 letters,
 * digits, '.', '_', ':' or '-'. Case matters (`ATLAS` and `atlas` are two accounts) and nothing is
 * normalized, so an address reads back byte for byte and sorts the same way everywhere.
 */

export const ADDRESS_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

export function isAddress(value: unknown): value is string {
  return typeof value === "string" && ADDRESS_PATTERN.test(value);
}

/**
 * Address order: by UTF-16 code unit, which for these ASCII names is byte order (what `sort -u`
 * with LC_ALL=C and every other language's plain string compare give).
 */
export function compareAddresses(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Ranges this small are sorted by comparing whole addresses. */
const SMALL_RANGE = 24;

/**
 * The order of `addresses` by compareAddresses, as indices: `addresses[order[0]]` comes first.
 * Equal addresses end up next to each other (in no particular order among themselves).
 *
 * A million addresses sort about twice as fast as `address ‖ index` strings through
 * Array.prototype.sort, which compares strings one pair at a time: a most-significant-digit radix
 * sort that skips the characters a range shares, then reads a few characters of
 * every address at once as one number (code unit c is the base-129 digit c + 1, and 0 is past the
 * end, so a shorter address sorts first), sorts those numbers natively in a Float64Array (the
 * position rides in the low bits), and recurses only into runs that share those characters.
 * Any string is accepted; a code unit at or above 128 falls back to comparing whole strings.
 */
export function addressOrder(addresses: readonly string[]): Uint32Array {
  const order = new Uint32Array(addresses.length);
  for (let i = 0; i < order.length; i++) order[i] = i;
  sortRange(addresses, order, 0, order.length, 0);
  return order;
}

function sortByComparing(a: readonly string[], order: Uint32Array, from: number, to: number): void {
  order.set(Array.from(order.subarray(from, to)).sort((x, y) => compareAddresses(a[x]!, a[y]!)), from);
}

function sortRange(a: readonly string[], order: Uint32Array, from: number, to: number, depth: number): void {
  const n = to - from;
  if (n < 2) return;
  const scale = 2 ** Math.ceil(Math.log2(n));
  let chars = 0;
  while (129 ** (chars + 1) * scale <= 2 ** 53) chars++;
  if (n <= SMALL_RANGE || chars < 1) return sortByComparing(a, order, from, to);
  // Characters every address of the range shares need no pass of their own.
  const first = a[order[from]!]!;
  let common = first.length;
  for (let j = from + 1; j < to && common > depth; j++) {
    const s = a[order[j]!]!;
    let k = depth;
    const end = Math.min(common, s.length);
    while (k < end && s.charCodeAt(k) === first.charCodeAt(k)) k++;
    common = k;
  }
  depth = Math.max(depth, common);
  const keys = new Float64Array(n);
  for (let j = 0; j < n; j++) {
    const s = a[order[from + j]!]!;
    let v = 0;
    for (let k = depth; k < depth + chars; k++) {
      const c = k < s.length ? s.charCodeAt(k) : -1;
      if (c >= 128) return sortByComparing(a, order, from, to);
      v = v * 129 + c + 1;
    }
    keys[j] = v * scale + j;
  }
  keys.sort();
  const before = order.slice(from, to);
  // Runs sharing the characters read so far are ordered by the next ones; a run whose last digit
  // is 0 holds addresses that all ended there: they are equal, nothing is left to order.
  let runStart = 0;
  let runPrefix = -1;
  for (let j = 0; j <= n; j++) {
    const prefix = j < n ? Math.floor(keys[j]! / scale) : -2;
    if (j < n) order[from + j] = before[keys[j]! - prefix * scale]!;
    if (prefix !== runPrefix) {
      if (j - runStart > 1 && runPrefix % 129 !== 0) sortRange(a, order, from + runStart, from + j, depth + chars);
      runStart = j;
      runPrefix = prefix;
    }
  }
}
