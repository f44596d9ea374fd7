import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKeyStore } from "../clients/api-keys.ts";
import { startServer, type RunningServer } from "../server/server.ts";
import { tempDir } from "../../test/support/store/helpers.ts";

// The committed sample datasets, copied so a test can damage one without touching the repo.
const REPO_DATA = join(import.meta.dirname, "../../data");
let dir: string;
let cleanup: () => void;
let server: RunningServer;
let governmentKey: string;
let academicKey: string;

beforeAll(async () => {
  ({ dir, cleanup } = tempDir("areas-api-"));
  cpSync(join(REPO_DATA, "areas"), join(dir, "data", "areas"), { recursive: true });
  cpSync(join(REPO_DATA, "keys"), join(dir, "data", "keys"), { recursive: true });
  const keys = new ApiKeyStore(join(dir, "access.sqlite"), { durability: "normal" });
  governmentKey = (await keys.issue("government", "test ministry", new Date())).token;
  academicKey = (await keys.issue("academic", "test university", new Date())).token;
  server = await startServer({
    host: "127.0.0.1",
    port: 0,
    dataDir: join(dir, "data"),
    keysFile: keys.path,
    log: () => {},
  });
});
afterAll(async () => {
  await server.close();
  cleanup();
});

const get = (path: string, headers: Record<string, string> = {}) => fetch(server.url + path, { headers });

describe("area files", () => {
  it("serves the spec's paths with the right content types and the manifest's bytes", async () => {
    const cases: [string, string, string][] = [
      ["/economy/mii", "application/json; charset=utf-8", "economy/mii.json"],
      ["/economy/roi", "application/json; charset=utf-8", "economy/roi.json"],
      ["/economy/mic-history.csv", "text/csv; charset=utf-8; header=present", "economy/mic-history.csv"],
      ["/academics/mii-timeline.csv", "text/csv; charset=utf-8; header=present", "academics/mii-timeline.csv"],
      ["/academics/citations.bib", "application/x-bibtex; charset=utf-8", "academics/citations.bib"],
      ["/government/transparency.pdf", "application/pdf", "government/transparency.pdf"],
      ["/government/sentinel-status.json", "application/json; charset=utf-8", "government/sentinel-status.json"],
      ["/diplomacy/treaty-framework.json", "application/json; charset=utf-8", "diplomacy/treaty-framework.json"],
    ];
    for (const [path, type, file] of cases) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("content-type"), path).toBe(type);
      expect(Buffer.from(await res.arrayBuffer()).equals(readFileSync(join(dir, "data", "areas", file))), path).toBe(
        true,
      );
    }
  });

  it("keeps keyed files behind a key of the right tier (401 without, 403 with another tier)", async () => {
    for (const path of [
      "/government/compliance-report.json",
      "/government/policy-impact.json",
      "/government/ledger/export.csv",
    ]) {
      const anonymous = await get(path);
      expect(anonymous.status, path).toBe(401);
      expect(anonymous.headers.get("content-type")).toBe("application/problem+json");
      expect(anonymous.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect((await anonymous.json()).type).toBe("https://integrity-platform.example/problems/unauthorized");
      const other = await get(path, { Authorization: `Bearer ${academicKey}` });
      expect(other.status, path).toBe(403);
      expect((await other.json()).detail, path).toMatch(
        /^an academic key does not open government\/.*this file needs a government key: /,
      );
      const granted = await get(path, { Authorization: `Bearer ${governmentKey}` });
      expect(granted.status, path).toBe(200);
      expect(granted.headers.get("cache-control")).toBe("private, no-store");
    }
  });

  it("fails closed on hostile or wrong credentials", async () => {
    const path = "/government/compliance-report.json";
    for (const auth of [
      "Bearer",
      "Bearer ",
      `Basic ${governmentKey}`,
      `Bearer ${governmentKey}x`,
      `Bearer ${governmentKey.slice(0, -1)}${governmentKey.endsWith("A") ? "B" : "A"}`, // one character changed
      `Bearer ${"a".repeat(5000)}`,
      `Bearer ${governmentKey} extra`,
    ]) {
      expect((await get(path, { Authorization: auth })).status, auth.slice(0, 40)).toBe(401);
    }
  });

  it("does not serve unlisted paths, traversal attempts or data that no longer matches its manifest", async () => {
    expect((await get("/economy/supply.json.tmp")).status).toBe(404);
    expect((await get("/economy/..%2f..%2fpackage.json")).status).toBe(404);
    expect((await get("/government/datapackage.json.sig")).status).toBe(404); // not a listed resource here
    writeFileSync(join(dir, "data", "areas", "philosophy", "virtues.json"), "{}\n");
    const damaged = await get("/philosophy/virtues.json");
    expect(damaged.status).toBe(503);
    expect((await damaged.json()).type).toBe("https://integrity-platform.example/problems/data-unverified");
  });
});

