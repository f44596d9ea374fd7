/**
 * The declarations of the consensus routes (api/routes/consensus.ts runs them): each route's
 * request, its responses and their examples (api/openapi/examples/consensus.ts), and the record
 * schemas they share, as /openapi.json describes them.
 */
import { z } from "@hono/zod-openapi";
import { Digest, Identifier, NonNegativeInt } from "../../core/schemas/common.ts";
import {
  CloseSessionInput,
  ConsensusOutcome,
  CycleUpdateRequest,
  DeliberationProof,
  LedgerEntryRecord,
  ModelSignatureRequest,
  OpenSessionInput,
  ProofAnchor,
  ProofDocument,
  ProofRequest,
  SessionId,
  ValidatorSignatureRequest,
  VoteRequest,
  VoteValue,
} from "../../core/schemas/consensus.ts";
import { examples } from "../../core/schemas/examples.ts";
import { publishedSchemas, type PublishedSchemaName } from "../../core/schemas/index.ts";
import { TallyMember } from "../problems/consensus.ts";
import { WRITE_TOKEN_SCHEME } from "../openapi/document.ts";
import { body, component, headers, published } from "../openapi/responses.ts";
import { defineRoute } from "../openapi/route.ts";
import {
  CONSENSUS_WRITE_EXAMPLES as EXAMPLES,
  DELIB as EXAMPLE_DELIB,
  SESSION as EXAMPLE_SESSION,
} from "../openapi/examples/consensus.ts";

/** The permission every consensus write needs (spec, "Consensus interface"). */
export const CONSENSUS_WRITE = "consensus.write";

const TAGS = ["Consensus"];
const WRITE = [{ [WRITE_TOKEN_SCHEME]: [] }];
/** Live state: never cached. */
const NO_STORE = headers("Cache-Control");
/** A write's answer: never cached, and the seq of the first entry it appended (api/openapi/write-route.ts). */
const WRITTEN = headers("Cache-Control", "Ledger-Seq");
export const NO_STORE_HEADERS = { "Cache-Control": "no-store" };

const ProofParams = z.strictObject({
  delib_id: Identifier.meta({ description: "The proof id (`DP-<cycle number>-<k>`)", example: "DP-151-1" }),
});
// The writes' examples name the session their story opens (api/openapi/examples/consensus.ts).
const SessionParams = z.strictObject({
  id: SessionId.meta({ description: "The session id (`CS-<cycle number>-<k>`)", example: EXAMPLE_SESSION }),
});
const WriteProofParams = z.strictObject({
  delib_id: Identifier.meta({ description: "The proof id (`DP-<cycle number>-<k>`)", example: EXAMPLE_DELIB }),
});

/** A published record's schema (core/schemas) as its named component, with its type kept for the handler. */
function record<S extends z.ZodType>(name: PublishedSchemaName, schema: S): { schema: S; example?: unknown } {
  if ((publishedSchemas[name] as z.ZodType) !== schema) throw new Error(`${name} is not the schema given`);
  return published(name) as { schema: S; example?: unknown };
}

/**
 * Any JSON value. The describer (zod-to-openapi) cannot describe the recursive `z.json()` of the
 * core schemas (unnamed it recurses forever; named, its `oneOf` refuses `null` in arrays), so the
 * schemas below are the core ones with their JSON-valued members as this: a body is parsed JSON,
 * so every value it holds is a JSON value and the validation is the same.
 */
const JsonValue = z.unknown().openapi("json-value", { description: "Any JSON value" });
const JsonObject = z.record(z.string(), JsonValue);

const ProofRequestBody = component(
  "consensus-proof-request",
  ProofRequest.extend({ context: JsonObject }),
  examples["consensus-proof-request"],
);
const ProofDocumentBody = component(
  "consensus-proof-document",
  ProofDocument.extend({
    proof: DeliberationProof.extend({ context: JsonObject }),
    anchor: ProofAnchor.extend({ entry: LedgerEntryRecord.extend({ payload: JsonObject }) }).optional(),
  }),
  examples["consensus-proof-document"],
);

