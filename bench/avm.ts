/**
 * `npm run bench -- avm`: authority verification, in two parts.
 *
 * 1. Verify throughput over loopback. `POST /avm/verify` on a real server in a child process (this
 *    process runs autocannon, so each gets a core of the two), over a durable ledger
 *    (`synchronous=FULL`, group commit), every request a distinct valid request that grants (the
 *    attempt and the grant appended in one write): 64 identities, each renewing with new
 *    attestations. Floor, measured in the same run on this process: the raw Ed25519 verify rate
 *    (`node:crypto` verify with ready `KeyObject`s) divided by the two signatures a request needs
 *    (the wallet's and the companion's). The machine's speed drifts by tens of percent within a
 *    run, so the floor is measured around every round (a short slice before it and after it) and
 *    each round is compared with the mean of its two slices; the verdict is the median of those
 *    per-round ratios, every pair printed. Target: >= 0.6x the floor. Also p50/p99 latency.
 * 2. The scope decision alone (`decidePolicy`, core/avm/policy.ts) against the same policy in Cedar
 *    (cedar-wasm, core/avm/cedar-oracle.ts) on the same random requests; target: faster than Cedar.
 *    Cedar is called the cheapest way it offers: the policy set parsed once
 *    (`statefulIsAuthorized`), the calls built before timing. Both run on this thread, alternating.
 */
import { generateKeyPairSync, sign, verify } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import fc from "fast-check";
import { AvmFixture, DAY } from "../test/support/api/avm.ts";
import { listen } from "../api/server/server.ts";
import {
  cedarDecide,
  policyCaseArbitrary,
  prepareCedar,
  toCedarCall,
  toPolicyInput,
} from "../core/avm/cedar-oracle.ts";
import { decidePolicy } from "../core/avm/policy.ts";
import { compare, printComparisons, type Comparison } from "./harness.ts";
import { rateComparison, startBenchServer, stopOnSignal } from "./http-bench.ts";

const IDENTITIES = 64;
const CONNECTIONS = 64;
const ROUNDS = 5;
const ROUND_SECONDS = 3;
const WARMUP_SECONDS = 1;
/** Distinct requests the server prepares: enough for the rounds at well above the expected rate. */
const BODIES = 120_000;
/** Verifications in one floor slice (about half a second). */
const FLOOR_SLICE = 3_000;

interface Urls {
  url: string;
  bodies: string;
}

/** The child: a durable ledger with identities and a companion, the bodies signed ahead, the API with no verify quota. */
async function serveForBench(): Promise<void> {
  const fx = await AvmFixture.open();
  const companion = await fx.companion("bench-companion");
  const holders = [];
  for (let i = 0; i < IDENTITIES; i++) holders.push(await fx.identity(`bench-${i}`, { stake: "20000" }));
  const bodies: string[] = [];
  for (let i = 0; i < BODIES; i++) {
    const holder = holders[i % IDENTITIES]!;
    // Each attestation differs by its instant: a new one for every request (an attestation grants once).
    bodies.push(
      JSON.stringify(
        fx.body(holder, companion, ["api.read"], { issuedAt: fx.nowMs - DAY - i, expiresAt: fx.nowMs + 60 * DAY }),
      ),
    );
  }
  const file = join(fx.dir, "bodies.json");
  writeFileSync(file, JSON.stringify(bodies));
  const app = fx.app({ verifyQuota: null, now: () => new Date() });
  app.get("/bench/outcomes", async (c) => {
    const entries = await Array.fromAsync(fx.ledger.entries());
    return c.json({
      grants: entries.filter((e) => e.type === "avm.grant").length,
      failed: entries.filter((e) => e.type === "avm.attempt" && e.payload.verified !== true).length,
    });
  });
  const server = await listen(app, "127.0.0.1", 0);
  process.stdout.write(`${JSON.stringify({ url: server.url, bodies: file } satisfies Urls)}\n`);
  stopOnSignal([server], () => void fx.close());
}

interface Round {
  rps: number;
  requests: number;
  p50: number;
  p99: number;
}

async function verifyRound(url: string, bodies: string[], next: { i: number }, seconds: number): Promise<Round> {
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [
      {
        method: "POST",
        path: "/avm/verify",
        headers: { "content-type": "application/json" },
        setupRequest: (req) => {
          const body = bodies[next.i++];
          if (body === undefined)
            throw new Error(`the bench ran out of prepared requests (${bodies.length}): raise BODIES`);
          return { ...req, body };
        },
      },
    ],
  });
  if (result.errors > 0 || result.non2xx > 0)
    throw new Error(`POST /avm/verify: ${result.errors} errors, ${result.non2xx} non-2xx responses`);
  return {
    rps: result["2xx"] / result.duration,
    requests: result["2xx"],
    p50: result.latency.p50,
    p99: result.latency.p99,
  };
}