describe("the filtered audit trail: GET /government/ledger/export", () => {
  const govern = { Authorization: "" };
  beforeAll(() => {
    govern.Authorization = `Bearer ${governmentKey}`;
  });
  const published = (file: string) => readFileSync(join(dir, "data", "areas", "government", "ledger", file), "utf8");
  const rows = () =>
    published("export.json")
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l.replace(/,$/, "")) as { timestamp: string; event_type: string; agent: string });

  it("needs the government key, and without a query is the published export, as JSON or CSV", async () => {
    expect((await get("/government/ledger/export")).status).toBe(401);
    expect((await get("/government/ledger/export", { Authorization: `Bearer ${academicKey}` })).status).toBe(403);
    const json = await get("/government/ledger/export", govern);
    expect(json.status).toBe(200);
    expect(json.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(json.headers.get("cache-control")).toBe("private, no-store");
    expect(await json.text()).toBe(published("export.json"));
    const csv = await get("/government/ledger/export?format=csv", govern);
    expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8; header=present");
    expect(await csv.text()).toBe(published("export.csv"));
  });

  it("filters by inclusive date or instant bounds and by event type and agent terms", async () => {
    const all = rows();
    const day = all[Math.floor(all.length / 2)]!.timestamp.slice(0, 10);
    const onDay = await (await get(`/government/ledger/export?from=${day}&to=${day}`, govern)).json();
    expect(onDay).toEqual(all.filter((r) => r.timestamp.slice(0, 10) === day));
    expect(onDay.length).toBeGreaterThan(0);
    const instant = all[10]!.timestamp;
    expect(await (await get(`/government/ledger/export?to=${instant}`, govern)).json()).toEqual(
      all.filter((r) => r.timestamp <= instant),
    );
    const mints = await (
      await get("/government/ledger/export?filter=event_type:mic_mint,event_type:mic_burn,agent:ATLAS", govern)
    ).json();
    expect(mints).toEqual(
      all.filter((r) => (r.event_type === "mic_mint" || r.event_type === "mic_burn") && r.agent === "ATLAS"),
    );
    expect(mints.length).toBeGreaterThan(0);
    const none = await get("/government/ledger/export?filter=agent:nobody&format=csv", govern);
    expect(await none.text()).toBe("timestamp,event_type,agent,data,attestation_hash\r\n");
    expect(await (await get("/government/ledger/export?filter=agent:nobody", govern)).text()).toBe("[]\n");
  });

  it("answers 400 problem details naming the parameter for hostile queries", async () => {
    const cases: [string, string][] = [
      ["format=xml", "format"],
      ["from=2025-02-30", "from"],
      ["from=yesterday", "from"],
      ["to=2026-01-01T00:00:00+01:00", "to"],
      ["from=2026-02-01&to=2026-01-01", "from"],
      ["filter=event_type", "filter"],
      ["filter=agent:", "filter"],
      ["filter=sentinel:ATLAS", "filter"],
      [`filter=${Array.from({ length: 21 }, () => "agent:A").join(",")}`, "filter"],
      [`filter=agent:${"x".repeat(3000)}`, "filter"],
      ["format=json&format=csv", "format"],
      ["limit=5", "limit"],
    ];
    // Refused by the route's query check before the handler: the same answer with the government
    // key, with none and with another tier's key, never counted (no RateLimit fields).
    const credentials: [string, Record<string, string>][] = [
      ["government key", govern],
      ["no key", {}],
      ["academic key", { Authorization: `Bearer ${academicKey}` }],
    ];
    for (const [query, name] of cases) {
      for (const [who, headers] of credentials) {
        const what = `${query} (${who})`;
        const res = await get(`/government/ledger/export?${query}`, headers);
        expect(res.status, what).toBe(400);
        expect(res.headers.get("content-type"), what).toBe("application/problem+json");
        expect(res.headers.get("ratelimit"), what).toBeNull();
        const body = await res.json();
        expect(body.type, what).toBe("https://integrity-platform.example/problems/invalid-query");
        expect(
          body.invalid_params.map((p: { name: string }) => p.name),
          what,
        ).toContain(name);
      }
    }
  });

  it("counts no quota for a refused query: the next request's RateLimit is as before it", async () => {
    const left = async (headers: Record<string, string>) => {
      const res = await get("/government/ledger/export", headers);
      await res.body?.cancel();
      const r = /;r=(\d+);/.exec(res.headers.get("ratelimit") ?? "");
      expect(r, "a RateLimit field").not.toBeNull();
      return Number(r![1]);
    };
    for (const headers of [{}, { Authorization: `Bearer ${academicKey}` }] as Record<string, string>[]) {
      const before = await left(headers);
      for (const query of [
        "from=nonsense",
        "to=2025-02-30",
        "from=2026-02-01&to=2026-01-01",
        "filter=sentinel:ATLAS",
      ]) {
        expect((await get(`/government/ledger/export?${query}`, headers)).status, query).toBe(400);
      }
      expect(await left(headers)).toBe(before - 1);
    }
  });
});

