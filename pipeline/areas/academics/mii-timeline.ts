/**
 * /academics/mii-timeline.csv (public): the pulse history of the 30 days up to the document
 * timestamp (both ends included), oldest first. Row schema: academics/mii-timeline-row.
 *
 * Columns: timestamp = the pulse's generatedAt; mii_score = its miiScore (0–1); cycle = the cycle
 * the pulse record carries; sentinel_count = sentinels registered at or before that instant
 * (`SentinelFacts.registeredAt`).
 */
import { MiiTimelineRow } from "../../../core/schemas/index.ts";
import { csvWriter } from "../../../core/csv.ts";
import { documentInstant, pulseWindow } from "../../lib/dating.ts";
import type { DocumentStep } from "../../step.ts";
import { academics } from "../../../core/areas/academics.ts";
import { declaredOutput } from "../../../core/areas/declaration.ts";

export const MII_TIMELINE_COLUMNS = ["timestamp", "mii_score", "cycle", "sentinel_count"] as const;

export const miiTimelineStep: DocumentStep = {
  kind: "document",
  ...declaredOutput(academics, "mii-timeline.csv"),
  name: "mii-timeline",
  title: "MII timeline (30 days)",
  description:
    "Every integrity pulse of the 30 days up to the document time: timestamp, MII score, cycle and the number of sentinels registered at that time.",
  primaryKey: ["timestamp"],
  schema: "academics/mii-timeline-row",
  inputs: ["ledger", "pulse"],
  version: 1,
  generate({ facts, pulse }) {
    const { ms } = documentInstant(facts, pulse);
    const registered = facts.sentinels.map((s) => Date.parse(s.registeredAt)).sort((a, b) => a - b);
    const writer = csvWriter(MII_TIMELINE_COLUMNS);
    let out = writer.header;
    let count = 0;
    for (const record of pulseWindow(pulse, ms)) {
      const t = Date.parse(record.generatedAt);
      while (count < registered.length && (registered[count] as number) <= t) count++;
      const row: MiiTimelineRow = {
        timestamp: record.generatedAt,
        mii_score: record.miiScore,
        cycle: record.cycle,
        sentinel_count: count,
      };
      const check = MiiTimelineRow.safeParse(row);
      if (!check.success)
        throw new Error(`academics/mii-timeline.csv: row for pulse ${record.id} does not match its schema`);
      out += writer.row(row);
    }
    return out;
  },
};
