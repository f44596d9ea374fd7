/**
 * What one streaming pass over the ledger knows: the facts every area generator reads. Built by
 * `pipeline/facts/accumulate.ts` entry by entry (O(sentinels + cycles) memory, not O(entries)), so
 * a ledger of millions of events is read once. Money is in shards (bigint); generators convert to
 * MIC numbers only at the edge of a published document.
 */
import type { ActivityFigures } from "../../core/avm/activity.ts";
import type { SessionSummary } from "../../core/consensus/views.ts";
import type { ConsensusRegistry } from "../../core/schemas/consensus.ts";
import type { SupplyShards } from "../../core/economy/supply.ts";
import type { Cathedral } from "../../core/schemas/common.ts";

export interface HeartbeatFacts {
  ts: string;
  status: "operational" | "degraded" | "offline";
  gi_score: number;
  apps: number;
  packages: number;
  workflows: number;
  drift: number;
}

export interface SentinelFacts {
  id: string;
  cathedral: Cathedral;
  algorithm: "ed25519" | "secp256k1";
  publicKey: string;
  registeredAt: string;
  lastHeartbeat: HeartbeatFacts | null;
  heartbeatCount: number;
  /** Whole and fractional days from registration to the ledger's last timestamp. */
  uptimeDays: number;
  rewardsShards: bigint;
  mintCount: number;
  /** Coordination score carried by the sentinel's latest mint, or null if it never minted. */
  lastMintCoordination: number | null;
  attestationCount: number;
  /** Consensus votes cast, and how many agreed with the session's evaluated outcome. */
  votes: number;
  votesWithOutcome: number;
}

/** Cumulative supply at the end of a cycle that had at least one supply event. */
export interface CycleSupply {
  cycle: string;
  /** Timestamp of the cycle's last supply event. */
  ts: string;
  mintedShards: bigint;
  burnedShards: bigint;
  lockedShards: bigint;
}

export interface MultiplierChange {
  ts: string;
  cycle: string;
  cathedral: Cathedral;
  multiplier: number;
  reason: string;
}

export interface DeliberationFacts {
  ts: string;
  id: string;
  topic: string;
  sentinels: { id: string; position: "support" | "oppose" | "abstain"; reasoning: string; virtue_tags: string[] }[];
  consensus: number;
  outcome: "approved" | "rejected" | "deferred";
}

export interface ConsensusFacts {
  opened: number;
  evaluated: number;
  approved: number;
  rejected: number;
  noQuorum: number;
  /** Sessions opened but not (yet) evaluated. */
  open: number;
  sealedProofs: number;
}

/** The latest recorded audit of a jurisdiction (`compliance.audited`). */
export interface ComplianceAudit {
  ts: string;
  auditor: string;
  auditedOn: string;
  nextAudit: string;
}
export type Jurisdiction = "USA" | "EU" | "UK" | "International";

export interface LedgerFacts {
  /** Entries read, and the RFC 9162 root over them (`sha256:<hex>`): the ledger input's identity. */
  size: number;
  rootHash: string;
  firstTs: string | null;
  /** Timestamp of the last entry: documents are "as of" this instant, never the wall clock. */
  asOf: string | null;
  /** Present when the ledger was written by the sample simulator. */
  sample: { generator: string; seed: string; notice: string } | null;
  eventCounts: Record<string, number>;
  /** Sorted by id. */
  sentinels: SentinelFacts[];
  supply: SupplyShards;
  supplyByCycle: CycleSupply[];
  /** Current multiplier per cathedral (1.0 until a change is recorded). */
  multipliers: Record<Cathedral, number>;
  multiplierChanges: MultiplierChange[];
  deliberations: DeliberationFacts[];
  consensus: ConsensusFacts;
  /** Every consensus session the consensus registry (core/consensus) accepted, oldest first. */
  consensusSessions: SessionSummary[];
  /** The consensus registry at the end of the ledger, as philosophy/consensus-registry.json publishes it. */
  consensusRegistry: Omit<ConsensusRegistry, "cycle" | "timestamp">;
  /** Authority verification as the ledger records it (core/avm/activity.ts): government/authority-activity.json. */
  authorityActivity: ActivityFigures;
  /** The latest `compliance.audited` per jurisdiction (none recorded: empty). */
  audits: Partial<Record<Jurisdiction, ComplianceAudit>>;
}