describe("daily quotas (RateLimit headers, 429)", () => {
  let limited: RunningServer;
  let clock = new Date("2026-03-01T23:00:00.000Z");
  let academic: string;
  let economist: string;
  let government: string;
  beforeAll(async () => {
    const keys = new ApiKeyStore(join(dir, "quota-access.sqlite"), { durability: "normal" });
    academic = (await keys.issue("academic", "quota university", clock)).token;
    economist = (await keys.issue("economist", "quota bank", clock)).token;
    government = (await keys.issue("government", "quota ministry", clock)).token;
    limited = await startServer({
      host: "127.0.0.1",
      port: 0,
      dataDir: join(dir, "data"),
      keysFile: keys.path,
      log: () => {},
      now: () => clock,
    });
  });
  afterAll(() => limited.close());
  const at = (path: string, token?: string) =>
    fetch(limited.url + path, token ? { headers: { Authorization: `Bearer ${token}` } } : {});

  it("gives an anonymous client 100 requests a day per area, announced and then refused until 00:00 UTC", async () => {
    const first = await at("/academics/papers.json");
    expect(first.headers.get("ratelimit-policy")).toBe('"daily";q=100;w=86400');
    expect(first.headers.get("ratelimit")).toBe('"daily";r=99;t=3600');
    // Academics and philosophy share one quota.
    for (let i = 1; i < 100; i++)
      expect((await at(i % 2 ? "/philosophy/virtues.json" : "/academics/papers.json")).status).not.toBe(429);
    const refused = await at("/academics/dataset.json");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("content-type")).toBe("application/problem+json");
    expect(refused.headers.get("retry-after")).toBe("3600");
    expect(refused.headers.get("ratelimit")).toBe('"daily";r=0;t=3600');
    const body = await refused.json();
    expect(body).toMatchObject({ type: "https://integrity-platform.example/problems/rate-limited", status: 429 });
    expect(body.detail).toMatch(/quota of 100 requests a day for academics is spent; it resets at 00:00 UTC/);
    // A wrong key is anonymous; another area has its own quota; a valid key its tier's.
    expect((await at("/philosophy/virtues.json", `${academic}x`)).status).toBe(429);
    expect((await at("/economy/supply")).headers.get("ratelimit")).toBe('"daily";r=99;t=3600');
    const keyed = await at("/academics/papers.json", academic);
    expect(keyed.status).toBe(200);
    expect(keyed.headers.get("ratelimit-policy")).toBe('"daily";q=1000;w=86400');
    expect((await at("/economy/roi", economist)).headers.get("ratelimit-policy")).toBe('"daily";q=2000;w=86400');
    // Unlimited tiers carry no RateLimit fields.
    const unlimited = await at("/government/compliance-report.json", government);
    expect(unlimited.status).toBe(200);
    expect(unlimited.headers.get("ratelimit")).toBeNull();
    // A new UTC day, a new quota.
    clock = new Date("2026-03-02T00:00:01.000Z");
    const nextDay = await at("/academics/papers.json");
    expect(nextDay.status).toBe(200);
    expect(nextDay.headers.get("ratelimit")).toBe('"daily";r=99;t=86399');
  });
});
