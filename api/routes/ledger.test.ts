/**
 * The ledger routes and the server's following of its ledger, over real HTTP: a proof
 * request never writes, and after it the server still follows what an operator
 * command appends to the same file and still writes.
 */
import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DatabaseSync } from "node:sqlite";
import { signToken, tokenClaims, tokenIssuedEvent } from "../../core/avm/token.ts";
import { avmRegistry } from "../../core/avm/registry.ts";
import { sha256Hex } from "../../core/digest.ts";
import { coverTail } from "../../store/ledger/entry-inclusion.ts";
import { openLedgerStore } from "../../store/open-ledger.ts";
import { AvmFixture, TEST_TOKEN_SECRET, type ApiOnLoopback } from "../../test/support/api/avm.ts";

const ORIGIN = "integrity-platform.example/ledger";
let fx: AvmFixture;
let api: ApiOnLoopback;
const lines: Record<string, unknown>[] = [];

beforeEach(async () => {
  fx = await AvmFixture.open();
  lines.length = 0;
  api = await fx.serve({ log: (line) => lines.push(line) });
});
afterEach(async () => {
  await fx.close();
});

interface LedgerHealth {
  status: string;
  size: number | null;
  write_failure?: { reason: string };
}
const ledgerHealth = async () => ((await (await api.get("/health")).json()) as { ledger: LedgerHealth }).ledger;

describe("the server keeps following its ledger (defect 0)", () => {
  it("after a proof of the newest entry and an operator's append on the same file, it sees the append, accepts its token and writes", async () => {
    const holder = await fx.identity("deployer");
    const operator = await fx.secondConnection(); // what `npm run avm -- issue-token` opens
    try {
      expect((await api.get(`/ledger/entries/${(await fx.ledger.size()) - 1}/inclusion`)).status).not.toBe(503);
      const claims = tokenClaims(
        { jti: randomUUID(), subject: "operator-1", permissions: ["avm.operate"], ttlSeconds: 3600 },
        fx.nowMs,
      );
      operator.append([tokenIssuedEvent(claims)]);
      const token = await signToken(claims, TEST_TOKEN_SECRET);

      expect(await ledgerHealth()).toMatchObject({ status: "ok", size: operator.size() });
      const verify = await api.post("/avm/verify", {});
      expect(verify.status).not.toBe(503);
      const drift = await api.post(
        "/avm/operator/record-drift",
        { ledger_id: holder.ledger_id, drift_score: 0.2, source: "monitor" },
        token,
      );
      expect(drift.status).toBe(200);
      expect(await ledgerHealth()).toMatchObject({ status: "ok", size: operator.size() });
    } finally {
      operator.close();
    }
  });

  it("a write the store cannot make is 503, logged at error level with the store's reason, and /health says the ledger is failing until a write commits", async () => {
    const impatient = await openLedgerStore({
      path: fx.path,
      origin: ORIGIN,
      now: fx.clock.now,
      busyTimeoutMs: 0,
      signer: { name: ORIGIN, secretKeyHex: sha256Hex("avm test ledger key") },
    });
    const second = await fx.serve({ log: (line) => lines.push(line) }, impatient);
    const health = async () => (await (await second.get("/health")).json()) as { status: string; ledger: LedgerHealth };
    const other = new DatabaseSync(fx.path);
    try {
      other.exec("BEGIN IMMEDIATE"); // another process holds the write lock
      const refused = await second.post("/avm/verify", {});
      expect(refused.status).toBe(503);
      expect(lines.find((l) => l.path === "/avm/verify" && l.status === 503)).toMatchObject({
        level: "error",
        error: expect.stringMatching(/locked/),
      });
      expect(await health()).toMatchObject({
        status: "degraded",
        ledger: { status: "failing", write_failure: { reason: expect.stringMatching(/locked/) } },
      });
      other.exec("ROLLBACK");
      expect((await second.post("/avm/verify", {})).status).not.toBe(503);
      expect(await health()).toMatchObject({ ledger: { status: "ok" } });
      expect((await health()).ledger.write_failure).toBeUndefined();
    } finally {
      if (other.isTransaction) other.exec("ROLLBACK");
      await other.close();
      await second.close();
      impatient.close();
    }
  });
});

describe("a proof is a read (defect 5)", () => {
  const checkpointRows = () => {
    const db = new DatabaseSync(fx.path, { readOnly: true });
    try {
      return (db.prepare("SELECT count(*) AS n FROM checkpoints").get() as { n: number }).n;
    } finally {
      db.close();
    }
  };

  it("GET inclusion of an entry no checkpoint covers writes nothing and answers 202 with Retry-After; once the server's schedule signed, 200", async () => {
    await fx.identity("deployer");
    const keyless = await openLedgerStore({ path: fx.path, origin: ORIGIN, now: fx.clock.now }); // a writer without the ledger key
    try {
      const [entry] = await keyless.append([
        {
          type: "identity.drift",
          payload: {
            ledger_id: (await fx.ledger.state(avmRegistry)).identities.keys().next().value!,
            drift_score: 0.1,
            source: "monitor",
          },
        },
      ]);
      const rows = checkpointRows();
      const pending = await api.get(`/ledger/entries/${entry!.seq}/inclusion`);
      expect(pending.status).toBe(202);
      expect(Number(pending.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(await pending.json()).toMatchObject({
        entry: { seq: entry!.seq, type: "identity.drift", hash: entry!.hash },
        checkpoint_size: entry!.seq,
      });
      expect(checkpointRows()).toBe(rows); // the read signed nothing
      expect(await coverTail(fx.ledger)).toBe(true); // the server's scheduled step
      const proved = await api.get(`/ledger/entries/${entry!.seq}/inclusion`);
      expect(proved.status).toBe(200);
      expect(await proved.json()).toMatchObject({ tree_size: entry!.seq + 1 });
      expect(checkpointRows()).toBe(rows + 1);
    } finally {
      keyless.close();
    }
  });

  it("an entry the server wrote is covered from its commit: its proof is 200 and reading it writes no checkpoint", async () => {
    await fx.identity("deployer");
    const rows = checkpointRows();
    const newest = (await fx.ledger.size()) - 1;
    const res = await api.get(`/ledger/entries/${newest}/inclusion`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ entry: { seq: newest }, tree_size: newest + 1 });
    expect(checkpointRows()).toBe(rows);
  });
});
