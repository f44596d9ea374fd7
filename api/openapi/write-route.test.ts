/**
 * The write-route mechanism over real HTTP: a token is checked inside the
 * write transaction, so a write made with a token that a racing `revoke-token` revoked is never
 * committed after that revocation — the ledger's order is the proof — and every write that
 * committed answers `Ledger-Seq` naming its entry.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TokenPermission } from "../../core/schemas/avm.ts";
import { publicKeyFromSecret } from "../../core/signature.ts";
import type { Ledger } from "../../store/ledger/ledger.ts";
import { PROBLEM_BASE } from "../problems/problem.ts";
import type { RunningServer } from "../server/server.ts";
import { tempDir } from "../../test/support/api/helpers.ts";
import { issueToken, openTestLedger, registerOffices, serveLedger } from "../../test/support/api/routes/consensus.ts";

const ROUNDS = 8;
const WRITES_PER_ROUND = 16;

const { dir, cleanup } = tempDir("write-route-");
let ledger: Ledger;
let server: RunningServer;
let operator: string;

beforeAll(async () => {
  ledger = await openTestLedger(join(dir, "ledger.sqlite"));
  await registerOffices(ledger);
  server = await serveLedger(ledger, dir);
  operator = (await issueToken(ledger, { permissions: ["avm.operate"] })).token;
});

afterAll(async () => {
  await server?.close();
  ledger?.close();
  cleanup();
});

interface Answer {
  status: number;
  type: string;
  seq: string | null;
}

async function post(path: string, body: unknown, token: string): Promise<Answer> {
  const res = await fetch(server.url + path, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return {
    status: res.status,
    type: res.status >= 400 ? (JSON.parse(text) as { type: string }).type : "",
    seq: res.headers.get("ledger-seq"),
  };
}

/**
 * Rounds of: a fresh token X with `permission`; WRITES_PER_ROUND writes with X sent at once, and
 * the revocation of X sent in their middle. Asserts each round; returns how many writes committed
 * and how many were refused over all rounds.
 */
async function raceRounds(
  permission: TokenPermission,
  entryType: string,
  write: (token: string, i: number) => Promise<Answer>,
): Promise<{ committed: number; refused: number }> {
  let committed = 0;
  let refused = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const x = await issueToken(ledger, { permissions: [permission] });
    const start = await ledger.size();
    const half = WRITES_PER_ROUND / 2;
    const early = Array.from({ length: half }, (_, i) => write(x.token, round * WRITES_PER_ROUND + i));
    const revoke = post("/avm/operator/revoke-token", { jti: x.jti, reason: `race round ${round}` }, operator);
    const late = Array.from({ length: half }, (_, i) => write(x.token, round * WRITES_PER_ROUND + half + i));
    const answers = await Promise.all([...early, ...late]);
    expect((await revoke).status, `round ${round}: the revocation`).toBe(200);

    const roundEntries = await Array.fromAsync(ledger.entries(start));
    const revokedAt = roundEntries.find((e) => e.type === "token.revoked" && e.payload.jti === x.jti)!.seq;
    const writes = roundEntries.filter((e) => e.type === entryType);
    expect(
      writes.filter((e) => e.seq > revokedAt).map((e) => e.seq),
      `round ${round}: writes committed after token.revoked (seq ${revokedAt})`,
    ).toEqual([]);

    const ok = answers.filter((a) => a.status === 200);
    for (const a of answers.filter((a) => a.status !== 200)) {
      expect(a, `round ${round}`).toEqual({ status: 401, type: `${PROBLEM_BASE}unauthorized`, seq: null });
    }
    // Every write answered 200 names its own entry, and no refused write is on the ledger.
    expect(ok.map((a) => Number(a.seq)).sort((a, b) => a - b)).toEqual(writes.map((e) => e.seq));
    committed += ok.length;
    refused += answers.length - ok.length;
  }
  return { committed, refused };
}

describe("a token revoked while writes made with it are in flight", () => {
  it("consensus: no write with the token commits after its token.revoked, in any round; refused writes are 401 and unrecorded", async () => {
    const { committed, refused } = await raceRounds("consensus.write", "cycle.updated", (token) =>
      post("/api/cycle/current", { cycle: "C-151", gi: 0.97 }, token),
    );
    // The race was run: writes landed on both sides of the revocation.
    expect(committed).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  });

  it("AVM operator routes: the same mechanism, the same guarantee", async () => {
    const companion = (token: string, i: number) =>
      post(
        "/avm/operator/register-companion",
        {
          companion_id: `race-companion-${i}`,
          algorithm: "ed25519",
          public_key: publicKeyFromSecret("ed25519", (i + 1).toString(16).padStart(64, "0")),
        },
        token,
      );
    const { committed, refused } = await raceRounds("avm.operate", "companion.registered", companion);
    expect(committed).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  });
});
