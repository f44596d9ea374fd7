/**
 * The balance routes over real HTTP on loopback, with a real SQLite ledger and a published,
 * signed migration tree, the clock injected and moved across every phase boundary to the second.
 */
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyLeafProof, verifyMigrationCheckpoint } from "../../core/migration/verify.ts";
import type { NewEvent } from "../../core/ledger/store.ts";
import { verifierKey } from "../../core/checkpoint.ts";
import { generateKeyPair, publicKeyFromSecret } from "../../core/signature.ts";
import { appendReviewRound, MIGRATION_FILES, writeSnapshot } from "../../store/migration-dir.ts";
import type { Ledger } from "../../store/ledger/ledger.ts";
import { openLedgerStore } from "../../store/open-ledger.ts";
import { createApp } from "../app.ts";
import { PROBLEM_BASE } from "../problems/problem.ts";
import { listen, type RunningServer } from "../server/server.ts";
import { manualClock, tempDir, TEST_DATASET_SIGNER, TEST_DATASET_VKEY } from "../../test/support/api/helpers.ts";

const mint = (sentinel: string, amount: string, ts: string): NewEvent => ({
  type: "mic_mint",
  payload: {
    sentinel,
    cycle: "C-1",
    cathedral: "FOR-ECONOMISTS",
    amount_shards: amount,
    coordination_score: 1,
    multiplier: 1,
  },
  ts,
});
const lock = (account: string, amount: string, ts: string): NewEvent => ({
  type: "mic_lock",
  payload: { account, amount_shards: amount, contract: "vault" },
  ts,
});

/** 2^53 + 1 shards: the first amount a double cannot hold. */
const WHALE_SHARDS = 2n ** 53n + 1n;
const EXPORT = [
  '{"address":"ATLAS","balance_gic":5}',
  '{"address":"HERMES","balance_gic":2}',
  '{"address":"legacy-1","balance_gic":1.005}',
  `{"address":"whale","balance_gic":${WHALE_SHARDS / 1_000_000n}.${(WHALE_SHARDS % 1_000_000n).toString().padStart(6, "0")}}`,
  '{"address":"dup","balance_gic":1}',
  '{"address":"dup","balance_gic":2}',
];

const made = tempDir("balance-routes-");
const dataDir = join(made.dir, "data");
const migrationDir = join(dataDir, "migration");
const clock = manualClock(Date.parse("2025-11-30T12:00:00.000Z"));
const at = (iso: string) => clock.advance(Date.parse(iso) - clock.now().getTime());
let ledger: Ledger;
let server: RunningServer;

async function get(path: string): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const response = await fetch(server.url + path);
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, unknown>,
  };
}

beforeAll(async () => {
  mkdirSync(join(dataDir, "keys"), { recursive: true });
  writeFileSync(join(dataDir, "keys", "datasets.vkey"), `${TEST_DATASET_VKEY}\n`);
  ledger = await openLedgerStore({
    path: join(made.dir, "ledger.sqlite"),
    origin: "balance-routes-test",
    durability: "normal",
    now: clock.now,
  });
  await ledger.append([
    mint("ATLAS", "5000000", "2025-11-01T00:00:00.000Z"),
    mint("HERMES", "2000000", "2025-11-02T00:00:00.000Z"),
  ]);
  // The snapshot is published at its instant; until then the folder has no checkpoint.
  mkdirSync(migrationDir, { recursive: true });
  const app = createApp({ dataDir, ledger, now: clock.now, log: () => {} });
  server = await listen(app, "127.0.0.1", 0);
});
afterAll(async () => {
  await server?.close();
  ledger?.close();
  made.cleanup();
});

