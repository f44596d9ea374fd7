/**
 * Test support of the consensus routes, shared by their tests, the portal's consensus test and the
 * benchmark: a durable SQLite ledger signed with a fixed test key, offices with deterministic keys
 * and measured GI, operator tokens recorded on the ledger, a real server on loopback, and a client
 * that signs votes, model signatures and the validator's signature as an office would.
 */
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { signToken, tokenClaims, tokenIssuedEvent } from "../../../../core/avm/token.ts";
import {
  decideCloseSession,
  decideCycleUpdate,
  decideGenerateProof,
  decideOpenSession,
  decideRegisterOffice,
  type Decision,
} from "../../../../core/consensus/decide.ts";
import { modelMessage, proofInputsOf, validatorMessage, voteMessage } from "../../../../core/consensus/messages.ts";
import { consensusProjection } from "../../../../core/consensus/state.ts";
import type { ConsensusState } from "../../../../core/consensus/model.ts";
import {
  modelSignatureStep,
  signedModelSignature,
  signedValidation,
  signedVote,
  validatorStep,
  voteStep,
} from "../../../../core/consensus/steps.ts";
import { officeSign, testOffice, type TestOffice } from "../../core/consensus/helpers.ts";
import type { NewEvent } from "../../../../core/ledger/store.ts";
import type { TokenPermission } from "../../../../core/schemas/avm.ts";
import type { ProofDocument, ProofInputs, ProofRequest, VoteValue } from "../../../../core/schemas/consensus.ts";
import { publicKeyFromSecret, sign } from "../../../../core/signature.ts";
import { LEDGER_ORIGIN } from "../../../../store/open-ledger.ts";
import type { Ledger } from "../../../../store/ledger/ledger.ts";
import { openLedgerStore } from "../../../../store/open-ledger.ts";
import { startServer, type RunningServer } from "../../../../api/server/server.ts";

/** The test ledger's checkpoint key (a fixed seed: tests only). */
export const TEST_LEDGER_SIGNER = { name: LEDGER_ORIGIN, secretKeyHex: "4c".repeat(32) };
export const TEST_LEDGER_PUBLIC_KEY = publicKeyFromSecret("ed25519", TEST_LEDGER_SIGNER.secretKeyHex);
/** The test token key. */
export const TEST_TOKEN_SECRET = "6b".repeat(32);
export const TEST_TOKEN_PUBLIC_KEY = publicKeyFromSecret("ed25519", TEST_TOKEN_SECRET);

/** A ledger file as `npm start` opens it (durable commits), signed with the test key. */
export function openTestLedger(
  path: string,
  options: { now?: () => Date; durability?: "full" | "normal" } = {},
): Promise<Ledger> {
  return openLedgerStore({
    path,
    origin: LEDGER_ORIGIN,
    signer: TEST_LEDGER_SIGNER,
    durability: options.durability ?? "full",
    ...(options.now ? { now: options.now } : {}),
  });
}

/** The offices of the tests: two critical, three high (JANUS validates), and three that may not take part. */
export const OFFICES = {
  ATLAS: testOffice("ATLAS", "critical", "FOR-GOVERNMENTS"),
  EVE: testOffice("EVE", "critical", "FOR-PHILOSOPHERS"),
  HERMES: testOffice("HERMES", "high", "FOR-GOVERNMENTS"),
  SOPHIA: testOffice("SOPHIA", "high", "FOR-PHILOSOPHERS"),
  JANUS: testOffice("JANUS", "high", "DIPLOMACY"),
  ORACLE: testOffice("ORACLE", "critical", "DIPLOMACY"),
  /** GI 0.91: below the minimum. */
  CASSANDRA: testOffice("CASSANDRA", "critical", "FOR-ACADEMICS"),
  /** No heartbeat: no measured GI. */
  SILENT: testOffice("SILENT", "high", "FOR-ECONOMISTS"),
} as const satisfies Record<string, TestOffice>;
export type OfficeName = keyof typeof OFFICES;

export const PARTICIPANTS: readonly OfficeName[] = ["ATLAS", "EVE", "HERMES", "SOPHIA"];
export const DEFAULT_GI: Partial<Record<OfficeName, number>> = {
  ATLAS: 0.97,
  EVE: 0.981,
  HERMES: 0.962,
  SOPHIA: 0.975,
  JANUS: 0.99,
  ORACLE: 0.955,
  CASSANDRA: 0.91,
};