const jsonBody = <S extends z.ZodType>(media: { schema: S; example?: unknown }) => ({
  body: { required: true, content: { "application/json": media } },
});

const VoteResult = component(
  "consensus-vote-result",
  z.strictObject({
    session_id: SessionId,
    participant: Identifier,
    vote: VoteValue,
    ledger_seq: NonNegativeInt.meta({ description: "The `consensus.vote` entry" }),
    tally: TallyMember.openapi({
      description: "The session's votes so far, this one counted (by key); `outcome` is what they give now",
    }),
  }),
  {
    session_id: "CS-151-1",
    participant: "ATLAS",
    vote: "APPROVE",
    ledger_seq: 1042,
    tally: { participants: 4, voted: 1, approve: 1, reject: 0, abstain: 0, outcome: "NO_QUORUM" },
  },
);

const CloseRequest = component(
  "consensus-close-request",
  z.strictObject({
    sessionId: SessionId.optional().meta({
      description: "The spec's close input names the session; when given it must be the one in the path",
    }),
    outcome: ConsensusOutcome,
    delibproof_id: Identifier,
    gi_delta: CloseSessionInput.shape.gi_delta,
  }),
  { outcome: "APPROVED", delibproof_id: "DP-151-1", gi_delta: 0.002 },
);

const CloseResult = component(
  "consensus-close-result",
  z.strictObject({
    session_id: SessionId,
    outcome: ConsensusOutcome,
    gi_delta: CloseSessionInput.shape.gi_delta,
    tally: TallyMember,
    delib_id: Identifier,
    proof_digest: Digest,
    evaluated_seq: NonNegativeInt.meta({ description: "The `consensus.evaluated` entry" }),
    seal: z.strictObject({
      ledger_seq: NonNegativeInt.meta({ description: "The `delibproof.sealed` entry" }),
      merkle_root: Digest,
    }),
  }),
  {
    session_id: "CS-151-1",
    outcome: "APPROVED",
    gi_delta: 0.002,
    tally: { participants: 4, voted: 4, approve: 3, reject: 1, abstain: 0, outcome: "APPROVED" },
    delib_id: "DP-151-1",
    proof_digest: `sha256:${"ab".repeat(32)}`,
    evaluated_seq: 1050,
    seal: { ledger_seq: 1051, merkle_root: `sha256:${"cd".repeat(32)}` },
  },
);

const proofBody = (description: string, fields = NO_STORE, example?: unknown) =>
  body(
    description,
    { "application/json": { schema: ProofDocumentBody, ...(example !== undefined ? { example } : {}) } },
    fields,
  );

// ---------------------------------------------------------------------------------------------
// Declarations

export const cycleRoute = defineRoute({
  method: "get",
  path: "/api/cycle/current",
  tags: TAGS,
  summary: "The current cycle",
  description:
    "The cycle and its office integrity (`gi`: the offices' mean, not the pulse's GI) last recorded (`POST /api/cycle/current`) and, as `room`, the room of the newest active session (`main` when none is active). 404 before the first record.",
  responses: { 200: body("The current cycle", { "application/json": published("consensus-cycle-info") }, NO_STORE) },
  problems: ["not-found", "ledger-unavailable"],
});

export const cycleUpdateRoute = defineRoute({
  method: "post",
  path: "/api/cycle/current",
  tags: TAGS,
  summary: "Record the current cycle and its office integrity (`gi`)",
  description: "Appends `cycle.updated`; the cycle never goes back (409). Answers the cycle info as recorded.",
  security: WRITE,
  request: jsonBody({
    ...record("consensus-cycle-update", CycleUpdateRequest),
    example: EXAMPLES.postApiCycleCurrent.request,
  }),
  responses: {
    200: body(
      "The cycle as recorded",
      { "application/json": { ...published("consensus-cycle-info"), example: EXAMPLES.postApiCycleCurrent.response } },
      WRITTEN,
    ),
  },
  problems: ["consensus-cycle-regressed", "ledger-unavailable"],
});

