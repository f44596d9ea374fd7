/**
 * The consensus routes (docs/consensus.md): the cycle, sessions, signed votes and the deliberation
 * proof from generated to sealed. Thin: the declaration parses the request; a write runs its
 * decision (core/consensus/decide.ts) inside one ledger write — `ledger.write(decide)`, with the
 * registry caught up to the ledger's tail inside the write transaction, so concurrent requests, and
 * other processes on the same ledger file, decide in turn on what the others appended — then
 * answers. A refusal is the problem `consensus-<code>` (api/problems/consensus.ts). Every write is
 * declared through api/openapi/write-route.ts: it needs a token with `consensus.write`, checked before the
 * write and again inside it (401 otherwise), and answers `Ledger-Seq`. Without a ledger the routes
 * answer 503 `ledger-unavailable` (the writes 401 first: they fail closed).
 *
 *   GET  /api/cycle/current                       200 {cycle, gi, room}; 404 before the first record
 *   POST /api/cycle/current {cycle, gi}           200 {cycle, gi, room} as recorded
 *   GET  /v1/consensus/sessions                   200 {sessions}: the active sessions, oldest first
 *   POST /v1/consensus/sessions {cycle, room, gi_baseline, participants}
 *                                                 201 {sessionId}; 200 null while one is active for the cycle and room
 *   POST /v1/consensus/sessions/{id}/votes {participant, vote, signature}             201 the vote and the tally
 *   POST /v1/consensus/sessions/{id}/proof {question, context, rounds, constitutional_check}
 *                                                 201 the proof document, state generated
 *   POST /v1/consensus/proofs/{delib_id}/signatures {participant, signature}         200 the proof document
 *   POST /v1/consensus/proofs/{delib_id}/validator {validator, signature}            200 the proof document
 *   GET  /v1/consensus/proofs/{delib_id}          200 the proof document; once sealed with its anchor
 *   POST /v1/consensus/sessions/{id}/close {outcome, delibproof_id, gi_delta}        200 the result and the seal
 *
 * A proof document is sent as its JCS text and one LF: the body of GET …/proofs/{delib_id} is the
 * file `npm run consensus -- verify-proof` checks.
 */
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { canonicalize } from "../../core/canonical.ts";
import {
  decideCloseSession,
  decideCycleUpdate,
  decideGenerateProof,
  decideModelSignature,
  decideOpenSession,
  decideValidatorSignature,
  decideVote,
  type Decision,
} from "../../core/consensus/decide.ts";
import type { ConsensusRefusal } from "../../core/consensus/refusal.ts";
import { consensusProjection } from "../../core/consensus/state.ts";
import type { ConsensusState } from "../../core/consensus/model.ts";
import { activeSessions, currentRoom, cycleInfo, proofDocument } from "../../core/consensus/views.ts";
import type { LedgerStore, WriteTail } from "../../core/ledger/store.ts";
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
import { sealedProofFile } from "../../store/consensus-registry.ts";
import { TallyMember } from "../problems/consensus.ts";
import { consensusRefused } from "../problems/refusals.ts";
import { WRITE_TOKEN_SCHEME } from "../openapi/document.ts";
import { problem } from "../problems/problem.ts";
import { body, component, headers, published } from "../openapi/responses.ts";
import type { Platform } from "../sources/platform.ts";
import { addRoute, defineRoute, routeGroup, type RouteGroup } from "../openapi/route.ts";
import { writeRoutes } from "../openapi/write-route.ts";
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
const NO_STORE_HEADERS = { "Cache-Control": "no-store" };

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

// ---------------------------------------------------------------------------------------------
// Handlers

function ledgerUnavailable(c: Context): Response {
  return problem(c, "ledger-unavailable", "This server has no ledger: the consensus routes cannot answer.");
}

/** A consensus decision as a write's decide: the registry caught up to the tail, inside the write transaction. */
const atTail =
  <R>(decide: (state: ConsensusState) => Decision<R>) =>
  (tail: WriteTail): Decision<R> =>
    decide(tail.state(consensusProjection));

/** The proof document of `delibId` as the proof file: JCS text and one LF (with its anchor once sealed). */
async function proofAnswer(
  c: Context,
  ledger: LedgerStore,
  delibId: string,
  status: ContentfulStatusCode,
): Promise<Response> {
  const state = await ledger.state(consensusProjection);
  const proof = state.proofs.get(delibId);
  // A seal no signed checkpoint covers yet (appended by a writer without the ledger key) is answered without its anchor.
  const text =
    (proof?.seal ? await sealedProofFile(ledger, state, delibId) : null) ??
    `${canonicalize(proofDocument(state, delibId))}\n`;
  return c.body(text, status, { "Content-Type": "application/json", ...NO_STORE_HEADERS });
}

