/**
 * /economy/cathedral-multipliers.csv: every recorded change of a cathedral multiplier
 * (`multiplier.changed`), in ledger order. Columns timestamp, cycle, cathedral, multiplier, reason.
 * Only recorded changes appear: a cathedral whose multiplier never changed has no row (it stands at
 * its initial 1.0, as /economy/roi shows). Each row is checked against the row schema.
 */
import { CathedralMultiplierRow } from "../../../core/schemas/economy.ts";
import type { LedgerFacts } from "../../facts/types.ts";
import { csvDocument } from "../../../core/csv.ts";
import type { DocumentStep } from "../../step.ts";
import { formatIssues } from "../../../core/zod-issues.ts";
import { economy } from "../../../core/areas/economy.ts";
import { declaredOutput } from "../../../core/areas/declaration.ts";

export const MULTIPLIER_COLUMNS = ["timestamp", "cycle", "cathedral", "multiplier", "reason"] as const;

export function multiplierRows(facts: Pick<LedgerFacts, "multiplierChanges">): CathedralMultiplierRow[] {
  return facts.multiplierChanges.map((c, i) => {
    const row = { timestamp: c.ts, cycle: c.cycle, cathedral: c.cathedral, multiplier: c.multiplier, reason: c.reason };
    const parsed = CathedralMultiplierRow.safeParse(row);
    if (!parsed.success) {
      throw new Error(
        `economy/cathedral-multipliers.csv: change ${i} does not match its row schema: ${formatIssues(parsed.error.issues)}`,
      );
    }
    return row;
  });
}

export const cathedralMultipliersStep: DocumentStep = {
  kind: "document",
  ...declaredOutput(economy, "cathedral-multipliers.csv"),
  name: "cathedral-multipliers",
  title: "Cathedral multiplier timeline",
  description:
    "Every change of a cathedral multiplier M_c (between 1.0 and 2.0) recorded on the ledger, oldest first, with its reason. Multipliers start at 1.0.",
  primaryKey: ["timestamp", "cathedral"],
  schema: "economy/cathedral-multipliers-row",
  inputs: ["ledger"],
  version: 1,
  generate({ facts }) {
    return csvDocument(MULTIPLIER_COLUMNS, multiplierRows(facts));
  },
};
