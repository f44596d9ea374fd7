/**
 * Registry of every published record: name → zod schema. Each entry is exported as JSON Schema to
 * data/schemas/<name>.schema.json by `npm run schemas`. Area documents are named
 * `<area>/<file-stem>`; one-row schemas of CSV files end in `-row`.
 */
import type { z } from "zod";
import { AcademicsDataset, MiiTimelineRow, PapersIndex, SentinelCoordination } from "./academics.ts";
import {
  AuthorityActivity,
  AuthorityContext,
  AvmCheckResponse,
  AvmFailure,
  AvmRevokeRequest,
  AvmRevokeResponse,
  AvmVerifyRequest,
  AvmVerifyResponse,
  AvmVerifySuccess,
  CompanionAttestation,
  ProofOfControl,
} from "./avm.ts";
import { BalanceV1, BalanceV2 } from "./balance.ts";
import { TableChanges } from "./release.ts";
import {
  ActiveSessions,
  CloseSessionInput,
  ConsensusEvaluatedTransaction,
  ConsensusMonitoring,
  ConsensusRegistry,
  CycleInfo,
  CycleUpdateRequest,
  DeliberationProof,
  DeliberationProofTransaction,
  ModelSignatureRequest,
  OfficeRegistration,
  OpenSessionInput,
  OpenSessionResult,
  ProofDocument,
  ProofRequest,
  ValidatorSignatureRequest,
  Vote,
  VoteRequest,
} from "./consensus.ts";
import { DiplomaticProtocols, InternationalStandards, TreatyFramework } from "./diplomacy.ts";
import {
  CathedralMultiplierRow,
  Coordination,
  EconomyMii,
  MicMintingRow,
  RoiByCathedral,
  SentinelRoi,
  Supply,
} from "./economy.ts";
import { AuditTrailRow, ComplianceReport, PolicyImpact, SentinelStatus } from "./government.ts";
import {
  Decisions,
  Deliberations,
  DriftAnalysis,
  SimulationError,
  SimulationRequest,
  SimulationUpdate,
  Virtues,
} from "./philosophy.ts";
import { PulseBadge, PulseHistoryResponse, PulseRecord } from "./pulse.ts";
import { MigrationLeaf, MigrationMismatch, MigrationProof, MigrationSummary } from "./migration.ts";

export * from "./common.ts";
export * from "./avm.ts";
export * from "./pulse.ts";
export * from "./government.ts";
export * from "./academics.ts";
export * from "./philosophy.ts";
export * from "./economy.ts";
export * from "./diplomacy.ts";
export * from "./consensus.ts";
export * from "./balance.ts";
export * from "./release.ts";
export * from "./migration.ts";

export const publishedSchemas = {
  // Authority verification
  "avm-verify-request": AvmVerifyRequest,
  "avm-companion-attestation": CompanionAttestation,
  "avm-proof-of-control": ProofOfControl,
  "avm-authority-context": AuthorityContext,
  "avm-verify-success": AvmVerifySuccess,
  "avm-verify-failure": AvmFailure,
  "avm-verify-response": AvmVerifyResponse,
  "avm-check-response": AvmCheckResponse,
  "avm-revoke-request": AvmRevokeRequest,
  "avm-revoke-response": AvmRevokeResponse,
  // Integrity pulse
  "pulse-record": PulseRecord,
  "pulse-history": PulseHistoryResponse,
  "pulse-badge": PulseBadge,
  // Government area
  "government/compliance-report": ComplianceReport,
  "government/audit-trail-row": AuditTrailRow,
  "government/sentinel-status": SentinelStatus,
  "government/policy-impact": PolicyImpact,
  "government/authority-activity": AuthorityActivity,
  // Academics area
  "academics/dataset": AcademicsDataset,
  "academics/mii-timeline-row": MiiTimelineRow,
  "academics/sentinel-coordination": SentinelCoordination,
  "academics/papers": PapersIndex,
  // Philosophers area
  "philosophy/deliberations": Deliberations,
  "philosophy/virtues": Virtues,
  "philosophy/decisions": Decisions,
  "philosophy/drift-analysis": DriftAnalysis,
  "philosophy/simulation-request": SimulationRequest,
  "philosophy/simulation-update": SimulationUpdate,
  "philosophy/simulation-error": SimulationError,
  "philosophy/consensus-monitoring": ConsensusMonitoring,
  "philosophy/consensus-registry": ConsensusRegistry,
  // Economists area
  "economy/supply": Supply,
  "economy/mii": EconomyMii,
  "economy/coordination": Coordination,
  "economy/roi": RoiByCathedral,
  "economy/mic-history-row": MicMintingRow,
  "economy/sentinel-roi": SentinelRoi,
  "economy/cathedral-multipliers-row": CathedralMultiplierRow,
  // Diplomacy area
  "diplomacy/treaty-framework": TreatyFramework,
  "diplomacy/standards": InternationalStandards,
  "diplomacy/protocols": DiplomaticProtocols,
  // Consensus
  "consensus-cycle-info": CycleInfo,
  "consensus-cycle-update": CycleUpdateRequest,
  "consensus-open-session-input": OpenSessionInput,
  "consensus-open-session-result": OpenSessionResult,
  "consensus-close-session-input": CloseSessionInput,
  "consensus-vote": Vote,
  "consensus-deliberation-proof": DeliberationProof,
  "consensus-evaluated-transaction": ConsensusEvaluatedTransaction,
  "consensus-delibproof-transaction": DeliberationProofTransaction,
  "consensus-office-registration": OfficeRegistration,
  "consensus-vote-request": VoteRequest,
  "consensus-proof-request": ProofRequest,
  "consensus-model-signature-request": ModelSignatureRequest,
  "consensus-validator-signature-request": ValidatorSignatureRequest,
  "consensus-proof-document": ProofDocument,
  "consensus-active-sessions": ActiveSessions,
  // Releases of the areas (docs/releases.md)
  "release-table-changes": TableChanges,
  // Balance
  "balance-v1": BalanceV1,
  "balance-v2": BalanceV2,
  // v1 → v2 migration (data/migration/)
  "migration-leaf": MigrationLeaf,
  "migration-mismatch": MigrationMismatch,
  "migration-proof": MigrationProof,
  "migration-summary": MigrationSummary,
} as const satisfies Record<string, z.ZodType>;

export type PublishedSchemaName = keyof typeof publishedSchemas;

/** Registry names in a stable (sorted) order. */
export const publishedSchemaNames: readonly PublishedSchemaName[] = (
  Object.keys(publishedSchemas) as PublishedSchemaName[]
).sort();