export function consensusRoutes(platform: Platform | undefined): RouteGroup {
  const routes = routeGroup();
  const ledger = platform?.ledger;
  const writes = writeRoutes(routes, platform, (c, failure: { refusal: ConsensusRefusal }) =>
    consensusRefused(c, failure.refusal),
  );

  addRoute(routes, cycleRoute, async (c) => {
    if (!ledger) return ledgerUnavailable(c);
    const info = cycleInfo(await ledger.state(consensusProjection));
    if (!info) return problem(c, "not-found", "No cycle has been recorded on the ledger yet.");
    return c.json(info, 200, NO_STORE_HEADERS);
  });

  writes.add(cycleUpdateRoute, CONSENSUS_WRITE, async (c, write) => {
    const update = c.req.valid("json");
    // The room is the one at the moment of the record (the update changes no session).
    const out = await write.commit(
      atTail((s) => {
        const d = decideCycleUpdate(s, update);
        return d.ok ? { ...d, result: { ...d.result, room: currentRoom(s) } } : d;
      }),
    );
    if (!out.ok) return out.response;
    return c.json(out.result, 200, NO_STORE_HEADERS);
  });

  addRoute(routes, sessionsRoute, async (c) => {
    if (!ledger) return ledgerUnavailable(c);
    return c.json(activeSessions(await ledger.state(consensusProjection)), 200, NO_STORE_HEADERS);
  });

  writes.add(openSessionRoute, CONSENSUS_WRITE, async (c, write) => {
    const input = c.req.valid("json");
    const out = await write.commit(atTail((s) => decideOpenSession(s, input)));
    if (!out.ok) return out.response;
    return out.result === null ? c.json(null, 200, NO_STORE_HEADERS) : c.json(out.result, 201, NO_STORE_HEADERS);
  });

  writes.add(voteRoute, CONSENSUS_WRITE, async (c, write) => {
    const { id } = c.req.valid("param");
    const vote = c.req.valid("json");
    const out = await write.commit(atTail((s) => decideVote(s, id, vote)));
    if (!out.ok) return out.response;
    return c.json(
      {
        session_id: id,
        participant: vote.participant,
        vote: vote.vote,
        ledger_seq: out.entries[0]!.seq,
        tally: out.result.tally,
      },
      201,
      NO_STORE_HEADERS,
    );
  });

  writes.add(generateProofRoute, CONSENSUS_WRITE, async (c, write) => {
    const { id } = c.req.valid("param");
    const request = c.req.valid("json") as ProofRequest; // `context` holds parsed JSON (see JsonValue)
    const out = await write.commit(atTail((s) => decideGenerateProof(s, id, request)));
    if (!out.ok) return out.response;
    return proofAnswer(c, write.platform.ledger, out.result.inputs.delib_id, 201);
  });

  writes.add(modelSignatureRoute, CONSENSUS_WRITE, async (c, write) => {
    const { delib_id } = c.req.valid("param");
    const signature = c.req.valid("json");
    const out = await write.commit(atTail((s) => decideModelSignature(s, delib_id, signature)));
    if (!out.ok) return out.response;
    return proofAnswer(c, write.platform.ledger, delib_id, 200);
  });

  writes.add(validatorRoute, CONSENSUS_WRITE, async (c, write) => {
    const { delib_id } = c.req.valid("param");
    const signature = c.req.valid("json");
    const out = await write.commit(atTail((s) => decideValidatorSignature(s, delib_id, signature)));
    if (!out.ok) return out.response;
    return proofAnswer(c, write.platform.ledger, delib_id, 200);
  });

  addRoute(routes, proofRoute, async (c) => {
    if (!ledger) return ledgerUnavailable(c);
    const { delib_id } = c.req.valid("param");
    if (!(await ledger.state(consensusProjection)).proofs.has(delib_id)) {
      return consensusRefused(c, {
        code: "unknown-proof",
        message: `no deliberation proof ${delib_id}`,
        details: { delib_id },
      });
    }
    return proofAnswer(c, ledger, delib_id, 200);
  });

  writes.add(closeRoute, CONSENSUS_WRITE, async (c, write) => {
    const { id } = c.req.valid("param");
    const { sessionId, ...close } = c.req.valid("json");
    if (sessionId !== undefined && sessionId !== id) {
      return problem(c, "invalid-body", `/sessionId: ${sessionId} is not the session in the path (${id})`, {
        extensions: { invalid_fields: [{ pointer: "/sessionId", reason: `must be ${id}, the session in the path` }] },
      });
    }
    const out = await write.commit(atTail((s) => decideCloseSession(s, { sessionId: id, ...close })));
    if (!out.ok) return out.response;
    const [evaluated, sealed] = out.entries;
    return c.json(
      {
        session_id: id,
        outcome: close.outcome,
        gi_delta: close.gi_delta,
        tally: out.result.tally,
        delib_id: close.delibproof_id,
        proof_digest: out.result.proof_digest,
        evaluated_seq: evaluated!.seq,
        seal: { ledger_seq: sealed!.seq, merkle_root: out.result.merkle_root },
      },
      200,
      NO_STORE_HEADERS,
    );
  });

  return routes;
}
