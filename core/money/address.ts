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
  order.set(
    Array.from(order.subarray(from, to)).sort((x, y) => compareAddresses(a[x]!, a[y]!)),
    from,
  );
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

/** Digit of each address byte in address order (1..66; 0: not an address byte), for addressOrderOfBytes. */
const ADDRESS_DIGIT = (() => {
  const digits = new Uint8Array(256);
  const alphabet = "-.0123456789:ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz";
  // The alphabet is in byte order, so digit order is byte order.
  for (let i = 0; i < alphabet.length; i++) digits[alphabet.charCodeAt(i)] = i + 1;
  return digits;
})();
const BASE = 67;

export interface ByteAddressOrder {
  /** Entry ids in address order. */
  order: Uint32Array;
  /** 1 where the address at that position of `order` equals the one before it. */
  sameAsPrevious: Uint8Array;
}

/**
 * The order of `count` addresses held as bytes of `bytes` (entry i at `starts[i]`, `lengths[i]`
 * bytes, every byte an address byte — callers check the format first), by compareAddresses, and
 * which neighbours are equal. No string is made: a most-significant-digit radix sort that skips
 * the bytes a range shares, packs the next few bytes of every address (base 67, 0 past the end)
 * with the entry's position into one 64-bit integer, sorts those natively (BigUint64Array), and
 * recurses only into runs that share those bytes; a run whose bytes all ended holds equal
 * addresses. Small runs are sorted by comparing bytes.
 */
export function addressOrderOfBytes(
  bytes: Uint8Array,
  starts: Uint32Array,
  lengths: Uint8Array,
  count: number,
): ByteAddressOrder {
  const order = new Uint32Array(count);
  for (let i = 0; i < count; i++) order[i] = i;
  const sameAsPrevious = new Uint8Array(count);
  sortBytesRange(bytes, starts, lengths, order, sameAsPrevious, 0, count, 0);
  return { order, sameAsPrevious };
}

/** Compares two addresses of `bytes` from byte `depth` on. */
function compareBytesFrom(
  bytes: Uint8Array,
  starts: Uint32Array,
  lengths: Uint8Array,
  a: number,
  b: number,
  depth: number,
): number {
  const sa = starts[a]!;
  const sb = starts[b]!;
  const la = lengths[a]!;
  const lb = lengths[b]!;
  const n = Math.min(la, lb);
  for (let k = depth; k < n; k++) {
    const d = bytes[sa + k]! - bytes[sb + k]!;
    if (d !== 0) return d;
  }
  return la - lb;
}

const SMALL_BYTES_RANGE = 16;
/** Ranges above this size are split by one byte first when one value of it holds most of the range. */
const SPLIT_MIN = 4096;

/**
 * A stable counting sort of the range by the byte at `depth` (0 past the end), then each part
 * sorted on — when one byte value holds more than 7/8 of the range; returns false (nothing done)
 * otherwise. Addresses that ended at `depth` are equal to each other.
 */
function splitByNextByte(
  bytes: Uint8Array,
  starts: Uint32Array,
  lengths: Uint8Array,
  order: Uint32Array,
  same: Uint8Array,
  from: number,
  to: number,
  depth: number,
): boolean {
  const n = to - from;
  const counts = new Uint32Array(257);
  for (let j = from; j < to; j++) {
    const id = order[j]!;
    counts[depth < lengths[id]! ? bytes[starts[id]! + depth]! + 1 : 0]! += 1;
  }
  let largest = 0;
  for (let b = 0; b < 257; b++) largest = Math.max(largest, counts[b]!);
  if (largest * 8 <= n * 7) return false;
  const offsets = new Uint32Array(258);
  for (let b = 0; b < 257; b++) offsets[b + 1] = offsets[b]! + counts[b]!;
  const before = order.slice(from, to);
  const next = offsets.slice(0, 257);
  for (let j = 0; j < n; j++) {
    const id = before[j]!;
    order[from + next[depth < lengths[id]! ? bytes[starts[id]! + depth]! + 1 : 0]!++] = id;
  }
  for (let r = from + 1; r < from + offsets[1]!; r++) same[r] = 1;
  for (let b = 1; b < 257; b++)
    sortBytesRange(bytes, starts, lengths, order, same, from + offsets[b]!, from + offsets[b + 1]!, depth + 1);
  return true;
}