export const sessionsRoute = defineRoute({
  method: "get",
  path: "/v1/consensus/sessions",
  tags: TAGS,
  summary: "The active sessions",
  description:
    "Sessions opened and not closed, oldest first: participants with their priority, cathedral, office integrity at opening and now, `opened_at`, the votes so far (not their signatures) and the proof's state.",
  responses: {
    200: body("The active sessions", { "application/json": published("consensus-active-sessions") }, NO_STORE),
  },
  problems: ["ledger-unavailable"],
});

export const openSessionRoute = defineRoute({
  method: "post",
  path: "/v1/consensus/sessions",
  tags: TAGS,
  summary: "Open a session",
  description:
    "Four distinct registered offices, two critical- and two high-priority, each with measured office integrity (`gi`) ≥ 0.95 (every one below is named with its own). The duplicate guard is the cycle plus the room: while a session is active for them the answer is 200 with `null` and nothing is recorded (rule 4: no result, not a fault). The guard is decided inside the ledger's write transaction, so concurrent opens — from any number of processes on the same ledger — open one session.",
  security: WRITE,
  request: jsonBody({
    ...record("consensus-open-session-input", OpenSessionInput),
    example: EXAMPLES.postV1ConsensusSessions.request,
  }),
  responses: {
    201: body(
      "The session opened",
      {
        "application/json": {
          schema: component("consensus-session-opened", z.strictObject({ sessionId: SessionId }), {
            sessionId: "CS-151-1",
          }),
          example: EXAMPLES.postV1ConsensusSessions.response,
        },
      },
      WRITTEN,
    ),
    200: body(
      "A session is already active for this cycle and room: no result",
      { "application/json": { schema: z.null(), example: null } },
      NO_STORE,
    ),
  },
  problems: [
    "consensus-priority-mix",
    "consensus-unknown-office",
    "consensus-gi-unmeasured",
    "consensus-gi-below-minimum",
    "ledger-unavailable",
  ],
});

export const voteRoute = defineRoute({
  method: "post",
  path: "/v1/consensus/sessions/{id}/votes",
  tags: TAGS,
  summary: "Cast a participant's signed vote",
  description:
    '`signature`: Ed25519 by the participant\'s registered key over the JCS of `{"participant", "session_id", "vote"}`. Participants only, one vote each (counted by key); recorded as `consensus.vote`. Generating the proof closes the ballot.',
  security: WRITE,
  request: {
    params: SessionParams,
    ...jsonBody({
      ...record("consensus-vote-request", VoteRequest),
      example: EXAMPLES.postV1ConsensusSessionsByIdVotes.request,
    }),
  },
  responses: {
    201: body(
      "The vote recorded, and the tally with it",
      { "application/json": { schema: VoteResult, example: EXAMPLES.postV1ConsensusSessionsByIdVotes.response } },
      WRITTEN,
    ),
  },
  problems: [
    "consensus-unknown-session",
    "consensus-session-closed",
    "consensus-voting-closed",
    "consensus-not-a-participant",
    "consensus-already-voted",
    "consensus-bad-signature",
    "ledger-unavailable",
  ],
});

export const generateProofRoute = defineRoute({
  method: "post",
  path: "/v1/consensus/sessions/{id}/proof",
  tags: TAGS,
  summary: "Generate the session's deliberation proof (step 1)",
  description:
    "From the caller's question, context, rounds and constitutional check; `delib_id`, `consensus` (approving votes / participants) and `gi_score` (the participants' mean measured office integrity now) are computed by the server. Closes the ballot. Answers the proof document in state `generated`.",
  security: WRITE,
  request: {
    params: SessionParams,
    ...jsonBody({ schema: ProofRequestBody, example: EXAMPLES.postV1ConsensusSessionsByIdProof.request }),
  },
  responses: { 201: proofBody("The proof, generated", WRITTEN, EXAMPLES.postV1ConsensusSessionsByIdProof.response) },
  problems: [
    "consensus-unknown-session",
    "consensus-session-closed",
    "consensus-proof-exists",
    "consensus-round-participant",
    "consensus-gi-unmeasured",
    "ledger-unavailable",
  ],
});

