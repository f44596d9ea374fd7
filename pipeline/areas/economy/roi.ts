/**
 * Returns: /economy/roi (by cathedral) and /economy/sentinel-roi.json (per sentinel).
 *
 * ROI of a sentinel = MIC earned per day in service:
 *
 *     roi = total_rewards (MIC) / max(uptime_days, 1)
 *
 * total_rewards is the sum of its mic_mint amounts (exact shards, converted once); uptime_days is
 * the time from its registration to the ledger's last entry, the time it has put into the network.
 * Uptime below one day counts as one day, as in the coordination score, so a sentinel registered
 * minutes ago is not credited with an extreme rate. A sentinel that has earned nothing has ROI 0.
 *
 * By cathedral, over every registered sentinel of the cathedral: multiplier = the cathedral's
 * current multiplier M_c; total_rewards = the sum of its sentinels' rewards (shards, then MIC);
 * sentinel_count = registered sentinels; average_roi = mean of their ROI, null with no sentinel.
 *
 * Per sentinel (all registered, sorted by id): coordination_score as in /economy/coordination (null
 * before the first heartbeat), multiplier = the current multiplier of its cathedral.
 */
import { shardsToMicNumber as shardsToMic } from "../../../core/money/units.ts";
import { CATHEDRALS, type Cathedral } from "../../../core/schemas/common.ts";
import { RoiByCathedral, SentinelRoi, type CathedralRoi } from "../../../core/schemas/economy.ts";
import type { LedgerFacts, SentinelFacts } from "../../facts/types.ts";
import { meanOf, sentinelCoordination } from "../../lib/coordination.ts";
import { documentInstant } from "../../lib/dating.ts";
import { publishJson } from "../../lib/json.ts";
import type { DocumentStep } from "../../step.ts";
import { economy } from "../../../core/areas/economy.ts";
import { declaredOutput } from "../../../core/areas/declaration.ts";

/** MIC per day in service (uptime floored at one day). */
export function sentinelRoi(s: Pick<SentinelFacts, "rewardsShards" | "uptimeDays">): number {
  return shardsToMic(s.rewardsShards) / Math.max(s.uptimeDays, 1);
}

export function roiByCathedral(facts: Pick<LedgerFacts, "sentinels" | "multipliers">): Record<Cathedral, CathedralRoi> {
  const out = {} as Record<Cathedral, CathedralRoi>;
  for (const cathedral of CATHEDRALS) {
    const members = facts.sentinels.filter((s) => s.cathedral === cathedral);
    const total = members.reduce((sum, s) => sum + s.rewardsShards, 0n);
    out[cathedral] = {
      multiplier: facts.multipliers[cathedral],
      total_rewards: shardsToMic(total),
      sentinel_count: members.length,
      average_roi: meanOf(members.map(sentinelRoi)),
    };
  }
  return out;
}

export function sentinelRois(facts: Pick<LedgerFacts, "sentinels" | "multipliers">): SentinelRoi["sentinels"] {
  return facts.sentinels.map((s) => ({
    id: s.id,
    cathedral: s.cathedral,
    total_rewards: shardsToMic(s.rewardsShards),
    coordination_score: sentinelCoordination(s),
    multiplier: facts.multipliers[s.cathedral],
    roi: sentinelRoi(s),
  }));
}

const ROI_DEFINITION =
  "ROI is MIC earned per day in service: a sentinel's total rewards divided by its uptime in days (from registration to the ledger's last entry, at least one day).";

export const roiStep: DocumentStep = {
  kind: "document",
  ...declaredOutput(economy, "roi.json"),
  name: "roi",
  title: "Returns by cathedral",
  description: `For each of the five cathedrals: current multiplier, total MIC rewards, number of sentinels and their average ROI (null without sentinels). ${ROI_DEFINITION}`,
  schema: "economy/roi",
  inputs: ["ledger", "pulse"],
  version: 1,
  generate({ facts, pulse }) {
    const { timestamp, cycle } = documentInstant(facts, pulse);
    const by = roiByCathedral(facts);
    return publishJson("economy/roi.json", RoiByCathedral, {
      cycle,
      timestamp,
      by_cathedral: {
        "FOR-GOVERNMENTS": by["FOR-GOVERNMENTS"],
        "FOR-ACADEMICS": by["FOR-ACADEMICS"],
        "FOR-PHILOSOPHERS": by["FOR-PHILOSOPHERS"],
        "FOR-ECONOMISTS": by["FOR-ECONOMISTS"],
        DIPLOMACY: by.DIPLOMACY,
      },
    });
  },
};

export const sentinelRoiStep: DocumentStep = {
  kind: "document",
  ...declaredOutput(economy, "sentinel-roi.json"),
  name: "sentinel-roi",
  title: "Returns per sentinel",
  description: `Every registered sentinel, by id: cathedral, total MIC rewards, coordination score (null before its first heartbeat), its cathedral's current multiplier and its ROI. ${ROI_DEFINITION}`,
  schema: "economy/sentinel-roi",
  inputs: ["ledger", "pulse"],
  version: 1,
  generate({ facts, pulse }) {
    const { timestamp, cycle } = documentInstant(facts, pulse);
    return publishJson("economy/sentinel-roi.json", SentinelRoi, { cycle, timestamp, sentinels: sentinelRois(facts) });
  },
};