function sortBytesRange(
  bytes: Uint8Array,
  starts: Uint32Array,
  lengths: Uint8Array,
  order: Uint32Array,
  same: Uint8Array,
  from: number,
  to: number,
  depth: number,
): void {
  const n = to - from;
  if (n < 2) return;
  if (n <= SMALL_BYTES_RANGE) {
    // Insertion sort by bytes, then mark equal neighbours.
    for (let i = from + 1; i < to; i++) {
      const id = order[i]!;
      let j = i - 1;
      while (j >= from && compareBytesFrom(bytes, starts, lengths, order[j]!, id, depth) > 0) {
        order[j + 1] = order[j]!;
        j--;
      }
      order[j + 1] = id;
    }
    for (let i = from + 1; i < to; i++)
      same[i] = compareBytesFrom(bytes, starts, lengths, order[i - 1]!, order[i]!, depth) === 0 ? 1 : 0;
    return;
  }
  // Bytes every address of the range shares need no pass of their own.
  const first = order[from]!;
  let common = lengths[first]!;
  for (let j = from + 1; j < to && common > depth; j++) {
    const id = order[j]!;
    const end = Math.min(common, lengths[id]!);
    let k = depth;
    while (k < end && bytes[starts[id]! + k] === bytes[starts[first]! + k]) k++;
    common = k;
  }
  depth = Math.max(depth, common);
  // When most of a large range shares the next byte (a few odd addresses end the shared prefix of
  // the rest), split off the others first: the big part then skips its own shared bytes, instead
  // of spending a whole key sort on bytes it shares and a second one, with scattered reads, after.
  if (n > SPLIT_MIN && splitByNextByte(bytes, starts, lengths, order, same, from, to, depth)) return;
  const indexBits = Math.max(1, Math.ceil(Math.log2(n)));
  const chars = Math.floor((64 - indexBits) / Math.log2(BASE));
  const lowKeyBits = 32 - indexBits;
  const lowKeyScale = 2 ** lowKeyBits;
  const keys = new BigUint64Array(n);
  const halves = new Uint32Array(keys.buffer);
  for (let j = 0; j < n; j++) {
    const id = order[from + j]!;
    const start = starts[id]!;
    const length = lengths[id]!;
    let v = 0;
    for (let k = depth; k < depth + chars; k++) v = v * BASE + (k < length ? ADDRESS_DIGIT[bytes[start + k]!]! : 0);
    // v · 2^indexBits + j as a 64-bit integer, written as its two 32-bit halves (little-endian).
    const high = Math.floor(v / lowKeyScale);
    halves[2 * j] = (v - high * lowKeyScale) * 2 ** indexBits + j;
    halves[2 * j + 1] = high;
  }
  keys.sort();
  const before = order.slice(from, to);
  const indexMask = 2 ** indexBits - 1;
  let runStart = 0;
  let runKey = -1;
  for (let j = 0; j <= n; j++) {
    let key = -2;
    if (j < n) {
      const low = halves[2 * j]!;
      key = halves[2 * j + 1]! * lowKeyScale + Math.floor(low / 2 ** indexBits);
      order[from + j] = before[low & indexMask]!;
    }
    if (key !== runKey) {
      if (j - runStart > 1) {
        // A run whose last digit is 0 ended inside the bytes read: its addresses are equal.
        if (runKey % BASE === 0) for (let r = runStart + 1; r < j; r++) same[from + r] = 1;
        else sortBytesRange(bytes, starts, lengths, order, same, from + runStart, from + j, depth + chars);
      }
      runStart = j;
      runKey = key;
    }
  }
}
