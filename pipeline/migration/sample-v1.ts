/**
 * The SAMPLE v1 export (data/sources/migration/v1-balances.jsonl): what the v1 system would have
 * exported at the snapshot, for the sample ledger.
 *
 * - Every MIC account of the ledger (an address named by a mint, burn, lock or unlock dated before
 *   the snapshot instant), with its available balance at that instant (core/balance/ledger-balances.ts),
 *   rendered the way a float system renders it: `Number(shards) / 1e6` through JSON.stringify. For
 *   the sample's amounts (below 10^9 MIC) that text is exact; the conversion proves it.
 * - Then legacy accounts the v1 system carried, with the awkward values a float system produces or
 *   accepts (LEGACY_SAMPLE_LINES), named `sample-legacy-…` so nobody mistakes them for real ones.
 *
 * Lines come in the order an account first appears on the ledger (a v1 table's insertion order),
 * the legacy ones spread among them: the conversion sorts, so the export need not.
 */
import { applyMovement, movementOf, type Holdings } from "../../core/balance/ledger-balances.ts";
import type { LedgerEntry } from "../../core/ledger/entry.ts";
import { SNAPSHOT_AT } from "../../core/migration/phases.ts";

/** Legacy v1 accounts, written exactly as the v1 system wrote them (some are not even JSON). */
export const LEGACY_SAMPLE_LINES: readonly string[] = [
  // The origin project's float conversion turned this into 1,004,999 shards.
  '{"address":"sample-legacy-0001","balance_gic":1.005}',
  // Finer than a shard: reported, never rounded to 0.
  '{"address":"sample-legacy-0002","balance_gic":1e-7}',
  // Exponent forms are exact.
  '{"address":"sample-legacy-0003","balance_gic":1E2}',
  '{"address":"sample-legacy-0004","balance_gic":2.5E-3}',
  '{"address":"sample-legacy-0005","balance_gic":1e-6}',
  // A negative balance (an overdraft the v1 system allowed).
  '{"address":"sample-legacy-0006","balance_gic":-12.5}',
  // The same account twice, with two balances: both lines reported.
  '{"address":"sample-legacy-0007","balance_gic":10}',
  // Float artifacts of adding 0.1 and 0.2 in binary.
  '{"address":"sample-legacy-0008","balance_gic":0.30000000000000004}',
  // Beyond the documented maximum (2^63 − 1 shards).
  '{"address":"sample-legacy-0009","balance_gic":1e30}',
  // Exactly the maximum, far beyond 2^53 shards: converted exactly.
  '{"address":"sample-legacy-0010","balance_gic":9223372036854.775807}',
  '{"address":"sample-legacy-0007","balance_gic":10.5}',
  // Not numbers: a string, NaN (not even JSON), null.
  '{"address":"sample-legacy-0011","balance_gic":"17.25"}',
  '{"address":"sample-legacy-0012","balance_gic":NaN}',
  '{"address":"sample-legacy-0013","balance_gic":null}',
  // Trailing zeros and a zero balance are fine.
  '{"address":"sample-legacy-0014","balance_gic":12.50}',
  '{"address":"sample-legacy-0015","balance_gic":0}',
  '{"address":"sample-legacy-0016","balance_gic":1.0000000}',
  // An address outside the format (a space) and a line with a member v1 never had.
  '{"address":"sample legacy 0017","balance_gic":3}',
  '{"address":"sample-legacy-0018","balance_gic":5,"currency":"GIC"}',
];

/** The export's lines for a ledger: its MIC accounts at the snapshot, with the legacy lines among them. */
export function sampleV1Export(entries: Iterable<LedgerEntry>, snapshotAt = SNAPSHOT_AT): string[] {
  const balances: Holdings = new Map();
  // MIC accounts in order of first appearance; a stake alone opens no MIC account.
  const accounts: string[] = [];
  for (const entry of entries) {
    if (entry.ts >= snapshotAt) break;
    const m = movementOf(entry);
    if (m === null || m.staked !== 0n) continue;
    if (!balances.has(m.address)) accounts.push(m.address);
    applyMovement(balances, m);
  }
  const ledgerLines = accounts.map((address) =>
    JSON.stringify({ address, balance_gic: Number(balances.get(address)!.available) / 1e6 }),
  );
  // One legacy line after every third ledger account, the rest at the end.
  const lines: string[] = [];
  let legacy = 0;
  ledgerLines.forEach((line, i) => {
    lines.push(line);
    if (i % 3 === 2 && legacy < LEGACY_SAMPLE_LINES.length) lines.push(LEGACY_SAMPLE_LINES[legacy++]!);
  });
  while (legacy < LEGACY_SAMPLE_LINES.length) lines.push(LEGACY_SAMPLE_LINES[legacy++]!);
  return lines;
}