export function heartbeatEvent(sentinel: string, gi: number): NewEvent {
  return {
    type: "sentinel.heartbeat",
    payload: { sentinel, status: "operational", gi_score: gi, apps: 3, packages: 4, workflows: 2, drift: 0.5 },
  };
}

/** Registers every test office (through the decision) and records its heartbeat GI. */
export async function registerOffices(
  ledger: Ledger,
  gi: Partial<Record<OfficeName, number>> = DEFAULT_GI,
): Promise<void> {
  for (const o of Object.values(OFFICES)) {
    const d = decideRegisterOffice(await ledger.state(consensusProjection), {
      id: o.id,
      priority: o.priority,
      cathedral: o.cathedral,
      public_key: o.public_key,
    });
    if (!d.ok) throw new Error(d.refusal.message);
    const g = gi[o.id as OfficeName];
    await ledger.append(g === undefined ? d.events : [...d.events, heartbeatEvent(o.id, g)]);
  }
}

/** A token recorded on the ledger (`token.issued`) and signed with the test token key. */
export async function issueToken(
  ledger: Ledger,
  options: { permissions?: TokenPermission[]; ttlSeconds?: number; nowMs?: number; record?: boolean } = {},
): Promise<{ token: string; jti: string }> {
  const claims = tokenClaims(
    {
      jti: randomUUID(),
      subject: "consensus-test",
      permissions: options.permissions ?? ["consensus.write"],
      ttlSeconds: options.ttlSeconds ?? 3600,
    },
    options.nowMs ?? Date.now(),
  );
  if (options.record !== false) await ledger.append([tokenIssuedEvent(claims)]);
  return { token: await signToken(claims, TEST_TOKEN_SECRET), jti: claims.jti };
}

/** The API on a free loopback port over `ledger`, with the test token key. */
export function serveLedger(
  ledger: Ledger,
  dataDir: string,
  options: { now?: () => Date } = {},
): Promise<RunningServer> {
  return startServer({
    host: "127.0.0.1",
    port: 0,
    dataDir,
    keysFile: join(dataDir, "access.sqlite"),
    log: () => {},
    ledger,
    tokenPublicKeyHex: TEST_TOKEN_PUBLIC_KEY,
    ...(options.now ? { now: options.now } : {}),
  });
}

export function proofRequest(participants: readonly string[] = PARTICIPANTS): ProofRequest {
  return {
    question: "Publish the drift analysis weekly?",
    context: { source: "consensus-test", urgency: 2, tags: ["drift", null] },
    rounds: [
      {
        round: 1,
        statements: participants.map((p) => ({
          participant: p,
          position: "APPROVE" as const,
          summary: `${p} agrees.`,
        })),
      },
    ],
    constitutional_check: { transparency: true, bounded_authority: true },
  };
}

export interface Answer<T = unknown> {
  status: number;
  body: T;
  type: string | null;
  text: string;
}

/** The consensus API as an office's client calls it: JSON in, JSON out, signatures made here. */
export class ConsensusClient {
  readonly base: string;
  token: string | null;

  constructor(base: string, token: string | null) {
    this.base = base;
    this.token = token;
  }

