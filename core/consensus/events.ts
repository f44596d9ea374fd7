/**
 * The ledger events of consensus: sentinels (the offices, and the heartbeats that carry their GI),
 * their attestations, sessions and votes, deliberation proofs through their lifecycle, and the
 * current cycle. They join the ledger's event registry (core/events/registry.ts), as every domain's
 * do: an append with an invalid payload is refused before anything is written, and `verify` checks
 * every stored entry against the same schemas. The README lists these types.
 */
import { z } from "zod";
import { OfficePriority, ProofInputs } from "../schemas/consensus.ts";
import {
  Cathedral,
  Cycle,
  Digest,
  Identifier,
  NonEmptyString,
  PublicKeyHex,
  Score01,
  SignatureAlgorithm,
  SignatureHex,
} from "../schemas/common.ts";

const Vote = z.enum(["APPROVE", "REJECT", "ABSTAIN"]);
const Outcome = z.enum(["APPROVED", "REJECTED", "NO_QUORUM"]);

export const consensusEventSchemas = {
  // Sentinels and their work.
  // With a `priority`, the sentinel is a consensus office (core/consensus/state.ts says when it counts).
  "sentinel.registered": z.strictObject({
    sentinel: Identifier,
    cathedral: Cathedral,
    algorithm: SignatureAlgorithm,
    public_key: PublicKeyHex,
    priority: OfficePriority.optional(),
  }),
  // A heartbeat carries what the coordination score is computed from (spec: apps, packages,
  // workflows the sentinel looks after, and its drift); uptime comes from the heartbeat history.
  "sentinel.heartbeat": z.strictObject({
    sentinel: Identifier,
    status: z.enum(["operational", "degraded", "offline"]),
    gi_score: Score01,
    apps: z.int().nonnegative(),
    packages: z.int().nonnegative(),
    workflows: z.int().nonnegative(),
    drift: z.number().min(0).max(10),
  }),
  attestation: z.strictObject({
    agent: Identifier,
    subject: NonEmptyString,
    attestation_hash: Digest,
    algorithm: SignatureAlgorithm,
    public_key: PublicKeyHex,
    signature: SignatureHex,
  }),
  // Consensus sessions and deliberation proofs.
  "consensus.opened": z.strictObject({
    session_id: Identifier,
    cycle: Cycle,
    room: NonEmptyString,
    gi_baseline: Score01,
    participants: z.array(Identifier).min(1),
  }),
  "consensus.vote": z.strictObject({
    session_id: Identifier,
    participant: Identifier,
    vote: Vote,
    signature: SignatureHex,
  }),
  "consensus.evaluated": z.strictObject({
    session_id: Identifier,
    delibproof_id: Identifier,
    outcome: Outcome,
    gi_delta: z.number(),
  }),
  // The deliberation proof's lifecycle (core/consensus): generated → signed by each participant →
  // validated → sealed (appended with consensus.evaluated in one transaction).
  "delibproof.generated": ProofInputs.extend({ session_id: Identifier }),
  "delibproof.signed": z.strictObject({ delib_id: Identifier, participant: Identifier, signature: SignatureHex }),
  "delibproof.validated": z.strictObject({
    delib_id: Identifier,
    validator: Identifier,
    gi: Score01,
    signature: SignatureHex,
  }),
  "delibproof.sealed": z.strictObject({ delibproof_id: Identifier, proof_digest: Digest, merkle_root: Digest }),
  // The current cycle and its GI (POST /api/cycle/current).
  "cycle.updated": z.strictObject({ cycle: Cycle, gi: Score01 }),
} as const satisfies Record<string, z.ZodType>;

/** The consensus event types, and the payload of each as its schema reads it. */
export type ConsensusEventType = keyof typeof consensusEventSchemas;
export type ConsensusEventPayload<T extends ConsensusEventType> = z.infer<(typeof consensusEventSchemas)[T]>;