/** The floor: raw Ed25519 verifications per second with ready KeyObjects, divided by two; `slice()` measures it now. */
function ed25519Floor(): { slice: () => number } {
  const keys = Array.from({ length: 16 }, () => generateKeyPairSync("ed25519"));
  const items = Array.from({ length: FLOOR_SLICE }, (_, i) => {
    const { privateKey, publicKey } = keys[i % keys.length]!;
    const message = Buffer.from(
      `{"attestation_hash":"sha256:${i.toString(16).padStart(64, "0")}","ledger_id":"x","requested_scopes":["api.read"]}`,
    );
    return { key: publicKey, message, signature: sign(null, message, privateKey) };
  });
  return {
    slice: () => {
      const t0 = performance.now();
      for (const { key, message, signature } of items)
        if (!verify(null, message, key, signature)) throw new Error("a floor signature does not verify");
      return FLOOR_SLICE / ((performance.now() - t0) / 1000) / 2;
    },
  };
}

interface Pair {
  round: Round;
  floor: number;
  ratio: number;
}

async function verifyThroughput(): Promise<{ comparison: Comparison; pairs: Pair[]; median: Pair }> {
  const { urls, stop } = await startBenchServer<Urls>(fileURLToPath(import.meta.url), "avm-server");
  try {
    const bodies = JSON.parse(readFileSync(urls.bodies, "utf8")) as string[];
    const next = { i: 0 };
    const floor = ed25519Floor();
    floor.slice(); // warm-up
    let answered = (await verifyRound(urls.url, bodies, next, WARMUP_SECONDS)).requests;
    await new Promise((resolve) => setTimeout(resolve, 250));
    const pairs: Pair[] = [];
    let before = floor.slice();
    for (let i = 0; i < ROUNDS; i++) {
      const round = await verifyRound(urls.url, bodies, next, ROUND_SECONDS);
      answered += round.requests;
      await new Promise((resolve) => setTimeout(resolve, 250)); // the server finishes what was in flight
      const after = floor.slice();
      const around = (before + after) / 2;
      pairs.push({ round, floor: around, ratio: round.rps / around });
      before = after;
    }
    // Every request granted: no failed attempt, a grant for every answer (and for requests still in
    // flight when a round ended, at most all that were prepared).
    const stats = (await (await fetch(`${urls.url}/bench/outcomes`)).json()) as { grants: number; failed: number };
    if (stats.failed !== 0 || stats.grants < answered || stats.grants > next.i)
      throw new Error(`${answered} answers, ${stats.grants} grants, ${stats.failed} failed attempts`);
    const median = [...pairs].sort((a, b) => a.ratio - b.ratio)[Math.floor(pairs.length / 2)]!;
    return {
      pairs,
      median,
      comparison: rateComparison(
        `POST /avm/verify over loopback, every request a grant, synchronous=FULL (autocannon, ${CONNECTIONS} connections; the median of ${ROUNDS} rounds of ${ROUND_SECONDS} s, each against the floor measured around it; ${stats.grants.toLocaleString("en")} grants in all)`,
        "POST /avm/verify: parse, five stages, attempt + grant in one group-committed write",
        median.round.rps,
        "raw Ed25519 verify rate (node:crypto, ready KeyObjects, one thread) / 2 signatures per request",
        median.floor,
        0.6,
      ),
    };
  } finally {
    await stop();
  }
}

function scopeDecision(): Comparison {
  const n = 1_000;
  prepareCedar();
  const cases = fc.sample(policyCaseArbitrary, { numRuns: n, seed: 151 });
  const inputs = cases.map(toPolicyInput);
  const calls = cases.map(toCedarCall);
  // Same answers first: a benchmark of two deciders that disagree would measure nothing.
  let allowed = 0;
  for (let i = 0; i < n; i++) {
    const ours = decidePolicy(inputs[i]!.subject, inputs[i]!.request).allowed;
    if (ours !== cedarDecide(calls[i]!).allowed) throw new Error(`decidePolicy and Cedar disagree on case ${i}`);
    if (ours) allowed++;
  }
  let sink = 0;
  const t = compare(
    3,
    () => {
      for (const { subject, request } of inputs) if (decidePolicy(subject, request).allowed) sink++;
    },
    () => {
      for (const call of calls) if (cedarDecide(call).allowed) sink++;
    },
  );
  if (sink < 0) console.log(sink);
  return {
    name: `scope decision, ${n.toLocaleString("en")} random requests (${((100 * allowed) / n).toFixed(0)} % allowed)`,
    subject: "decidePolicy (the policy table)",
    floor: "Cedar statefulIsAuthorized, the same policy, preparsed",
    subjectSeconds: t.subject,
    rounds: t.rounds,
    floorSeconds: t.floor,
    items: n,
    kind: "speed",
    target: 1,
  };
}

export async function run(): Promise<void> {
  const { comparison, pairs, median } = await verifyThroughput();
  printComparisons("avm: authority verification", [comparison, scopeDecision()]);
  console.log("    verify rounds (requests/s against the floor around each):");
  for (const p of pairs)
    console.log(
      `      ${Math.round(p.round.rps)}/s against ${Math.round(p.floor)}/s: ${p.ratio.toFixed(3)}x, p50 ${p.round.p50} ms, p99 ${p.round.p99} ms`,
    );
  console.log(
    `    latency of the median round: p50 ${median.round.p50} ms, p99 ${median.round.p99} ms (${median.round.requests.toLocaleString("en")} requests)`,
  );
}

if (process.env.BENCH_ROLE === "avm-server") await serveForBench();