  async request<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
    token: string | null = this.token,
  ): Promise<Answer<T>> {
    const headers: Record<string, string> = {};
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (token !== null) headers.Authorization = `Bearer ${token}`;
    const res = await fetch(this.base + path, {
      method,
      headers,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return {
      status: res.status,
      body: (text === "" ? undefined : JSON.parse(text)) as T,
      type: res.headers.get("content-type"),
      text,
    };
  }

  setCycle(cycle: string, gi: number) {
    return this.request("POST", "/api/cycle/current", { cycle, gi });
  }

  open(room: string, participants: readonly string[] = PARTICIPANTS, cycle = "C-151") {
    return this.request<{ sessionId: string } | null>("POST", "/v1/consensus/sessions", {
      cycle,
      room,
      gi_baseline: 0.97,
      participants,
    });
  }

  vote(sessionId: string, office: OfficeName, vote: VoteValue, signer: TestOffice = OFFICES[office]) {
    const signature = sign("ed25519", signer.secret, voteMessage({ participant: office, session_id: sessionId, vote }));
    return this.request("POST", `/v1/consensus/sessions/${sessionId}/votes`, { participant: office, vote, signature });
  }

  generate(sessionId: string, request: ProofRequest = proofRequest()) {
    return this.request<ProofDocument>("POST", `/v1/consensus/sessions/${sessionId}/proof`, request);
  }

  modelSign(doc: ProofDocument, office: OfficeName, signer: TestOffice = OFFICES[office]) {
    const signature = sign("ed25519", signer.secret, modelMessage(proofInputsOf(doc.proof)));
    return this.request<ProofDocument>("POST", `/v1/consensus/proofs/${doc.proof.delib_id}/signatures`, {
      participant: office,
      signature,
    });
  }

  validate(doc: ProofDocument, office: OfficeName, signer: TestOffice = OFFICES[office]) {
    const signature = sign(
      "ed25519",
      signer.secret,
      validatorMessage(proofInputsOf(doc.proof), doc.proof.model_signatures),
    );
    return this.request<ProofDocument>("POST", `/v1/consensus/proofs/${doc.proof.delib_id}/validator`, {
      validator: office,
      signature,
    });
  }

  close(sessionId: string, body: { outcome: string; delibproof_id: string; gi_delta: number; sessionId?: string }) {
    return this.request("POST", `/v1/consensus/sessions/${sessionId}/close`, body);
  }

  proof(delibId: string) {
    return this.request<ProofDocument>("GET", `/v1/consensus/proofs/${delibId}`);
  }

  /**
   * One complete session through the API: open, the votes, the proof, four model signatures, the
   * validator (JANUS), close with the outcome the votes give. Throws on any unexpected answer.
   */
  async completeSession(
    room: string,
    votes: Partial<Record<OfficeName, VoteValue>> = {
      ATLAS: "APPROVE",
      EVE: "APPROVE",
      HERMES: "APPROVE",
      SOPHIA: "REJECT",
    },
    cycle = "C-151",
  ): Promise<{ sessionId: string; delibId: string; outcome: string }> {
    const expect = (a: Answer, status: number, step: string) => {
      if (a.status !== status) throw new Error(`${step}: ${a.status} ${a.text}`);
    };
    const opened = await this.open(room, PARTICIPANTS, cycle);
    expect(opened, 201, "open");
    const sessionId = opened.body!.sessionId;
    for (const [office, vote] of Object.entries(votes))
      expect(await this.vote(sessionId, office as OfficeName, vote), 201, `vote ${office}`);
    let doc = await this.generate(sessionId);
    expect(doc, 201, "proof");
    const generated = doc.body;
    for (const office of PARTICIPANTS) {
      doc = await this.modelSign(generated, office);
      expect(doc, 200, `signature ${office}`);
    }
    const validated = await this.validate(doc.body, "JANUS");
    expect(validated, 200, "validator");
    const approve = Object.values(votes).filter((v) => v === "APPROVE").length;
    const outcome = approve >= 3 ? "APPROVED" : Object.keys(votes).length === 4 ? "REJECTED" : "NO_QUORUM";
    const delibId = generated.proof.delib_id;
    expect(await this.close(sessionId, { outcome, delibproof_id: delibId, gi_delta: 0.002 }), 200, "close");
    return { sessionId, delibId, outcome };
  }
}

// ---------------------------------------------------------------------------------------------
// Sessions staged through the decisions, without HTTP

/** Runs a decision against the ledger's registry and appends what it accepts; throws on a refusal. */
export async function decideAndAppend<R>(ledger: Ledger, decide: (state: ConsensusState) => Decision<R>): Promise<R> {
  const d = decide(await ledger.state(consensusProjection));
  if (!d.ok) throw new Error(`${d.refusal.code}: ${d.refusal.message}`);
  if (d.events.length > 0) await ledger.append(d.events);
  return d.result;
}

async function signVote(ledger: Ledger, sessionId: string, office: OfficeName, vote: VoteValue): Promise<void> {
  await decideAndAppend(ledger, (s) => voteStep(s, sessionId, office, vote, officeSign(OFFICES[office])));
}

async function modelSignAll(ledger: Ledger, inputs: ProofInputs, offices: readonly OfficeName[]): Promise<void> {
  for (const office of offices)
    await decideAndAppend(ledger, (s) => modelSignatureStep(s, inputs.delib_id, office, officeSign(OFFICES[office])));
}

async function validatorSign(ledger: Ledger, inputs: ProofInputs): Promise<void> {
  await decideAndAppend(ledger, (s) => validatorStep(s, inputs.delib_id, "JANUS", officeSign(OFFICES.JANUS)));
}

const APPROVING: [OfficeName, VoteValue][] = [
  ["ATLAS", "APPROVE"],
  ["EVE", "APPROVE"],
  ["HERMES", "APPROVE"],
  ["SOPHIA", "REJECT"],
];

/**
 * One session waiting at every step, in cycle C-151, and one sealed, each ready for exactly one
 * more valid request — what a suite that sends each route one valid request needs: the room a new
 * session may open in, a session to vote in, one to generate the proof of, a proof missing its last
 * model signature, one waiting for its validator, a session ready to close, a sealed proof.
 */
export async function stageSessions(ledger: Ledger): Promise<{
  cycle: string;
  freeRoom: string;
  voting: { sessionId: string; vote: { participant: string; vote: VoteValue; signature: string } };
  proving: { sessionId: string; request: ProofRequest };
  signing: { delibId: string; signature: { participant: string; signature: string } };
  validating: { delibId: string; signature: { validator: string; signature: string } };
  closing: { sessionId: string; close: { outcome: string; delibproof_id: string; gi_delta: number } };
  sealed: { sessionId: string; delibId: string };
}> {
  const cycle = "C-151";
  await decideAndAppend(ledger, (s) => decideCycleUpdate(s, { cycle, gi: 0.97 }));
  const open = async (room: string) =>
    (await decideAndAppend(ledger, (s) =>
      decideOpenSession(s, { cycle, room, gi_baseline: 0.97, participants: [...PARTICIPANTS] }),
    ))!.sessionId;
  const generate = async (sessionId: string) =>
    (await decideAndAppend(ledger, (s) => decideGenerateProof(s, sessionId, proofRequest()))).inputs;

  const sealedId = await open("sealed");
  for (const [o, v] of APPROVING) await signVote(ledger, sealedId, o, v);
  const sealedInputs = await generate(sealedId);
  await modelSignAll(ledger, sealedInputs, PARTICIPANTS);
  await validatorSign(ledger, sealedInputs);
  await decideAndAppend(ledger, (s) =>
    decideCloseSession(s, {
      sessionId: sealedId,
      outcome: "APPROVED",
      delibproof_id: sealedInputs.delib_id,
      gi_delta: 0.002,
    }),
  );

  const votingId = await open("voting");
  const provingId = await open("proving");
  const signingId = await open("signing");
  const signingInputs = await generate(signingId);
  await modelSignAll(ledger, signingInputs, PARTICIPANTS.slice(0, 3));
  const validatingId = await open("validating");
  const validatingInputs = await generate(validatingId);
  await modelSignAll(ledger, validatingInputs, PARTICIPANTS);
  const closingId = await open("closing");
  for (const [o, v] of APPROVING) await signVote(ledger, closingId, o, v);
  const closingInputs = await generate(closingId);
  await modelSignAll(ledger, closingInputs, PARTICIPANTS);
  await validatorSign(ledger, closingInputs);

  const state = await ledger.state(consensusProjection);
  const last = PARTICIPANTS[3]!;
  return {
    cycle,
    freeRoom: "opening",
    voting: { sessionId: votingId, vote: signedVote(votingId, "ATLAS", "APPROVE", officeSign(OFFICES.ATLAS)) },
    proving: { sessionId: provingId, request: proofRequest() },
    signing: {
      delibId: signingInputs.delib_id,
      signature: signedModelSignature(state, signingInputs.delib_id, last, officeSign(OFFICES[last])),
    },
    validating: {
      delibId: validatingInputs.delib_id,
      signature: signedValidation(state, validatingInputs.delib_id, "JANUS", officeSign(OFFICES.JANUS)),
    },
    closing: {
      sessionId: closingId,
      close: { outcome: "APPROVED", delibproof_id: closingInputs.delib_id, gi_delta: 0.002 },
    },
    sealed: { sessionId: sealedId, delibId: sealedInputs.delib_id },
  };
}
