/**
 * `npm run bench -- consensus`: complete consensus sessions per second over HTTP on loopback, with
 * durable writes (synchronous=FULL, group commit) — each session: open, four signed votes, the
 * proof generated, four model signatures, the validator, close (12 write requests, 13 ledger
 * entries) — against the floor of the signature verifications such a session needs, measured in
 * the same run: 9 Ed25519 verifications of its signed messages (4 votes, 4 model signatures, the
 * validator's) and 12 verifications of the operator token (one per write request), done the
 * plainest way: node:crypto with ready KeyObjects, the token's JWS signature checked and its claims
 * parsed. The same verifications through the project's own checks (core/signature.ts verify,
 * core/avm/token.ts verifyToken), the floor before, are printed against it, report only. Reports
 * the ratio and the p50/p99 latency of each step.
 *
 * The API runs in a child process (test/support/api/routes/consensus-race-child.ts, the tests' server over a
 * ledger file); this process is the client. Every signature is made before the clock starts (the
 * session and proof ids are known in advance: one cycle per session), so the client only sends.
 * SESSIONS sessions are run by CONCURRENCY concurrent clients, after WARMUP sessions.
 */
import { spawn } from "node:child_process";
import { createPublicKey, verify as cryptoVerify, type KeyObject } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { avmRegistry } from "../core/avm/registry.ts";
import { verifyToken } from "../core/avm/token.ts";
import { modelMessage, validatorMessage, voteMessage } from "../core/consensus/messages.ts";
import { delibIdFor, roundGi, sessionIdFor } from "../core/consensus/rules.ts";
import type { ModelSignature, ProofInputs, VoteValue } from "../core/schemas/consensus.ts";
import { sign, verify } from "../core/signature.ts";
import {
  DEFAULT_GI,
  issueToken,
  OFFICES,
  openTestLedger,
  PARTICIPANTS,
  proofRequest,
  registerOffices,
  TEST_TOKEN_PUBLIC_KEY,
  type OfficeName,
} from "../test/support/api/routes/consensus.ts";
import { tempDir } from "../test/support/api/helpers.ts";
import { printComparisons } from "./harness.ts";

const SESSIONS = 48;
const WARMUP = 4;
const CONCURRENCY = 8;
const FLOOR_ROUNDS = 3;
/** The DER head of an Ed25519 public key (SPKI); the raw 32 bytes follow. */
const ED25519_SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");
const SERVER = fileURLToPath(new URL("../test/support/api/routes/consensus-race-child.ts", import.meta.url));

const STEPS = ["open", "vote", "proof", "model signature", "validator", "close"] as const;
type Step = (typeof STEPS)[number];

interface Request {
  step: Step;
  path: string;
  body: unknown;
  status: number;
}

interface PreparedSession {
  requests: Request[];
  /** What the server verifies, for the floor: [public key, message, signature]. */
  signatures: [string, Uint8Array, string][];
}

const VOTES: [OfficeName, VoteValue][] = [
  ["ATLAS", "APPROVE"],
  ["EVE", "APPROVE"],
  ["HERMES", "APPROVE"],
  ["SOPHIA", "REJECT"],
];