describe("balances by the phase of the server's clock", () => {
  it("announcement (until 2025-11-30T23:59:59): v1 is the ledger's balance, v2 does not exist", async () => {
    at("2025-11-30T23:59:59.000Z");
    const v1 = await get("/v1/balance/ATLAS");
    expect(v1.status).toBe(200);
    expect(v1.body).toEqual({ balance_gic: 5 });
    expect(v1.headers.get("cache-control")).toBe("no-store");
    expect(v1.headers.get("deprecation")).toBeNull();
    expect(v1.headers.get("sunset")).toBeNull();
    expect(await get("/balance/HERMES")).toMatchObject({ status: 200, body: { balance_gic: 2 } });
    const v2 = await get("/v2/balance/ATLAS");
    expect(v2.status).toBe(404);
    expect(v2.body.type).toBe(`${PROBLEM_BASE}not-found`);
    expect(v2.body.detail).toMatch(/do not exist before the transition/);
    // legacy-1 exists only in the v1 system's export, not in the ledger.
    expect((await get("/v1/balance/legacy-1")).body.type).toBe(`${PROBLEM_BASE}unknown-address`);
  });

  it("snapshot day (from 2025-12-01T00:00:00): v1 frozen at the published snapshot; the review's corrections are served without a restart", async () => {
    at("2025-12-01T00:00:00.000Z");
    // Before the folder is published the snapshot phase cannot answer: it fails closed.
    expect(await get("/v1/balance/ATLAS")).toMatchObject({
      status: 503,
      body: { type: `${PROBLEM_BASE}data-unverified` },
    });
    writeSnapshot(migrationDir, {
      exportBytes: Buffer.from(EXPORT.join("\n")),
      at: "2025-12-01T00:00:00.000Z",
      signer: TEST_DATASET_SIGNER,
    });
    clock.advance(1000);
    expect(await get("/v1/balance/legacy-1")).toMatchObject({ status: 200, body: { balance_gic: 1.005 } });
    expect(await get("/balance/ATLAS")).toMatchObject({ status: 200, body: { balance_gic: 5 } });
    expect((await get("/v1/balance/dup")).status).toBe(404);
    expect((await get("/v2/balance/ATLAS")).status).toBe(404);

    at("2025-12-01T12:00:00.000Z");
    appendReviewRound(migrationDir, {
      at: "2025-12-01T12:00:00.000Z",
      corrections: [{ address: "dup", shards: 1_500_000n, note: "test review: the later line is right" }],
      signer: TEST_DATASET_SIGNER,
    });
    clock.advance(1000);
    expect(await get("/v1/balance/dup")).toMatchObject({ status: 200, body: { balance_gic: 1.5 } });
  });

  it("the last second of the review still answers v1 only; the transition's first answers both, v1 forwarded and deprecated", async () => {
    at("2025-12-01T23:59:59.000Z");
    expect((await get("/v2/balance/ATLAS")).status).toBe(404);
    expect(await get("/balance/ATLAS")).toMatchObject({ status: 200, body: { balance_gic: 5 } });

    at("2025-12-02T00:00:00.000Z");
    const v2 = await get("/v2/balance/ATLAS");
    expect(v2).toMatchObject({
      status: 200,
      body: { balance_shards: "5000000", balance_credits: 5, balance_credits_formatted: "5.000000 MIC" },
    });
    expect(v2.headers.get("deprecation")).toBeNull();
    expect((await get("/balance/ATLAS")).body).toEqual(v2.body);
    const v1 = await get("/v1/balance/ATLAS");
    expect(v1.status).toBe(200);
    expect(v1.body).toEqual({ balance_gic: 5 });
    expect(v1.headers.get("deprecation")).toBe("@1764633600");
    expect(v1.headers.get("sunset")).toBe("Sun, 01 Mar 2026 00:00:00 GMT");
    expect(v1.headers.get("link")).toBe('</v2/balance/ATLAS>; rel="successor-version"');
    // Another origin's page can read them.
    expect(
      (await fetch(`${server.url}/v1/balance/ATLAS`, { headers: { Origin: "https://elsewhere.example" } })).headers.get(
        "access-control-expose-headers",
      ),
    ).toMatch(/Deprecation.*Sunset|Sunset.*Deprecation/);
  });

  it("transition: v2 = the snapshot plus the ledger's movements after it, exact beyond 2^53 shards, v1 computed from the same shards", async () => {
    at("2025-12-03T00:00:00.000Z");
    await ledger.append([
      lock("ATLAS", "1000000", "2025-12-03T00:00:00.000Z"),
      mint("whale", "1", "2025-12-03T00:00:00.000Z"),
      mint("newcomer", "7", "2025-12-03T00:00:00.000Z"),
    ]);
    expect((await get("/v2/balance/ATLAS")).body).toEqual({
      balance_shards: "4000000",
      balance_credits: 4,
      balance_credits_formatted: "4.000000 MIC",
    });
    expect((await get("/v1/balance/ATLAS")).body).toEqual({ balance_gic: 4 });
    const whale = await get("/v2/balance/whale");
    expect(whale.body.balance_shards).toBe((WHALE_SHARDS + 1n).toString());
    expect(whale.body.balance_credits_formatted).toBe("9007199254.740994 MIC");
    expect(await get("/v2/balance/newcomer")).toMatchObject({
      status: 200,
      body: { balance_shards: "7", balance_credits_formatted: "0.000007 MIC" },
    });
    expect(await get("/v2/balance/dup")).toMatchObject({ body: { balance_shards: "1500000" } });
    expect(await get("/v2/balance/nobody")).toMatchObject({
      status: 404,
      body: { type: `${PROBLEM_BASE}unknown-address` },
    });
  });

  it("answers what another instance on the same store committed before the request, with concurrent lookups sharing reads of the tail", async () => {
    const other = await openLedgerStore({
      path: join(made.dir, "ledger.sqlite"),
      origin: "balance-routes-test",
      durability: "normal",
    });
    try {
      for (let k = 1; k <= 5; k++) {
        await other.append([lock("newcomer", "1", "2025-12-03T00:00:00.000Z")]);
        const answers = await Promise.all(Array.from({ length: 20 }, () => get("/v2/balance/newcomer")));
        expect(new Set(answers.map((a) => a.body.balance_shards))).toEqual(new Set([String(7 - k)]));
      }
    } finally {
      await other.close();
    }
  });

  it("sunset (from 2026-03-01T00:00:00): v1 is 410 with the successor link; v2 and /balance answer; the historical v1 balance stays readable with its proof", async () => {
    at("2026-02-28T23:59:59.000Z");
    expect(await get("/v1/balance/legacy-1")).toMatchObject({ status: 200, body: { balance_gic: 1.005 } });

    at("2026-03-01T00:00:00.000Z");
    const v1 = await get("/v1/balance/legacy-1");
    expect(v1.status).toBe(410);
    expect(v1.body).toMatchObject({
      type: `${PROBLEM_BASE}gone`,
      successor: "/v2/balance/legacy-1",
      historical: "/migration/proof/legacy-1",
    });
    expect(v1.headers.get("link")).toBe('</v2/balance/legacy-1>; rel="successor-version"');
    expect(v1.headers.get("content-type")).toBe("application/problem+json");
    expect((await get("/v1/balance/nobody")).status).toBe(410);
    expect(await get("/balance/legacy-1")).toMatchObject({ status: 200, body: { balance_shards: "1005000" } });

    const proof = await get("/migration/proof/legacy-1");
    expect(proof.status).toBe(200);
    const trusted = [
      {
        name: TEST_DATASET_SIGNER.name,
        publicKeyHex: publicKeyFromSecret("ed25519", TEST_DATASET_SIGNER.secretKeyHex),
      },
    ];
    const checkpoint = verifyMigrationCheckpoint(
      readFileSync(join(migrationDir, MIGRATION_FILES.checkpoint), "utf8"),
      trusted,
    );
    const leaf = verifyLeafProof("legacy-1", proof.body as never, checkpoint);
    expect(leaf).toEqual({ address: "legacy-1", balance_shards: "1005000", v1_balance_gic: "1.005" });
    const etag = proof.headers.get("etag")!;
    expect((await fetch(`${server.url}/migration/proof/legacy-1`, { headers: { "If-None-Match": etag } })).status).toBe(
      304,
    );
    expect((await get("/migration/proof/nobody")).status).toBe(404);
  });
});

