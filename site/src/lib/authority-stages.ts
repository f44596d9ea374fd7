/**
 * Denials by stage per month, for the /authority chart. The public authority-activity.json has the
 * denials per month and the denials per stage, but not both at once; the government area's ledger
 * export (keyed, verified with the area) has every `avm.attempt` with its stage. This counts the
 * denied attempts of the export by UTC month and stage — counts only, nothing else of the export
 * reaches the page — and checks the counts against the public file: per stage they must equal its
 * `denials_by_stage`, and per month their sum must be at most its `denials` (the difference is the
 * malformed requests, which reach no stage). A disagreement fails the build naming it.
 */
import { AVM_STAGES, type AuthorityActivity } from "../../../core/schemas/avm.ts";
import { DataVerificationError } from "./datapackage.ts";

export type Stage = (typeof AVM_STAGES)[number];

export interface StageMonth {
  month: string;
  byStage: Record<Stage, number>;
}

interface ExportRow {
  timestamp?: unknown;
  event_type?: unknown;
  data?: unknown;
}

const zeros = (): Record<Stage, number> => Object.fromEntries(AVM_STAGES.map((s) => [s, 0])) as Record<Stage, number>;
const isStage = (v: unknown): v is Stage => typeof v === "string" && (AVM_STAGES as readonly string[]).includes(v);

/** The denials of `exportJson` by month (the public file's months, oldest first) and stage. */
export function denialsByStageAndMonth(
  exportJson: string,
  activity: AuthorityActivity,
  file = "ledger/export.json",
): StageMonth[] {
  let rows: ExportRow[];
  try {
    rows = JSON.parse(exportJson) as ExportRow[];
  } catch (error) {
    throw new DataVerificationError(`${file}: not valid JSON (${(error as Error).message})`);
  }
  if (!Array.isArray(rows)) throw new DataVerificationError(`${file}: not an array of ledger entries`);
  const counts = new Map<string, Record<Stage, number>>(activity.months.map((m) => [m.month, zeros()]));
  for (const row of rows) {
    if (row.event_type !== "avm.attempt" || typeof row.timestamp !== "string" || typeof row.data !== "string") continue;
    const payload = JSON.parse(row.data) as { verified?: unknown; failed_at_stage?: unknown };
    if (payload.verified !== false || !isStage(payload.failed_at_stage)) continue;
    const month = row.timestamp.slice(0, 7);
    const byStage = counts.get(month);
    if (!byStage)
      throw new DataVerificationError(`${file}: a denial in ${month}, a month authority-activity.json does not list`);
    byStage[payload.failed_at_stage]++;
  }
  const months = activity.months.map((m) => ({ month: m.month, byStage: counts.get(m.month)! }));
  for (const stage of AVM_STAGES) {
    const total = months.reduce((sum, m) => sum + m.byStage[stage], 0);
    if (total !== activity.denials_by_stage[stage]) {
      throw new DataVerificationError(
        `${file}: ${total} denials at stage ${stage}, authority-activity.json says ${activity.denials_by_stage[stage]}`,
      );
    }
  }
  for (const [i, m] of months.entries()) {
    const sum = AVM_STAGES.reduce((s, stage) => s + m.byStage[stage], 0);
    if (sum > activity.months[i]!.denials) {
      throw new DataVerificationError(
        `${file}: ${sum} denials at a stage in ${m.month}, authority-activity.json says ${activity.months[i]!.denials} denials in all`,
      );
    }
  }
  return months;
}
