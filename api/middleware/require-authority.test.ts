/**
 * requireAuthority fails closed: a relying service on loopback asks the AVM — in-process over the
 * ledger, or over HTTP — and lets a request through only on a clear yes. Stopping the AVM's server,
 * closing its store, a hung AVM and a garbage answer all deny; a revocation denies the next request.
 */
import { createServer, type Server, type Socket } from "node:net";
import { Hono } from "hono";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sha256Hex } from "../../core/digest.ts";
import { AvmFixture, DAY, type ApiOnLoopback, type Companion, type Holder } from "../../test/support/api/avm.ts";
import { PROBLEM_BASE } from "../problems/problem.ts";
import { listen, type RunningServer } from "../server/server.ts";
import {
  avmOverHttp,
  ledgerAuthority,
  requireAuthority,
  type AuthoritySource,
  type AuthorityVariables,
} from "./require-authority.ts";

let fx: AvmFixture;
let avm: ApiOnLoopback;
let athena: Companion;
let holder: Holder;
const services: RunningServer[] = [];

beforeEach(async () => {
  fx = await AvmFixture.open();
  athena = await fx.companion("athena");
  holder = await fx.identity("relied-upon");
  avm = await fx.serve();
  const granted = await avm.post("/avm/verify", fx.body(holder, athena, ["api.read", "api.deploy.staging"]));
  expect(((await granted.json()) as { verified: boolean }).verified).toBe(true);
});
afterEach(async () => {
  await Promise.all(services.splice(0).map((s) => s.close(100)));
  await fx.close();
});

/** A relying service: `POST /deploy` needs api.deploy.staging; the caller names itself in a header (the service's own authentication). */
async function service(
  source: AuthoritySource | undefined,
  timeoutMs = 500,
): Promise<(id?: string) => Promise<{ status: number; type?: string; body: unknown }>> {
  const app = new Hono<{ Variables: AuthorityVariables }>();
  app.post(
    "/deploy",
    requireAuthority("api.deploy.staging", {
      source,
      identify: (c) => c.req.header("x-ledger-id") ?? null,
      timeoutMs,
      now: fx.clock.now,
    }),
    (c) => c.json({ deployed_by: c.get("authority").ledger_id }),
  );
  const running = await listen(app, "127.0.0.1", 0);
  services.push(running);
  return async (id = holder.ledger_id) => {
    const res = await fetch(`${running.url}/deploy`, { method: "POST", headers: id ? { "x-ledger-id": id } : {} });
    const body = (await res.json()) as { type?: string };
    return { status: res.status, type: body.type?.replace(PROBLEM_BASE, ""), body };
  };
}

describe("requireAuthority", () => {
  it("over HTTP: passes a holder of the scope; denies the unidentified, the unauthorized, the revoked — and everyone once the AVM is stopped", async () => {
    const call = await service(avmOverHttp(avm.url));
    expect(await call()).toEqual({ status: 200, type: undefined, body: { deployed_by: holder.ledger_id } });
    expect((await call("")).status).toBe(401);
    const viewer = await fx.identity("viewer-only", { role: "viewer" });
    expect(await call(viewer.ledger_id)).toMatchObject({ status: 403, type: "forbidden" });

    const narrow = await fx.identity("narrow");
    await avm.post("/avm/verify", fx.body(narrow, athena, ["api.read"]));
    expect(await call(narrow.ledger_id)).toMatchObject({ status: 403, type: "forbidden" });

    // A revocation is seen on the next request: nothing is cached.
    const { token } = await fx.token(["avm.revoke"]);
    await avm.post(
      "/avm/revoke",
      { ledger_id: narrow.ledger_id, reason: "requested_by_holder", evidence_hash: `sha256:${sha256Hex("x")}` },
      token,
    );
    const other = await fx.identity("other");
    await avm.post("/avm/verify", fx.body(other, athena, ["api.deploy.staging"]));
    expect((await call(other.ledger_id)).status).toBe(200);
    await avm.post(
      "/avm/operator/record-drift",
      { ledger_id: other.ledger_id, drift_score: 0.5, source: "monitor" },
      (await fx.token(["avm.operate"])).token,
    );
    expect(await call(other.ledger_id)).toMatchObject({ status: 403, type: "forbidden" });

    // Stop the AVM mid-run: every request is denied, none let through.
    await avm.close();
    expect(await call()).toMatchObject({ status: 503, type: "authority-unavailable" });
  });

  it("in process: over the ledger; a closed store denies; no AVM at all denies", async () => {
    const second = await fx.secondConnection();
    const call = await service(ledgerAuthority(second, fx.clock.now));
    expect((await call()).status).toBe(200);
    fx.clock.advance(31 * DAY); // the grant (30 days) has expired: no authority
    expect(await call()).toMatchObject({ status: 403, type: "forbidden" });
    await second.close();
    expect(await call()).toMatchObject({ status: 503, type: "authority-unavailable" });
    const none = await service(ledgerAuthority(undefined, fx.clock.now));
    expect(await none()).toMatchObject({ status: 503, type: "authority-unavailable" });
  });

  it("denies when the AVM hangs (timeout), errs, or answers something that is not a check response", async () => {
    // A server that accepts connections and never answers.
    const sockets: Socket[] = [];
    const silent: Server = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const port = (silent.address() as { port: number }).port;
    try {
      const hung = await service(avmOverHttp(`http://127.0.0.1:${port}`), 200);
      expect(await hung()).toMatchObject({ status: 503, type: "authority-unavailable" });
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
    const failing = await service(async () => {
      throw new Error("boom");
    });
    expect(await failing()).toMatchObject({ status: 503, type: "authority-unavailable" });
    const lying = await service(async () => ({ has_authority: true, scopes: ["api.*"] }));
    expect(await lying()).toMatchObject({ status: 503, type: "authority-unavailable" });
    const notFound = await service(avmOverHttp(`${avm.url}/nowhere`));
    expect(await notFound()).toMatchObject({ status: 503, type: "authority-unavailable" });
  });
});
