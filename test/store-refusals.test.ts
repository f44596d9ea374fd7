/**
 * What the API answers when a store under it cannot be used, over real HTTP on loopback against the
 * real app, the committed signed data and real SQLite files: an access ledger that cannot be opened
 * turns no valid key into "no key" (503 `audit-unavailable`, never 401; a public file asked for with
 * a key is not served unaudited; `POST /keys/requests` is 503, not 500), every 503 carries
 * Retry-After (the verify attempt log's `ledger-unavailable` included), and the keys CLI prints what
 * a requester wrote with its control and format characters escaped.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ApiKeyStore } from "../api/clients/api-keys.ts";
import { DailyQuotas } from "../api/clients/quotas.ts";
import { PROBLEM_BASE } from "../api/problems/problem.ts";
import { AvmFixture } from "./support/api/avm.ts";

const REPO = join(import.meta.dirname, "..");

let fx: AvmFixture;
let good: ApiKeyStore;

beforeEach(async () => {
  fx = await AvmFixture.open();
  cpSync(join(REPO, "data", "areas"), join(fx.dir, "areas"), { recursive: true });
  cpSync(join(REPO, "data", "keys"), join(fx.dir, "keys"), { recursive: true });
  good = new ApiKeyStore(join(fx.dir, "access.sqlite"));
});
afterEach(async () => {
  await good.close();
  await fx.close();
});

/** A key store whose ledger cannot be opened: its location is a folder, not a database file. */
function unopenable(): ApiKeyStore {
  const folder = join(fx.dir, "not-a-database");
  mkdirSync(folder, { recursive: true });
  return new ApiKeyStore(folder);
}

const body = async (res: Response) => (await res.json()) as { type: string; status: number };

describe("an access ledger that cannot be opened", () => {
  it("a valid government key gets 503 audit-unavailable with Retry-After on a keyed file, never 401; a public file with a key is not served; without a key a public file still is", async () => {
    const { token } = await good.issue("government", "ministry", fx.clock.now());
    const broken = unopenable();
    try {
      const api = await fx.serve({ keys: broken, quotas: new DailyQuotas({ now: fx.clock.now }) });
      const keyed = await fetch(`${api.url}/government/compliance-report.json`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      expect(keyed.status).toBe(503);
      expect(keyed.headers.get("retry-after")).toBe("2");
      expect((await body(keyed)).type).toBe(`${PROBLEM_BASE}audit-unavailable`);

      const publicWithKey = await fetch(`${api.url}/academics/papers.json`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      expect(publicWithKey.status).toBe(503);
      expect((await body(publicWithKey)).type).toBe(`${PROBLEM_BASE}audit-unavailable`);

      const anonymous = await fetch(`${api.url}/academics/papers.json`);
      expect(anonymous.status).toBe(200);
      await anonymous.arrayBuffer();

      const request = await api.post("/keys/requests", {
        tier: "government",
        affiliation: "Ministry of Finance",
        contact: "ops@ministry.example.gov",
        purpose: "audits",
      });
      expect(request.status).toBe(503);
      expect(request.headers.get("retry-after")).toBe("2");
      expect((await body(request)).type).toBe(`${PROBLEM_BASE}ledger-unavailable`);

      const health = (await (await api.get("/health")).json()) as { status: string; access_ledger: { status: string } };
      expect([health.status, health.access_ledger.status]).toEqual(["degraded", "unavailable"]);
    } finally {
      await broken.close();
    }
  });
});

describe("every 503 carries Retry-After", () => {
  it("a verify refusal whose attempt cannot be logged (ledger-unavailable from the attempt log)", async () => {
    const api = await fx.serve({ keys: good, quotas: new DailyQuotas({ now: fx.clock.now }) });
    await fx.ledger.close(); // the store fails under the attempt log
    const res = await api.post("/avm/verify", JSON.stringify({ pad: "x".repeat(70_000) }));
    expect(res.status).toBe(503);
    expect((await body(res)).type).toBe(`${PROBLEM_BASE}ledger-unavailable`);
    expect(res.headers.get("retry-after")).toBe("2");
  });
});

describe("the keys CLI", () => {
  it("prints a stored request's control, format and separator characters escaped, never raw", async () => {
    const access = join(fx.dir, "cli-access.sqlite");
    const store = new ApiKeyStore(access);
    // Recorded as an older server would have accepted it: the route refuses these characters now.
    await store.receiveRequest(
      {
        tier: "government",
        affiliation: "Ministry \u202Eecnanif",
        contact: "ops@ministry.example.gov",
        purpose: "line\u2028two\u2029three\u200Bzero\u001b[31mred",
      },
      fx.clock.now(),
    );
    await store.close();
    const run = spawnSync(process.execPath, [join(REPO, "api", "cli", "keys.ts"), "requests"], {
      cwd: REPO,
      encoding: "utf8",
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        ACCESS_LEDGER_DB: access,
        STATE_DIR: join(fx.dir, "state"),
        DATABASE_URL: "",
      },
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain("Ministry \\u{202E}ecnanif");
    expect(run.stdout).toContain("line\\u{2028}two\\u{2029}three\\u{200B}zero\\u{001B}[31mred");
    expect(run.stdout).not.toMatch(/[\u202E\u2028\u2029\u200B\u001b]/);
  });
});
