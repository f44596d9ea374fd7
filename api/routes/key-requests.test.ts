/**
 * POST /keys/requests over HTTP on loopback, and the operator's side with the real keys CLI on the
 * same access ledger: a request is recorded and answered with a reference; the CLI lists it, issues
 * its key (which then opens a keyed file) or declines it; bad bodies, the honeypot and the daily
 * quota are refused as problems; the requester's details never reach the request log.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { KEY_REQUEST_DAILY_QUOTA } from "../../core/access/key-requests.ts";
import { ApiKeyStore } from "../clients/api-keys.ts";
import { PROBLEM_BASE } from "../problems/problem.ts";
import { sampleHistory, testServer, tempDir, type TestServer } from "../../test/support/api/helpers.ts";
import { KEY_REQUEST_EXAMPLE } from "./key-requests.ts";

const ROOT = join(import.meta.dirname, "../..");

let server: TestServer;
let state: { dir: string; cleanup: () => void };
let keysFile: string;

/** `npm run keys -- …` on the test's access ledger (the CLI as the operator runs it). */
function keysCli(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const env = { ...process.env, STATE_DIR: state.dir, ACCESS_LEDGER_DB: keysFile };
  const run = spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "api/cli/keys.ts"), ...args], {
    cwd: ROOT,
    env,
    encoding: "utf8",
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/**
 * POST /keys/requests. The tests pause for seconds while the CLI runs, long enough for the server to
 * close an idle kept-alive connection just as the client reuses it: such a reset (no answer at
 * all) is retried once on a new connection.
 */
async function post(body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  const send = () =>
    fetch(`${server.url}/keys/requests`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
  try {
    return await send();
  } catch (error) {
    if ((error as { cause?: { code?: string } }).cause?.code !== "ECONNRESET") throw error;
    return send();
  }
}

beforeAll(async () => {
  state = tempDir("key-requests-");
  keysFile = join(state.dir, "access.sqlite");
  // No quota here: the refusals below would spend it; the quota has a server of its own (last test).
  server = await testServer(sampleHistory(3), { keysFile, keyRequestQuota: null });
});
afterAll(async () => {
  await server.stop();
  state.cleanup();
});

describe("POST /keys/requests", () => {
  let reference = "";

  test("records the request and answers 201 with a reference and what happens next", async () => {
    const res = await post(KEY_REQUEST_EXAMPLE);
    expect(res.status).toBe(201);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ tier: "academic", status: "pending" });
    expect(body.reference).toMatch(/^KR-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/);
    reference = body.reference as string;
    // Durable: another process opening the access ledger sees it.
    const store = new ApiKeyStore(keysFile);
    try {
      expect((await store.requests()).map((r) => [r.reference, r.contact, r.status])).toContainEqual([
        reference,
        KEY_REQUEST_EXAMPLE.contact,
        "pending",
      ]);
    } finally {
      await store.close();
    }
  });

  test("the requester's details are not in the request log", () => {
    const logged = JSON.stringify(server.logs);
    expect(logged).toContain("/keys/requests");
    for (const value of [KEY_REQUEST_EXAMPLE.contact, KEY_REQUEST_EXAMPLE.affiliation, KEY_REQUEST_EXAMPLE.purpose])
      expect(logged).not.toContain(value);
  });

  test("the operator lists it, issues its key with the CLI, and the API knows the key as active", async () => {
    const listed = keysCli("requests");
    expect(listed.status).toBe(0);
    const line = listed.stdout.split("\n").find((l) => l.startsWith(reference));
    expect(line).toBeDefined();
    expect(line).toContain("pending");
    expect(line).toContain(KEY_REQUEST_EXAMPLE.contact);
    expect(line).toContain("academic domain");

    const issued = keysCli("issue", "--request", reference);
    expect(issued.status, issued.stderr).toBe(0);
    expect(issued.stdout).toContain(`for ${reference}`);
    const token = /key \(shown once[^:]*\): (ipk_\S+)/.exec(issued.stdout)?.[1];
    expect(token).toBeDefined();

    // Answered: no longer pending, shown with its key under --all, and not issued twice.
    expect(keysCli("requests").stdout).not.toContain(reference);
    expect(keysCli("requests", "--all").stdout).toMatch(new RegExp(`${reference}\\tissued\\t.*key academic-1`));
    const again = keysCli("issue", "--request", reference);
    expect(again.status).toBe(1);
    expect(again.stderr).toContain("already issued");

    const store = new ApiKeyStore(keysFile);
    try {
      const match = await store.find(token!, new Date());
      expect(match?.key).toMatchObject({
        id: "academic-1",
        tier: "academic",
        label: `${KEY_REQUEST_EXAMPLE.affiliation} (${reference})`,
      });
      expect(match?.status).toBe("active");
    } finally {
      await store.close();
    }
  });

  test("decline answers a request without a key; an unknown reference is refused", async () => {
    const res = await post({
      tier: "government",
      affiliation: "Ministry of Examples",
      contact: "office@ministry.example.gov",
      purpose: "Audit of the compliance report",
    });
    expect(res.status).toBe(201);
    const { reference: declined } = (await res.json()) as { reference: string };
    const out = keysCli("decline", "--request", declined, "--reason", "not an official address");
    expect(out.status, out.stderr).toBe(0);
    expect(keysCli("requests", "--all").stdout).toMatch(
      new RegExp(`${declined}\\tdeclined\\t.*not an official address`),
    );
    expect(keysCli("issue", "--request", declined).status).toBe(1);
    expect(keysCli("issue", "--request", "KR-0000-0000").stderr).toContain("no key request KR-0000-0000");
  });

  test.each([
    ["an unknown field", { ...KEY_REQUEST_EXAMPLE, role: "admin" }, ""],
    ["a filled honeypot", { ...KEY_REQUEST_EXAMPLE, website: "http://spam.example" }, "/website"],
    [
      "no expected volume for an academic key",
      { ...KEY_REQUEST_EXAMPLE, expected_volume: undefined },
      "/expected_volume",
    ],
    ["a contact that is not an address", { ...KEY_REQUEST_EXAMPLE, contact: "call me" }, "/contact"],
    ["a control character in the purpose", { ...KEY_REQUEST_EXAMPLE, purpose: "hi\u001b[2J" }, "/purpose"],
    ["an unknown tier", { ...KEY_REQUEST_EXAMPLE, tier: "admin" }, "/tier"],
    ["a purpose over 1000 characters", { ...KEY_REQUEST_EXAMPLE, purpose: "x".repeat(1001) }, "/purpose"],
  ])("refuses %s with 400 invalid-body naming the field", async (_name, body, pointer) => {
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    const problem = (await res.json()) as { type: string; invalid_fields: { pointer: string }[] };
    expect(problem.type).toBe(`${PROBLEM_BASE}invalid-body`);
    expect(problem.invalid_fields.map((f) => f.pointer)).toContain(pointer);
  });

  test("another origin's page cannot post a request (the write-route origin check)", async () => {
    const res = await post(KEY_REQUEST_EXAMPLE, { Origin: "https://elsewhere.example" });
    expect(res.status).toBe(403);
  });

  test("a client's daily quota (RateLimit fields), then 429 rate-limited with Retry-After, and nothing more recorded", async () => {
    const own = tempDir("key-request-quota-");
    const limited = await testServer(sampleHistory(3), { keysFile: join(own.dir, "access.sqlite") });
    const store = new ApiKeyStore(join(own.dir, "access.sqlite"));
    try {
      const send = () =>
        fetch(`${limited.url}/keys/requests`, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify(KEY_REQUEST_EXAMPLE),
        });
      for (let i = 0; i < KEY_REQUEST_DAILY_QUOTA; i += 1) {
        const res = await send();
        expect(res.status).toBe(201);
        expect(res.headers.get("ratelimit-policy")).toBe(`"daily";q=${KEY_REQUEST_DAILY_QUOTA};w=86400`);
        expect(res.headers.get("ratelimit")).toMatch(
          new RegExp(`^"daily";r=${KEY_REQUEST_DAILY_QUOTA - 1 - i};t=\\d+$`),
        );
      }
      const refused = await send();
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(((await refused.json()) as { type: string }).type).toBe(`${PROBLEM_BASE}rate-limited`);
      expect(await store.requests()).toHaveLength(KEY_REQUEST_DAILY_QUOTA);
    } finally {
      await store.close();
      await limited.stop();
      own.cleanup();
    }
  });
});
