/**
 * /philosophy/virtues.json: the five virtues, each scored in [0, 1] from what the ledger and the
 * pulse history record. The parameters, status bands and weights come from
 * data/sources/philosophy/virtues.json; every measure sentence states the counts it was computed
 * from, so a reader can check the score.
 *
 * - integrity  = share of the latest `window_pulses` pulse records whose GI ≥ `gi_min`.
 * - temperance = 1 − share of minting cycles whose issuance exceeded `spike_factor` × the median
 *   issuance per minting cycle. Issuance of a cycle = the increase of cumulative minted shards over
 *   the previous cycle in `facts.supplyByCycle`; a minting cycle is one with an increase. Exact
 *   bigint comparison.
 * - justice    = 1 − Gini coefficient of total rewards (shards) across all registered sentinels
 *   (those never rewarded count as 0). Exact bigint sums; one division at the end.
 * - prudence   = share of evaluated consensus sessions that reached quorum (APPROVED or REJECTED,
 *   not NO_QUORUM).
 * - courage    = share of recorded deliberations in which at least one sentinel took the position
 *   "oppose" (dissent was voiced and recorded), against the curated `target_share`:
 *   min(1, share / target), so that every score reads the same way (1 = the virtue fully kept) and
 *   a status is never "compliant" next to a low-looking number.
 *
 * A virtue with nothing to measure (no pulse, no mint, no reward, no evaluated session, no
 * deliberation) is not demonstrated: score 0, status non_compliant, and the measure says so. No
 * default value stands in for a measurement.
 *
 * overall_compliance = Σ weight·score / Σ weight.
 */
import {
  VIRTUES,
  Virtues,
  type Virtue,
  type VirtueAssessment,
  type VirtueStatus,
} from "../../../core/schemas/philosophy.ts";
import type { PulseRecord } from "../../../core/pulse/history.ts";
import { count, mic, percent, plural } from "../../../core/format/text.ts";
import type { LedgerFacts } from "../../facts/types.ts";
import { documentInstant } from "../../lib/dating.ts";
import { publishJson } from "../../lib/json.ts";
import type { DocumentStep } from "../../step.ts";
import { VIRTUES_SOURCE, VirtuesConfig } from "./sources.ts";
import { philosophy } from "../../../core/areas/philosophy.ts";
import { declaredOutput } from "../../../core/areas/declaration.ts";

export interface Measured {
  score: number;
  measure: string;
}

/** The virtue's status by its bands. */
export function virtueStatus(score: number, band: { compliant_at: number; at_risk_at: number }): VirtueStatus {
  if (score >= band.compliant_at) return "compliant";
  if (score >= band.at_risk_at) return "at_risk";
  return "non_compliant";
}

const notDemonstrated = (what: string): Measured => ({
  score: 0,
  measure: `${what}: not demonstrated, scored 0.`,
});

export function measureIntegrity(pulse: readonly PulseRecord[], windowPulses: number, giMin: number): Measured {
  const recent = pulse.slice(-windowPulses);
  if (recent.length === 0) return notDemonstrated("No pulse record yet, so no GI to measure");
  const healthy = recent.filter((r) => r.giScore >= giMin).length;
  return {
    score: healthy / recent.length,
    measure:
      `Share of the latest ${plural(recent.length, "pulse record")} (window: at most ${count(windowPulses)}) whose GI is at least ${percent(giMin)}: ` +
      `${count(healthy)} of ${count(recent.length)}.`,
  };
}

/** Issuance (shards) of each cycle in which cumulative minted supply increased, oldest first. */
export function issuancePerMintingCycle(facts: Pick<LedgerFacts, "supplyByCycle">): bigint[] {
  const out: bigint[] = [];
  let previous = 0n;
  for (const c of facts.supplyByCycle) {
    const minted = c.mintedShards - previous;
    if (minted < 0n) throw new Error(`supply of ${c.cycle}: cumulative minted supply decreased`);
    if (minted > 0n) out.push(minted);
    previous = c.mintedShards;
  }
  return out;
}

/** Twice the median, exact: 2·m for an odd count, the sum of the two middle values for an even one. */
export function twiceMedian(values: readonly bigint[]): bigint {
  if (values.length === 0) throw new Error("median of no values");
  const sorted = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const mid = Math.floor(sorted.length / 2);
  const hi = sorted[mid] as bigint;
  return sorted.length % 2 === 1 ? 2n * hi : (sorted[mid - 1] as bigint) + hi;
}

export function measureTemperance(facts: Pick<LedgerFacts, "supplyByCycle">, spikeFactor: number): Measured {
  const issuance = issuancePerMintingCycle(facts);
  if (issuance.length === 0) return notDemonstrated("No MIC minted yet, so no issuance to measure");
  const median2 = twiceMedian(issuance);
  // x > factor × median  ⇔  2x > factor × (2 × median): exact in integers.
  const factor = BigInt(spikeFactor);
  const spikes = issuance.filter((x) => 2n * x > factor * median2).length;
  // The median in MIC, to the cent (a half shard of an even count is below that precision).
  const median = mic(median2 / 2n);
  return {
    score: 1 - spikes / issuance.length,
    measure:
      `1 minus the share of the ${plural(issuance.length, "minting cycle")} whose MIC issuance exceeded ${spikeFactor} times ` +
      `the median issuance per minting cycle (${median}): ${count(spikes)} of ${count(issuance.length)} exceeded it.`,
  };
}