describe("addresses", () => {
  it("a malformed address is 400 naming it; a well-formed unknown one is 404", async () => {
    at("2026-01-10T00:00:00.000Z");
    for (const bad of ["-lead", "a%20b", "%C3%A9t%C3%A9", "x".repeat(129), "a%2Fb", "a%00"]) {
      const answer = await get(`/v2/balance/${bad}`);
      expect(answer.status, bad).toBe(400);
      expect(answer.body.type, bad).toBe(`${PROBLEM_BASE}bad-request`);
      expect(answer.body.invalid_params, bad).toEqual([expect.objectContaining({ name: "address", in: "path" })]);
    }
    expect((await get(`/v2/balance/${"x".repeat(128)}`)).status).toBe(404);
    // Case-sensitive, never normalized.
    expect((await get("/v2/balance/atlas")).status).toBe(404);
  });
});

describe("failing closed", () => {
  it("without a ledger: 503 ledger-unavailable; with a checkpoint no trusted key signed: 503 data-unverified", async () => {
    const bare = await listen(createApp({ dataDir, now: clock.now, log: () => {} }), "127.0.0.1", 0);
    try {
      const answer = await fetch(`${bare.url}/v2/balance/ATLAS`);
      expect(answer.status).toBe(503);
      expect(((await answer.json()) as { type: string }).type).toBe(`${PROBLEM_BASE}ledger-unavailable`);
    } finally {
      await bare.close();
    }
    const other = join(made.dir, "other");
    cpSync(dataDir, other, { recursive: true });
    const stranger = generateKeyPair("ed25519");
    writeFileSync(
      join(other, "keys", "datasets.vkey"),
      `${verifierKey(TEST_DATASET_SIGNER.name, stranger.publicKey)}\n`,
    );
    const untrusted = await listen(
      createApp({ dataDir: other, ledger, now: clock.now, log: () => {} }),
      "127.0.0.1",
      0,
    );
    try {
      const answer = await fetch(`${untrusted.url}/v2/balance/ATLAS`);
      expect(answer.status).toBe(503);
      const body = (await answer.json()) as { type: string; detail: string };
      expect(body.type).toBe(`${PROBLEM_BASE}data-unverified`);
      expect(body.detail).toMatch(/checkpoint-untrusted/);
    } finally {
      await untrusted.close();
    }
  });

  it("a store that fails under the lookups: 503 ledger-unavailable for each of them, not a 500", async () => {
    const broken = await openLedgerStore({
      path: join(made.dir, "ledger.sqlite"),
      origin: "balance-routes-test",
      durability: "normal",
    });
    const app = await listen(createApp({ dataDir, ledger: broken, now: clock.now, log: () => {} }), "127.0.0.1", 0);
    try {
      broken.close();
      const answers = await Promise.all(
        ["/v1/balance/ATLAS", "/v2/balance/ATLAS", "/balance/ATLAS"].map((path) => fetch(app.url + path)),
      );
      for (const answer of answers) {
        expect(answer.status).toBe(503);
        expect(((await answer.json()) as { type: string }).type).toBe(`${PROBLEM_BASE}ledger-unavailable`);
      }
    } finally {
      await app.close();
    }
  });
});