/** Session `i` (cycle C-<1000 + i>): every request with its signatures, made now. */
function prepare(i: number): PreparedSession {
  const cycle = `C-${1000 + i}`;
  const sessionId = sessionIdFor(cycle, 1);
  const request = proofRequest();
  const gi = roundGi(PARTICIPANTS.reduce((sum, p) => sum + DEFAULT_GI[p]!, 0) / PARTICIPANTS.length);
  const inputs: ProofInputs = {
    delib_id: delibIdFor(sessionId),
    question: request.question,
    context: request.context,
    rounds: request.rounds,
    consensus: 0.75,
    gi_score: gi,
    constitutional_check: request.constitutional_check,
  };
  const signatures: [string, Uint8Array, string][] = [];
  const signed = (office: OfficeName, message: Uint8Array) => {
    const signature = sign("ed25519", OFFICES[office].secret, message);
    signatures.push([OFFICES[office].public_key, message, signature]);
    return signature;
  };
  const requests: Request[] = [
    {
      step: "open",
      path: "/v1/consensus/sessions",
      body: { cycle, room: "bench", gi_baseline: 0.97, participants: PARTICIPANTS },
      status: 201,
    },
  ];
  for (const [office, vote] of VOTES) {
    const signature = signed(office, voteMessage({ participant: office, session_id: sessionId, vote }));
    requests.push({
      step: "vote",
      path: `/v1/consensus/sessions/${sessionId}/votes`,
      body: { participant: office, vote, signature },
      status: 201,
    });
  }
  requests.push({ step: "proof", path: `/v1/consensus/sessions/${sessionId}/proof`, body: request, status: 201 });
  const models: ModelSignature[] = [];
  for (const office of PARTICIPANTS) {
    const signature = signed(office, modelMessage(inputs));
    models.push({ participant: office, public_key: OFFICES[office].public_key, signature });
    requests.push({
      step: "model signature",
      path: `/v1/consensus/proofs/${inputs.delib_id}/signatures`,
      body: { participant: office, signature },
      status: 200,
    });
  }
  const validator = signed("JANUS", validatorMessage(inputs, models));
  requests.push({
    step: "validator",
    path: `/v1/consensus/proofs/${inputs.delib_id}/validator`,
    body: { validator: "JANUS", signature: validator },
    status: 200,
  });
  requests.push({
    step: "close",
    path: `/v1/consensus/sessions/${sessionId}/close`,
    body: { outcome: "APPROVED", delibproof_id: inputs.delib_id, gi_delta: 0.001 },
    status: 200,
  });
  return { requests, signatures };
}

