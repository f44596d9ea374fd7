/**
 * The simulator's fixed vocabulary: the sentinel roster and the small phrase tables that
 * deliberations, reasons and attestation subjects are drawn from. Changing anything here changes
 * the sample ledger for every seed (the tests pin determinism, not content).
 */
import { AREA_DECLARATIONS } from "../../core/areas/index.ts";
import { CATHEDRALS, type Cathedral } from "../../core/schemas/common.ts";

export interface SentinelSpec {
  id: string;
  cathedral: Cathedral;
  /** Spec "a session has four participating offices: two critical-priority and two high-priority". */
  priority: "critical" | "high";
  /**
   * When the sentinel joins: 0 = at genesis (C-1); otherwise the fraction of the simulated span
   * after which it registers (so uptimes differ and the roster grows over time).
   */
  joinsAt: number;
}

/** Two sentinels per cathedral at genesis, and two that join later. */
export const SENTINELS: readonly SentinelSpec[] = [
  { id: "ATLAS", cathedral: "FOR-GOVERNMENTS", priority: "critical", joinsAt: 0 },
  { id: "HERMES", cathedral: "FOR-GOVERNMENTS", priority: "high", joinsAt: 0 },
  { id: "AUREA", cathedral: "FOR-ECONOMISTS", priority: "critical", joinsAt: 0 },
  { id: "PLUTUS", cathedral: "FOR-ECONOMISTS", priority: "high", joinsAt: 0 },
  { id: "ECHO", cathedral: "FOR-ACADEMICS", priority: "critical", joinsAt: 0 },
  { id: "ATHENA", cathedral: "FOR-ACADEMICS", priority: "high", joinsAt: 0 },
  { id: "EVE", cathedral: "FOR-PHILOSOPHERS", priority: "critical", joinsAt: 0 },
  { id: "SOPHIA", cathedral: "FOR-PHILOSOPHERS", priority: "high", joinsAt: 0 },
  { id: "IRIS", cathedral: "DIPLOMACY", priority: "critical", joinsAt: 0 },
  { id: "JANUS", cathedral: "DIPLOMACY", priority: "high", joinsAt: 0 },
  { id: "MINERVA", cathedral: "FOR-ACADEMICS", priority: "high", joinsAt: 0.35 },
  { id: "SOLON", cathedral: "FOR-GOVERNMENTS", priority: "high", joinsAt: 0.65 },
];

/** Multipliers set at genesis by the first `multiplier.changed` of each cathedral. */
export const GENESIS_MULTIPLIERS: Readonly<Record<Cathedral, number>> = {
  "FOR-GOVERNMENTS": 1.5,
  "FOR-ECONOMISTS": 1.25,
  "FOR-ACADEMICS": 1.35,
  "FOR-PHILOSOPHERS": 1.2,
  DIPLOMACY: 1.4,
};

export const MULTIPLIER_REASONS_UP = [
  "coordination above target for the review period",
  "participation incentive approved by the council",
  "drift penalty lifted after remediation",
  "new published datasets adopted by the area",
];
export const MULTIPLIER_REASONS_DOWN = [
  "treasury stabilisation: emission above plan",
  "coordination below target for the review period",
  "drift penalty: charter alignment review pending",
  "rebalancing after a rise in another cathedral",
];

/**
 * Published files each cathedral's sentinels attest to (`<area path>@<cycle>` is the subject): the
 * files its area declares as attested (core/areas/<area>.ts `attested`).
 */
export const ATTESTATION_SUBJECTS: Readonly<Record<Cathedral, readonly string[]>> = Object.fromEntries(
  CATHEDRALS.map((cathedral) => {
    const area = AREA_DECLARATIONS.find((d) => d.cathedral === cathedral);
    if (!area) throw new Error(`cathedral ${cathedral}: no area declares it`);
    return [cathedral, area.attested.map((path) => `${area.name}/${path}`)];
  }),
) as unknown as Record<Cathedral, readonly string[]>;

/** Consensus rooms by the cathedral whose question is on the table. */
export const ROOMS: Readonly<Record<Cathedral, string>> = {
  "FOR-GOVERNMENTS": "policy",
  "FOR-ECONOMISTS": "markets",
  "FOR-ACADEMICS": "research",
  "FOR-PHILOSOPHERS": "ethics",
  DIPLOMACY: "treaties",
};

/** Questions put to consensus sessions and standalone deliberations, by cathedral. */
export const TOPICS: Readonly<Record<Cathedral, readonly string[]>> = {
  "FOR-GOVERNMENTS": [
    "Publish the quarterly transparency report ahead of schedule",
    "Extend the audit trail export to daily granularity",
    "Require two attestations for every compliance status change",
    "Rotate the government API keys this quarter",
  ],
  "FOR-ECONOMISTS": [
    "Adjust the emission schedule for the next review period",
    "Open a new lock contract for long-term staking",
    "Burn the surplus of the fee pool",
    "Publish per-sentinel ROI with confidence intervals",
  ],
  "FOR-ACADEMICS": [
    "Release the coordination dataset under an open licence",
    "Add replication notes to the MII timeline",
    "Accept the drift-measurement paper for the index",
    "Refresh the academic dataset every six hours",
  ],
  "FOR-PHILOSOPHERS": [
    "Weigh transparency against privacy in the audit export",
    "Adopt temperance as a criterion for multiplier changes",
    "Record dissenting reasoning in every deliberation proof",
    "Review the charter's definition of integrity drift",
  ],
  DIPLOMACY: [
    "Align the treaty framework with the international standards list",
    "Invite a new signatory to the diplomatic protocols",
    "Translate the protocols into three more languages",
    "Define the escalation path for cross-border incidents",
  ],
};

export const VIRTUES = ["integrity", "temperance", "justice", "prudence", "courage"] as const;

/** Reasoning = opener(position) + " " + clause (+ " " + closer). */
export const REASONING_OPENERS: Readonly<Record<"support" | "oppose" | "abstain", readonly string[]>> = {
  support: ["Supports:", "In favour:", "Agrees:"],
  oppose: ["Opposes:", "Against:", "Dissents:"],
  abstain: ["Abstains:", "Withholds judgement:"],
};
export const REASONING_CLAUSES: Readonly<Record<"support" | "oppose" | "abstain", readonly string[]>> = {
  support: [
    "the change strengthens accountability without new risk",
    "the evidence on the ledger supports it",
    "it keeps the published record verifiable by anyone",
    "the cost is small and the benefit is measurable",
    "it follows the charter's transparency principle",
  ],
  oppose: [
    "the evidence is not yet sufficient",
    "the risk to privacy outweighs the benefit",
    "it would concentrate influence in one cathedral",
    "the timing conflicts with the current review period",
  ],
  abstain: [
    "the question falls outside this office's remit",
    "a conflict of interest has been declared",
    "more data is needed before taking a position",
  ],
};
export const REASONING_CLOSERS = [
  "",
  "Drift stays within bounds.",
  "Recorded for the next review.",
  "The ledger record is sufficient evidence.",
];

export const BURN_REASONS = [
  "transaction fees",
  "voluntary burn",
  "missed heartbeat window penalty",
  "fee pool surplus",
];
export const LOCK_CONTRACTS = ["stake-pool", "governance-bond", "consensus-escrow"];

/** Roles of the sample AVM identities, in turn. */
export const IDENTITY_ROLES = ["deployer", "contributor", "viewer", "deployer", "admin", "contributor"] as const;