export const modelSignatureRoute = defineRoute({
  method: "post",
  path: "/v1/consensus/proofs/{delib_id}/signatures",
  tags: TAGS,
  summary: "A participating model signs the proof (step 2)",
  description:
    "`signature`: Ed25519 by the participant's registered key over the JCS of the proof's seven inputs `{delib_id, question, context, rounds, consensus, gi_score, constitutional_check}`. The proof is `model-signed` when all four participants have signed.",
  security: WRITE,
  request: {
    params: WriteProofParams,
    ...jsonBody({
      ...record("consensus-model-signature-request", ModelSignatureRequest),
      example: EXAMPLES.postV1ConsensusProofsByDelibIdSignatures.request,
    }),
  },
  responses: {
    200: proofBody("The proof with the signature", WRITTEN, EXAMPLES.postV1ConsensusProofsByDelibIdSignatures.response),
  },
  problems: [
    "consensus-unknown-proof",
    "consensus-proof-state",
    "consensus-not-a-participant",
    "consensus-already-signed",
    "consensus-bad-signature",
    "ledger-unavailable",
  ],
});

export const validatorRoute = defineRoute({
  method: "post",
  path: "/v1/consensus/proofs/{delib_id}/validator",
  tags: TAGS,
  summary: "The validator signs the proof (step 3)",
  description:
    "A registered office that is not a participant (independence) with measured office integrity ≥ 0.95 signs the JCS of the inputs plus `model_signatures` (participant order); its office integrity is recorded. The proof becomes `validator-signed`.",
  security: WRITE,
  request: {
    params: WriteProofParams,
    ...jsonBody({
      ...record("consensus-validator-signature-request", ValidatorSignatureRequest),
      example: EXAMPLES.postV1ConsensusProofsByDelibIdValidator.request,
    }),
  },
  responses: {
    200: proofBody("The proof, validator-signed", WRITTEN, EXAMPLES.postV1ConsensusProofsByDelibIdValidator.response),
  },
  problems: [
    "consensus-unknown-proof",
    "consensus-proof-state",
    "consensus-unknown-office",
    "consensus-validator-is-participant",
    "consensus-gi-unmeasured",
    "consensus-gi-below-minimum",
    "consensus-bad-signature",
    "ledger-unavailable",
  ],
});

export const proofRoute = defineRoute({
  method: "get",
  path: "/v1/consensus/proofs/{delib_id}",
  tags: TAGS,
  summary: "A deliberation proof",
  description:
    "The proof document in its current state (JCS text and one LF). Once sealed it carries its seal and `anchor`: the `delibproof.sealed` entry, its inclusion proof and the signed checkpoint of that tree — the file `npm run consensus -- verify-proof` checks offline.",
  request: { params: ProofParams },
  responses: { 200: proofBody("The proof document") },
  problems: ["consensus-unknown-proof", "ledger-unavailable"],
});

export const closeRoute = defineRoute({
  method: "post",
  path: "/v1/consensus/sessions/{id}/close",
  tags: TAGS,
  summary: "Close the session and seal its proof (step 4)",
  description:
    "The proof must be validator-signed and the outcome the signed votes' tally (≥ 3 APPROVE of 4 → APPROVED; all voted and fewer → REJECTED; otherwise NO_QUORUM), or 409 naming the tally. Appends `consensus.evaluated` and `delibproof.sealed` (the Merkle root over the proof's parts) in one transaction; the session leaves the active list.",
  security: WRITE,
  request: {
    params: SessionParams,
    ...jsonBody({ schema: CloseRequest, example: EXAMPLES.postV1ConsensusSessionsByIdClose.request }),
  },
  responses: {
    200: body(
      "The session's result and the seal",
      { "application/json": { schema: CloseResult, example: EXAMPLES.postV1ConsensusSessionsByIdClose.response } },
      WRITTEN,
    ),
  },
  problems: [
    "consensus-unknown-session",
    "consensus-session-closed",
    "consensus-unknown-proof",
    "consensus-proof-mismatch",
    "consensus-proof-state",
    "consensus-outcome-disagrees",
    "ledger-unavailable",
  ],
});
