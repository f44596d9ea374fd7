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
