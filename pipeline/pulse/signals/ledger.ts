/**
 * gi.ledger_verified: 1 when the ledger re-verifies from its stored entries (hash chain, payload
 * schemas, Merkle subtrees, every signed checkpoint), 0 when it does not, null when there is no
 * ledger to verify.
 */
import type { LedgerReader } from "../../../core/ledger/store.ts";
import { measured, unmeasured, type Signal } from "./types.ts";

export async function ledgerVerified(ledger: LedgerReader | null, where: string): Promise<Signal> {
  if (!ledger) return unmeasured(`no ledger at ${where}`);
  const report = await ledger.verify();
  if (report.ok)
    return measured(
      1,
      `ledger ${where}: ${report.size} entries and ${report.checkpointsChecked} checkpoint(s) verified`,
    );
  const first = report.problems[0];
  return measured(
    0,
    `ledger ${where}: ${report.problems.length} problem(s), first at seq ${first?.seq}: ${first?.problem}`,
  );
}
