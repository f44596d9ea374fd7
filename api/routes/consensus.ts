/**
 * The consensus routes (docs/consensus.md): the cycle, sessions, signed votes and the deliberation
 * proof from generated to sealed, declared in api/routes/consensus-declarations.ts. Thin: the declaration parses the request; a write runs its
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
import { ProofRequest } from "../../core/schemas/consensus.ts";
import { sealedProofFile } from "../../store/consensus-registry.ts";
import { consensusRefused } from "../problems/refusals.ts";
import { problem } from "../problems/problem.ts";
import type { Platform } from "../sources/platform.ts";
import { addRoute, routeGroup, type RouteGroup } from "../openapi/route.ts";
import { writeRoutes } from "../openapi/write-route.ts";
import {
  CONSENSUS_WRITE,
  NO_STORE_HEADERS,
  cycleRoute,
  cycleUpdateRoute,
  sessionsRoute,
  openSessionRoute,
  voteRoute,
  generateProofRoute,
  modelSignatureRoute,
  validatorRoute,
  proofRoute,
  closeRoute,
} from "./consensus-declarations.ts";

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
    const request = c.req.valid("json") as ProofRequest; // `context` holds parsed JSON (JsonValue, consensus-declarations.ts)
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