/**
 * Gini coefficient of non-negative amounts: G = (2·Σ i·x₍ᵢ₎ − (n+1)·Σx) / (n·Σx) over the amounts
 * sorted ascending, i from 1. Null when the total is 0 (undefined).
 */
export function gini(amounts: readonly bigint[]): number | null {
  const sorted = [...amounts].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const n = BigInt(sorted.length);
  let total = 0n;
  let weighted = 0n;
  sorted.forEach((x, i) => {
    if (x < 0n) throw new Error("gini of a negative amount");
    total += x;
    weighted += BigInt(i + 1) * x;
  });
  if (total === 0n) return null;
  return Number(2n * weighted - (n + 1n) * total) / Number(n * total);
}

export function measureJustice(facts: Pick<LedgerFacts, "sentinels">): Measured {
  const g = gini(facts.sentinels.map((s) => s.rewardsShards));
  if (g === null) return notDemonstrated("No sentinel has been rewarded yet, so no distribution of rewards to measure");
  const rewarded = facts.sentinels.filter((s) => s.rewardsShards > 0n).length;
  return {
    score: 1 - g,
    measure:
      `1 minus the Gini coefficient of total MIC rewards across the ${plural(facts.sentinels.length, "registered sentinel")} ` +
      `(${count(rewarded)} of them rewarded): Gini ${g.toFixed(4)}.`,
  };
}

export function measurePrudence(facts: Pick<LedgerFacts, "consensus">): Measured {
  const { evaluated, noQuorum } = facts.consensus;
  if (evaluated === 0) return notDemonstrated("No consensus session evaluated yet");
  const quorate = evaluated - noQuorum;
  return {
    score: quorate / evaluated,
    measure:
      `Share of the ${plural(evaluated, "evaluated consensus session")} that reached quorum (outcome APPROVED or REJECTED, ` +
      `not NO_QUORUM): ${count(quorate)} of ${count(evaluated)}.`,
  };
}

export function measureCourage(facts: Pick<LedgerFacts, "deliberations">, targetShare: number): Measured {
  const total = facts.deliberations.length;
  if (total === 0) return notDemonstrated("No deliberation recorded yet");
  const dissenting = facts.deliberations.filter((d) => d.sentinels.some((s) => s.position === "oppose")).length;
  const share = dissenting / total;
  return {
    score: Math.min(1, share / targetShare),
    measure:
      `At least one sentinel took an opposing position in ${count(dissenting)} of the ${plural(total, "recorded deliberation")} ` +
      `(${percent(share)}), against a target of ${percent(targetShare, 0)}: the share divided by the target, at most 100%.`,
  };
}

export interface VirtuesBody {
  virtues: Record<Virtue, VirtueAssessment>;
  overall_compliance: number;
}

export function assessVirtues(facts: LedgerFacts, pulse: readonly PulseRecord[], config: VirtuesConfig): VirtuesBody {
  const c = config.virtues;
  const measured: Record<Virtue, Measured> = {
    integrity: measureIntegrity(pulse, c.integrity.window_pulses, c.integrity.gi_min),
    temperance: measureTemperance(facts, c.temperance.spike_factor),
    justice: measureJustice(facts),
    prudence: measurePrudence(facts),
    courage: measureCourage(facts, c.courage.target_share),
  };
  let weighted = 0;
  let weights = 0;
  const virtues = {} as Record<Virtue, VirtueAssessment>;
  for (const v of VIRTUES) {
    const m = measured[v];
    virtues[v] = {
      score: m.score,
      measure: m.measure,
      status: virtueStatus(m.score, c[v]),
      compliant_at: c[v].compliant_at,
      at_risk_at: c[v].at_risk_at,
    };
    weighted += c[v].weight * m.score;
    weights += c[v].weight;
  }
  return { virtues, overall_compliance: weighted / weights };
}

export const virtuesStep: DocumentStep = {
  kind: "document",
  ...declaredOutput(philosophy, "virtues.json"),
  name: "virtues",
  title: "Virtue compliance",
  description:
    "The five virtues (integrity, temperance, justice, prudence, courage), each scored in [0, 1] from the ledger and the pulse history, with the measure behind the score and its status; overall_compliance is their weighted mean. Measures, bands and weights: data/sources/philosophy/virtues.json.",
  schema: "philosophy/virtues",
  inputs: ["ledger", "pulse", `sources/${VIRTUES_SOURCE}`],
  version: 1,
  generate({ facts, pulse, sources }) {
    const config = sources.json(VIRTUES_SOURCE, VirtuesConfig);
    const { timestamp, cycle } = documentInstant(facts, pulse);
    const body = assessVirtues(facts, pulse, config);
    return publishJson("philosophy/virtues.json", Virtues, {
      cycle,
      timestamp,
      virtues: {
        integrity: body.virtues.integrity,
        temperance: body.virtues.temperance,
        justice: body.virtues.justice,
        prudence: body.virtues.prudence,
        courage: body.virtues.courage,
      },
      overall_compliance: body.overall_compliance,
    });
  },
};
