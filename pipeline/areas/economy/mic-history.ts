/**
 * /economy/mic-history.csv: one row per `mic_mint` ledger entry, in ledger order, full history
 * since genesis. Streamed: the runner feeds every entry once; non-mint entries add nothing.
 *
 * Columns timestamp (the entry's ts), cycle, sentinel, amount, cathedral, coordination_score (all
 * from the mint's payload). amount is MIC with exactly 6 decimals, written from the integer shards
 * by formatMicDecimal: no floating point touches it. Each payload is checked against the ledger's mic_mint
 * schema; a bad one fails the step naming the entry.
 */
import { formatMicDecimal } from "../../../core/money/units.ts";
import type { LedgerEntry } from "../../../core/ledger/entry.ts";
import { eventSchemas } from "../../../core/events/registry.ts";
import { csvWriter } from "../../../core/csv.ts";
import type { RowsStep } from "../../step.ts";
import { formatIssues } from "../../../core/zod-issues.ts";
import { economy } from "../../../core/areas/economy.ts";
import { declaredOutput } from "../../../core/areas/declaration.ts";

export const MIC_HISTORY_COLUMNS = [
  "timestamp",
  "cycle",
  "sentinel",
  "amount",
  "cathedral",
  "coordination_score",
] as const;

/** The CSV line of a ledger entry: a row for a mic_mint, "" for any other type. */
export function micHistoryLine(entry: LedgerEntry, writer = csvWriter(MIC_HISTORY_COLUMNS)): string {
  if (entry.type !== "mic_mint") return "";
  const parsed = eventSchemas.mic_mint.safeParse(entry.payload);
  if (!parsed.success) {
    throw new Error(
      `economy/mic-history.csv: ledger entry ${entry.seq} is not a valid mic_mint: ${formatIssues(parsed.error.issues, "(payload)")}`,
    );
  }
  const p = parsed.data;
  return writer.row({
    timestamp: entry.ts,
    cycle: p.cycle,
    sentinel: p.sentinel,
    amount: formatMicDecimal(BigInt(p.amount_shards)),
    cathedral: p.cathedral,
    coordination_score: p.coordination_score,
  });
}

export const micHistoryStep: RowsStep = {
  kind: "rows",
  ...declaredOutput(economy, "mic-history.csv"),
  name: "mic-history",
  title: "MIC minting history",
  description:
    "Every MIC mint recorded on the ledger since genesis, in ledger order: timestamp, cycle, sentinel, amount (MIC, 6 decimals, exact), cathedral and the coordination score the reward was computed from.",
  primaryKey: ["timestamp", "sentinel"],
  schema: "economy/mic-history-row",
  inputs: ["ledger"],
  version: 1,
  start() {
    const writer = csvWriter(MIC_HISTORY_COLUMNS);
    return {
      head: writer.header,
      sink: {
        push: (entry) => micHistoryLine(entry, writer),
        end: () => "",
        state: () => null,
      },
    };
  },
};