function startServer(ledgerPath: string, dataDir: string): Promise<{ url: string; stop: () => Promise<void> }> {
  mkdirSync(dataDir, { recursive: true });
  const child = spawn(process.execPath, [...process.execArgv, SERVER, ledgerPath, dataDir], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const line = /^(http:\/\/\S+)\n/.exec(out);
      if (line) resolve({ url: line[1]!, stop: async () => (child.stdin.end(), await exited) });
    });
    child.once("exit", (code) => reject(new Error(`the API process exited (${code}) before serving`)));
  });
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function runSessions(
  url: string,
  token: string,
  sessions: readonly PreparedSession[],
  latencies?: Map<Step, number[]>,
): Promise<number> {
  const queue = [...sessions];
  const t0 = performance.now();
  const client = async () => {
    for (let s = queue.shift(); s; s = queue.shift()) {
      for (const r of s.requests) {
        const start = performance.now();
        const res = await fetch(url + r.path, {
          method: "POST",
          headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
          body: JSON.stringify(r.body),
        });
        const text = await res.text();
        latencies?.get(r.step)!.push(performance.now() - start);
        if (res.status !== r.status) throw new Error(`${r.step} ${r.path}: ${res.status} ${text}`);
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, client));
  return (performance.now() - t0) / 1000;
}

export async function run(): Promise<void> {
  const { dir, cleanup } = tempDir("bench-consensus-");
  let server: { url: string; stop: () => Promise<void> } | undefined;
  try {
    const ledgerPath = join(dir, "ledger.sqlite");
    const ledger = await openTestLedger(ledgerPath);
    await registerOffices(ledger);
    const { token } = await issueToken(ledger);
    const registry = await ledger.state(avmRegistry);
    await ledger.close();
    const prepared = Array.from({ length: WARMUP + SESSIONS }, (_, i) => prepare(i));
    const warmup = prepared.slice(0, WARMUP);
    const measured = prepared.slice(WARMUP);

    server = await startServer(ledgerPath, join(dir, "server"));
    await runSessions(server.url, token, warmup);
    const latencies = new Map<Step, number[]>(STEPS.map((s) => [s, []]));
    const seconds = await runSessions(server.url, token, measured, latencies);

    // The floor: the verifications those sessions need, one after another on this thread, the
    // plainest way — node:crypto with ready KeyObjects, the token's JWS signature checked and its
    // claims parsed — with none of the project's code.
    const keys = new Map<string, KeyObject>();
    const keyOf = (hex: string) =>
      keys.get(hex) ??
      keys
        .set(
          hex,
          createPublicKey({
            key: Buffer.concat([ED25519_SPKI_PREFIX, Buffer.from(hex, "hex")]),
            format: "der",
            type: "spki",
          }),
        )
        .get(hex)!;
    const rawSessions = measured.map((s) => ({
      requests: s.requests.length,
      signatures: s.signatures.map(
        ([key, message, signature]) => [keyOf(key), message, Buffer.from(signature, "hex")] as const,
      ),
    }));
    const tokenKey = keyOf(TEST_TOKEN_PUBLIC_KEY);
    const rawTokenCheck = () => {
      const [header, payload, signature] = token.split(".");
      if (!cryptoVerify(null, Buffer.from(`${header}.${payload}`), tokenKey, Buffer.from(signature!, "base64url")))
        return false;
      const claims = JSON.parse(Buffer.from(payload!, "base64url").toString("utf8")) as { exp?: number };
      return typeof claims.exp === "number" && claims.exp * 1000 > Date.now();
    };
    let floor = Infinity;
    for (let round = 0; round < FLOOR_ROUNDS; round++) {
      const t0 = performance.now();
      for (const s of rawSessions) {
        for (const [key, message, signature] of s.signatures)
          if (!cryptoVerify(null, message, key, signature)) throw new Error("a prepared signature does not verify");
        for (let i = 0; i < s.requests; i++) if (!rawTokenCheck()) throw new Error("the token does not verify");
      }
      floor = Math.min(floor, (performance.now() - t0) / 1000);
    }
    // The floor before, through the project's own checks (report only).
    const tokenCheck = {
      publicKeyHex: TEST_TOKEN_PUBLIC_KEY,
      nowMs: Date.now(),
      registry,
      permission: "consensus.write" as const,
    };
    let projectFloor = Infinity;
    for (let round = 0; round < FLOOR_ROUNDS; round++) {
      const t0 = performance.now();
      for (const s of measured) {
        for (const [key, message, signature] of s.signatures)
          if (!verify("ed25519", key, message, signature)) throw new Error("a prepared signature does not verify");
        for (let i = 0; i < s.requests.length; i++)
          if (!(await verifyToken(token, tokenCheck)).ok) throw new Error("the token does not verify");
      }
      projectFloor = Math.min(projectFloor, (performance.now() - t0) / 1000);
    }

    printComparisons("consensus: complete sessions over HTTP, durable writes", [
      {
        name: `${SESSIONS} complete sessions (12 write requests, 13 ledger entries each), ${CONCURRENCY} concurrent clients`,
        subject: "sessions through the API (loopback, synchronous=FULL)",
        floor:
          "the signature verifications they need (9 Ed25519 + 12 token checks per session), node:crypto with ready keys",
        subjectSeconds: seconds,
        floorSeconds: floor,
        items: SESSIONS,
        kind: "speed",
      },
      {
        name: "The same verifications through core/signature.ts and core/avm/token.ts, the floor before (report only)",
        subject: "verify() and verifyToken() (hex keys, jose, the registry's issued and revoked tokens)",
        floor: "the same verifications, node:crypto with ready keys",
        subjectSeconds: projectFloor,
        floorSeconds: floor,
        items: SESSIONS,
        kind: "time",
      },
    ]);
    console.log("    latency per request, by step (ms):");
    for (const step of STEPS) {
      const sorted = latencies.get(step)!.sort((a, b) => a - b);
      console.log(
        `      ${step.padEnd(16)} n=${String(sorted.length).padStart(3)}  p50 ${percentile(sorted, 50).toFixed(1).padStart(7)}  p99 ${percentile(sorted, 99).toFixed(1).padStart(7)}  max ${sorted.at(-1)!.toFixed(1).padStart(7)}`,
      );
    }
  } finally {
    await server?.stop();
    cleanup();
  }
}
