import { randomUUID } from "node:crypto";
import { Hono } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { signToken, tokenClaims, tokenIssuedEvent } from "../../core/avm/token.ts";
import type { TokenPermission } from "../../core/schemas/avm.ts";
import { generateKeyPair } from "../../core/signature.ts";
import type { Ledger } from "../../store/ledger/ledger.ts";
import { openLedgerStore } from "../../store/open-ledger.ts";
import type { Platform } from "../sources/platform.ts";
import { requireToken, type TokenVariables } from "./require-token.ts";

const key = generateKeyPair("ed25519");
const other = generateKeyPair("ed25519");
let ledger: Ledger;
let nowMs = Date.parse("2026-06-01T00:00:00.000Z");
afterEach(async () => ledger?.close());

async function platform(): Promise<Platform> {
  ledger = await openLedgerStore({ path: ":memory:", origin: "test", now: () => new Date(nowMs) });
  return { ledger, tokenPublicKeyHex: key.publicKey, now: () => new Date(nowMs) };
}

async function issue(
  permissions: TokenPermission[],
  options: { ttl?: number; secret?: string; record?: boolean } = {},
): Promise<{ token: string; jti: string }> {
  const claims = tokenClaims(
    { jti: randomUUID(), subject: "operator-1", permissions, ttlSeconds: options.ttl ?? 600 },
    nowMs,
  );
  if (options.record !== false) await ledger.append([tokenIssuedEvent(claims)]);
  return { token: await signToken(claims, options.secret ?? key.secretKey), jti: claims.jti };
}

function app(p: Platform | undefined) {
  const routes = new Hono<{ Variables: TokenVariables }>();
  routes.post("/write", requireToken("consensus.write", p), (c) => c.json({ subject: c.get("token").sub }));
  return (authorization?: string) =>
    routes.request("/write", { method: "POST", headers: authorization ? { Authorization: authorization } : {} });
}

describe("requireToken", () => {
  it("passes a recorded, unexpired token with the permission, in any scheme case, and hands the claims on", async () => {
    const call = app(await platform());
    const { token } = await issue(["consensus.write"]);
    for (const scheme of ["Bearer", "bearer"]) {
      const res = await call(`${scheme} ${token}`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ subject: "operator-1" });
    }
  });

  it.each([
    ["no Authorization", async () => undefined, "missing"],
    ["another scheme", async () => "Basic b3A6cHc=", "missing"],
    ["not a JWT", async () => "Bearer abc.def", "malformed"],
    [
      "signed by another key",
      async () => `Bearer ${(await issue(["consensus.write"], { secret: other.secretKey })).token}`,
      "signature invalid",
    ],
    [
      "never recorded on the ledger",
      async () => `Bearer ${(await issue(["consensus.write"], { record: false })).token}`,
      "not issued",
    ],
    ["without the permission", async () => `Bearer ${(await issue(["avm.revoke"])).token}`, "permission missing"],
  ])("refuses %s with a 401 problem", async (_name, header, reason) => {
    const call = app(await platform());
    const res = await call(await header());
    expect(res.status).toBe(401);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer /);
    expect(((await res.json()) as { detail: string }).detail).toContain(reason);
  });

  it("refuses an expired token, and a token revoked by a later ledger event on the very next request", async () => {
    const call = app(await platform());
    const { token, jti } = await issue(["consensus.write"], { ttl: 60 });
    expect((await call(`Bearer ${token}`)).status).toBe(200);
    await ledger.append([{ type: "token.revoked", payload: { jti, reason: "rotated" } }]);
    expect((await call(`Bearer ${token}`)).status).toBe(401);
    const second = await issue(["consensus.write"], { ttl: 60 });
    nowMs += 61_000;
    expect((await call(`Bearer ${second.token}`)).status).toBe(401);
  });

  it("fails closed without a ledger (401), and when the ledger cannot be read (503 ledger-unavailable with Retry-After)", async () => {
    expect((await app(undefined)("Bearer x.y.z")).status).toBe(401);
    const p = await platform();
    const { token } = await issue(["consensus.write"]);
    await ledger.close();
    const refused = await app(p)(`Bearer ${token}`);
    expect(refused.status).toBe(503);
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({ type: expect.stringMatching(/\/ledger-unavailable$/) });
  });
});
