/**
 * Trust boundaries, tried as an attacker would, over real HTTP against the real app on
 * loopback, on copies of the committed, signed data. Every reproduction of the issue is a test here
 * (§1–§4, §6's Bearer scheme and If-None-Match, §7–§9); each failed before the fix.
 *
 * Every request goes through `hit(category, …)`, which tallies per category the requests tried, the
 * unexpected server errors (any 5xx other than the designed 503 refusals `data-unverified`,
 * `history-unverified`) and the error bodies that are not problem+json; the tally must end at zero
 * for both and is printed at the end.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKeyStore } from "../api/clients/api-keys.ts";
import { createApp } from "../api/app.ts";
import { openLedgerStore } from "../store/open-ledger.ts";
import { DailyQuotas } from "../api/clients/quotas.ts";
import { listen, type RunningServer } from "../api/server/server.ts";
import { manualClock, tempDir, TEST_DATASET_SIGNER, TEST_DATASET_VKEY } from "./support/api/helpers.ts";
import { historyLine, sealPulse, type PulseRecord } from "../core/pulse/history.ts";
import { signManifest as signAnyManifest } from "../core/datapackage/signature.ts";
import { AREAS, areaAliases, areaFile, areaFiles, type Area } from "../core/datapackage/contract.ts";
import { verifyAreas } from "../pipeline/verify.ts";
import { DataVerificationError, verifyArea as siteVerifyArea } from "../site/src/lib/datapackage.ts";
import { DATASET_KEY, loadSigningKey } from "../store/keys.ts";

const REPO = new URL("..", import.meta.url).pathname;
const PROBLEM = "application/problem+json";

// ---------------------------------------------------------------------------------------------
// the tally

interface Tally {
  requests: number;
  unexpected5xx: number;
  nonProblemErrors: number;
}
const tally = new Map<string, Tally>();

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  text: string;
  json: () => Record<string, unknown>;
}

/** One raw HTTP request (the path is sent byte for byte), tallied under `category`. */
function hit(
  category: string,
  base: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; localAddress?: string } = {},
): Promise<Answer> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        agent: false,
        method: options.method ?? "GET",
        path,
        headers: options.headers ?? {},
        ...(options.localAddress ? { localAddress: options.localAddress } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const body = Buffer.concat(chunks);
          const status = res.statusCode ?? 0;
          const t = tally.get(category) ?? { requests: 0, unexpected5xx: 0, nonProblemErrors: 0 };
          t.requests += 1;
          const type = String(res.headers["content-type"] ?? "");
          const designed503 =
            status === 503 && type === PROBLEM && /\/(data-unverified|history-unverified)"/.test(body.toString("utf8"));
          if (status >= 500 && !designed503) t.unexpected5xx += 1;
          if (status >= 400 && (type !== PROBLEM || !isProblem(body))) t.nonProblemErrors += 1;
          tally.set(category, t);
          resolve({
            status,
            headers: res.headers,
            body,
            text: body.toString("utf8"),
            json: () => JSON.parse(body.toString("utf8")) as Record<string, unknown>,
          });
        });
      },
    );
    req.on("error", reject);
    req.end();
  });
}

function isProblem(body: Buffer): boolean {
  if (body.length === 0) return true; // HEAD
  try {
    const p = JSON.parse(body.toString("utf8")) as Record<string, unknown>;
    return (
      typeof p.type === "string" &&
      typeof p.title === "string" &&
      typeof p.status === "number" &&
      typeof p.detail === "string"
    );
  } catch {
    return false;
  }
}

const problemType = (a: Answer) =>
  (a.json().type as string).replace("https://integrity-platform.example/problems/", "");

// ---------------------------------------------------------------------------------------------
// a world: copies of the committed data, a site folder, an access ledger and a server

interface World {
  dir: string;
  data: string;
  site: string;
  keys: ApiKeyStore;
  clock: ReturnType<typeof manualClock>;
  server: RunningServer;
  url: string;
  stop(): Promise<void>;
}

async function world(
  options: { keyedDataDir?: (dir: string) => string; maxClients?: number; sketchWidth?: number } = {},
): Promise<World> {
  const { dir, cleanup } = tempDir("trust-");
  const data = join(dir, "data");
  for (const part of ["areas", "keys", "pulse", "schemas"])
    cpSync(join(REPO, "data", part), join(data, part), { recursive: true });
  // A site folder holding what a stale or tampered static build could: every area file, altered.
  const site = join(dir, "site");
  for (const area of AREAS) cpSync(join(data, "areas", area), join(site, area), { recursive: true });
  writeFileSync(join(site, "diplomacy", "standards.json"), '{"tampered":"static copy"}\n');
  writeFileSync(join(site, "economy", "supply"), readFileSync(join(data, "areas", "economy", "supply.json")));
  writeFileSync(join(site, "index.html"), "<!doctype html><title>site</title>\n");
  const clock = manualClock(Date.now());
  const keys = new ApiKeyStore(join(dir, "access.sqlite"), { durability: "normal" });
  const keyedDataDir = options.keyedDataDir?.(dir);
  // The ledger the live /economy/supply is computed from (empty here).
  const ledger = await openLedgerStore({
    path: join(dir, "ledger.sqlite"),
    origin: "trust-boundaries",
    durability: "normal",
  });
  const app = createApp({
    ledger,
    dataDir: data,
    ...(keyedDataDir ? { keyedDataDir } : {}),
    siteDir: site,
    now: clock.now,
    log: () => {},
    keys,
    quotas: new DailyQuotas({
      now: clock.now,
      ...(options.maxClients !== undefined ? { maxClients: options.maxClients } : {}),
      ...(options.sketchWidth ? { sketchWidth: options.sketchWidth } : {}),
    }),
  });
  const server = await listen(app, "127.0.0.1", 0);
  return {
    dir,
    data,
    site,
    keys,
    clock,
    server,
    url: server.url,
    stop: async () => {
      await server.close();
      await keys.close();
      await ledger.close();
      cleanup();
    },
  };
}

const sha256 = (bytes: Uint8Array | string) => `sha256:${createHash("sha256").update(bytes).digest("hex")}`;

/** Edits a manifest as a careless or hostile publisher would, without re-signing. */
function editManifest(data: string, area: Area, edit: (m: { resources: Record<string, unknown>[] }) => void): string {
  const file = join(data, "areas", area, "datapackage.json");
  const m = JSON.parse(readFileSync(file, "utf8")) as { resources: Record<string, unknown>[] };
  edit(m);
  const text = `${JSON.stringify(m, null, 2)}\n`;
  writeFileSync(file, text);
  return text;
}

// ---------------------------------------------------------------------------------------------

afterAll(async () => {
  const rows = [...tally].map(
    ([category, t]) =>
      `  ${category.padEnd(28)} ${String(t.requests).padStart(5)} requests   unexpected 5xx ${t.unexpected5xx}   non-problem error bodies ${t.nonProblemErrors}`,
  );
  const total = [...tally.values()].reduce(
    (a, t) => ({
      requests: a.requests + t.requests,
      unexpected5xx: a.unexpected5xx + t.unexpected5xx,
      nonProblemErrors: a.nonProblemErrors + t.nonProblemErrors,
    }),
    { requests: 0, unexpected5xx: 0, nonProblemErrors: 0 },
  );
  console.log(
    `trust-boundary requests by category:\n${rows.join("\n")}\n  ${"total".padEnd(28)} ${String(total.requests).padStart(5)} requests   unexpected 5xx ${total.unexpected5xx}   non-problem error bodies ${total.nonProblemErrors}`,
  );
  expect(total.unexpected5xx).toBe(0);
  expect(total.nonProblemErrors).toBe(0);
});

/** Lists a keyed file among the public resources, as public: what an edited manifest would claim. */
function makePublic(
  m: { resources: Record<string, unknown>[]; keyedResources?: Record<string, unknown>[] },
  path: string,
): void {
  const keyed = m.keyedResources ?? [];
  const at = keyed.findIndex((r) => r.path === path);
  const [entry] = keyed.splice(at, 1);
  m.resources.push({ ...entry, access: "public" });
}

describe("§1 one contract for published data: the verifier, the site build and the API agree", () => {
  let w: World;
  beforeAll(async () => {
    w = await world();
  });
  afterAll(async () => w.stop());

  it("a signed manifest that breaks the contract is refused by all three, whatever the break", async () => {
    // A trusted key (listed in this world's datasets.vkey) signs each broken manifest.
    const key = TEST_DATASET_SIGNER;
    writeFileSync(
      join(w.data, "keys", "datasets.vkey"),
      `${readFileSync(join(w.data, "keys", "datasets.vkey"), "utf8")}${TEST_DATASET_VKEY}\n`,
    );
    const pristine = readFileSync(join(w.data, "areas", "government", "datapackage.json"), "utf8");
    const status = (m: { resources: Record<string, unknown>[] }) =>
      m.resources.find((r) => r.path === "sentinel-status.json")!;
    const cases: [string, string, (m: { resources: Record<string, unknown>[] }) => void][] = [
      [
        "a resource path with a space (passed npm run verify, failed the site build)",
        "path-invalid",
        (m) => void (status(m).path = "a b.json"),
      ],
      ["a keyed file made public", "access-mismatch", (m) => void makePublic(m, "compliance-report.json")],
      ["a file the contract does not publish", "file-unknown", (m) => void (status(m).path = "extra.json")],
      ["an upper-case path", "path-invalid", (m) => void (status(m).path = "Sentinel-Status.json")],
      ["the manifest's own name", "path-reserved", (m) => void (status(m).path = "datapackage.json")],
      ["another media type", "mediatype-mismatch", (m) => void (status(m).mediatype = "text/csv")],
    ];
    for (const [what, code, edit] of cases) {
      writeFileSync(join(w.data, "areas", "government", "datapackage.json"), pristine);
      const text = editManifest(w.data, "government", edit);
      // Signed by a trusted key: only the contract can refuse it.
      writeFileSync(
        join(w.data, "areas", "government", "datapackage.json.sig"),
        signAnyManifest("government", text, key),
      );
      const verify = verifyAreas(join(w.data, "areas"), {
        areas: ["government"],
        keys: join(w.data, "keys", "datasets.vkey"),
      })[0]!;
      expect(verify.ok, `npm run verify: ${what}`).toBe(false);
      expect(() => siteVerifyArea(w.data, "government"), `site: ${what}`).toThrow(DataVerificationError);
      const api = await hit("§1 contract", w.url, "/government/transparency.pdf");
      expect(api.status, `API: ${what}`).toBe(503);
      expect(problemType(api)).toBe("data-unverified");
      // Refused by the contract, not for a signature: all three name the same rule.
      expect(api.json().detail, what).toContain(`(${code}: `);
      expect(verify.problem, what).not.toMatch(/signature/);
    }
    writeFileSync(join(w.data, "areas", "government", "datapackage.json"), pristine);
    cpSync(
      join(REPO, "data", "areas", "government", "datapackage.json.sig"),
      join(w.data, "areas", "government", "datapackage.json.sig"),
    );
    expect((await hit("§1 contract", w.url, "/government/sentinel-status.json")).status).toBe(200);
  });
});

describe("§2 the API trusts only signed manifests", () => {
  let w: World;
  let government: string;
  beforeAll(async () => {
    w = await world();
    government = (await w.keys.issue("government", "ministry", w.clock.now())).token;
  });
  afterAll(async () => w.stop());

  it("an edited file whose hash and bytes were updated in the manifest is not served", async () => {
    const file = join(w.data, "areas", "diplomacy", "standards.json");
    const edited = readFileSync(file, "utf8").replace("standards", "edited standards");
    writeFileSync(file, edited);
    editManifest(w.data, "diplomacy", (m) => {
      const r = m.resources.find((x) => x.path === "standards.json")!;
      r.hash = sha256(edited);
      r.bytes = Buffer.byteLength(edited);
    });
    const res = await hit("§2 signed manifests", w.url, "/diplomacy/standards.json");
    expect(res.status).toBe(503);
    expect(problemType(res)).toBe("data-unverified");
    expect(res.text).not.toContain("edited standards");
    // No file of that area is served while its manifest is unverified.
    expect((await hit("§2 signed manifests", w.url, "/diplomacy/protocols.json")).status).toBe(503);
  });

  it("a manifest edited to make a keyed file public does not open it", async () => {
    editManifest(w.data, "government", (m) => void makePublic(m, "compliance-report.json"));
    const anonymous = await hit("§2 signed manifests", w.url, "/government/compliance-report.json");
    expect(anonymous.status).toBe(401);
    expect(problemType(anonymous)).toBe("unauthorized");
    // Even the right key gets nothing from a manifest that is not the signed one.
    const keyed = await hit("§2 signed manifests", w.url, "/government/compliance-report.json", {
      headers: { Authorization: `Bearer ${government}` },
    });
    expect(keyed.status).toBe(503);
    cpSync(
      join(REPO, "data", "areas", "government", "datapackage.json"),
      join(w.data, "areas", "government", "datapackage.json"),
    );
    expect(
      (
        await hit("§2 signed manifests", w.url, "/government/compliance-report.json", {
          headers: { Authorization: `Bearer ${government}` },
        })
      ).status,
    ).toBe(200);
  });

  it("a missing signature, a stranger's signature or a missing key file leaves the area unverified", async () => {
    const sig = join(w.data, "areas", "economy", "datapackage.json.sig");
    const genuine = readFileSync(sig);
    rmSync(sig);
    expect((await hit("§2 signed manifests", w.url, "/economy/supply.json")).status).toBe(503);
    const stranger = loadSigningKey(DATASET_KEY, join(w.dir, "stranger"), {});
    writeFileSync(
      sig,
      signAnyManifest("economy", readFileSync(join(w.data, "areas", "economy", "datapackage.json")), stranger),
    );
    expect((await hit("§2 signed manifests", w.url, "/economy/supply.json")).status).toBe(503);
    writeFileSync(sig, genuine);
    expect((await hit("§2 signed manifests", w.url, "/economy/supply.json")).status).toBe(200);
    const vkey = join(w.data, "keys", "datasets.vkey");
    const keys = readFileSync(vkey);
    rmSync(vkey);
    expect((await hit("§2 signed manifests", w.url, "/economy/supply.json")).status).toBe(503);
    writeFileSync(vkey, keys);
    expect((await hit("§2 signed manifests", w.url, "/economy/supply.json")).status).toBe(200);
  });
});

describe("§3 the pulse history is served only as far as its signed checkpoint", () => {
  let w: World;
  let original: string;
  const history = () => join(w.data, "pulse", "history.jsonl");
  beforeAll(async () => {
    w = await world();
    original = readFileSync(history(), "utf8");
  });
  afterAll(async () => w.stop());
  const look = async () => {
    w.clock.advance(1001);
    const badge = (await hit("§3 pulse checkpoint", w.url, "/v1/pulse/badge")).json();
    const list = await hit("§3 pulse checkpoint", w.url, "/v1/pulse/history");
    const health = (await hit("§3 pulse checkpoint", w.url, "/health")).json() as {
      status: string;
      history: Record<string, unknown>;
    };
    return { badge, list, health };
  };

  it("a correctly chained record appended without re-signing the checkpoint is never served", async () => {
    const before = await look();
    expect(before.health.history).toMatchObject({ status: "verified", verified: true });
    const records = original
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as PulseRecord);
    const last = records[records.length - 1]!;
    const { hash: _hash, ...fields } = last;
    const forged = sealPulse({
      ...fields,
      id: crypto.randomUUID(),
      giScore: 0.42,
      miiScore: 0.42,
      generatedAt: new Date(Date.parse(last.generatedAt) + 3600_000).toISOString(),
      prev: last.hash,
    });
    writeFileSync(history(), `${original}${historyLine(forged)}\n`);
    const after = await look();
    expect(after.badge.message).not.toBe("42.0% / 42.0%");
    expect(after.badge).toEqual(before.badge);
    expect(after.list.status).toBe(200);
    expect(after.list.json().count).toBe(records.length);
    expect(after.health.status).toBe("degraded");
    expect(after.health.history).toMatchObject({
      status: "verified",
      records: records.length,
      unsigned_lines: 1,
      first_problem: { line: records.length + 1 },
    });
    expect(String((after.health.history.first_problem as { problem: string }).problem)).toMatch(
      /not covered by the checkpoint/,
    );
    // The same rule, the same code: npm run pulse -- --verify says the same.
    const verify = spawnSync(
      process.execPath,
      ["--import", "tsx", join(REPO, "pipeline", "pulse", "cli.ts"), "--verify", "--data", w.data],
      { cwd: REPO, encoding: "utf8" },
    );
    expect(verify.status).not.toBe(0);
    expect(verify.stdout + verify.stderr).toMatch(/not covered by the checkpoint/);
  });

  it("an emptied history is unverified: badge `unverified`, history 503", async () => {
    writeFileSync(history(), "");
    const { badge, list, health } = await look();
    expect(badge.message).toBe("unverified");
    expect(list.status).toBe(503);
    expect(problemType(list)).toBe("history-unverified");
    expect(health.history).toMatchObject({ status: "unverified", verified: false, records: 0 });
    writeFileSync(history(), original);
    expect((await look()).health.history).toMatchObject({ status: "verified", verified: true });
  });
});

describe("§4 one route per file, whatever the spelling", () => {
  let w: World;
  beforeAll(async () => {
    w = await world();
  });
  afterAll(async () => w.stop());

  it("every spelling of an area file is answered by the area route, never by the static copy", async () => {
    const genuine = readFileSync(join(w.data, "areas", "diplomacy", "standards.json"), "utf8");
    const spellings = [
      "/diplomacy/standards.json",
      "/diplomacy//standards.json",
      "//diplomacy/standards.json",
      "/diplomacy%2fstandards.json",
      "/diplomacy%2Fstandards.json",
      "/diplomacy%5cstandards.json",
      "/diplomacy/./standards.json",
      "/diplomacy/%2e/standards.json",
      "/diplomacy/standards.json/",
      "/Diplomacy/Standards.JSON",
      "/%64iplomacy/standards.json",
      "/diplomacy///standards.json",
      "/diplomacy/%2F/standards.json",
    ];
    for (const path of spellings) {
      const res = await hit("§4 spellings", w.url, path);
      expect(res.status, path).toBe(200);
      expect(res.headers.ratelimit, path).toBeDefined();
      expect(res.headers["content-type"], path).toBe("application/json; charset=utf-8");
      expect(res.text, path).toBe(genuine);
    }
    const supply = await hit("§4 spellings", w.url, "/economy//supply");
    expect(supply.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(supply.headers.ratelimit).toBeDefined();
  });

  it("no spelling escapes the quota: 300 requests on a quota of 100", async () => {
    const statuses = new Map<number, number>();
    const spellings = ["/philosophy//virtues.json", "/philosophy%2fvirtues.json", "/philosophy/virtues.json/"];
    for (let i = 0; i < 300; i++) {
      const res = await hit("§4 spellings", w.url, spellings[i % 3]!);
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    }
    expect(Object.fromEntries(statuses)).toEqual({ 200: 100, 429: 200 });
  });

  it("a tampered area file is refused under every spelling, never served from the static copy", async () => {
    writeFileSync(join(w.data, "areas", "economy", "roi.json"), "{}\n");
    for (const path of [
      "/economy/roi.json",
      "/economy//roi.json",
      "/economy%2froi.json",
      "/economy/roi",
      "/economy//roi",
      "/ECONOMY/ROI",
    ]) {
      const res = await hit("§4 spellings", w.url, path);
      expect(res.status, path).toBe(503);
      expect(problemType(res), path).toBe("data-unverified");
    }
  });

  it("climbing, undecodable and non-area paths are not area files", async () => {
    for (const path of [
      "/diplomacy/%2e%2e/%2e%2e/package.json",
      "/diplomacy/..%2f..%2fpackage.json",
      "/diplomacy/%E0%A4%A",
      "/diplomacy/standards.json%00",
      "/diplomacy%252fstandards.json",
      "/diplomacy/nope.json",
    ]) {
      const res = await hit("§4 spellings", w.url, path);
      expect(res.status, path).toBe(404);
    }
  });
});

describe("§4/§6 sweep: every area file × spelling × credential × method", () => {
  let w: World;
  let government: string;
  let academic: string;
  beforeAll(async () => {
    w = await world();
    government = (await w.keys.issue("government", "ministry", w.clock.now())).token;
    academic = (await w.keys.issue("academic", "university", w.clock.now())).token;
  });
  afterAll(async () => w.stop());

  it("answers each from the area route with the genuine bytes, or refuses with a problem — never the static copy", async () => {
    const routes = AREAS.flatMap((area) => [
      ...areaFiles(area).map((f) => ({ area, name: f.path, file: f })),
      // A live route (/economy/supply) answers from the ledger, not the file's bytes (test/live-supply.test.ts).
      ...Object.entries(areaAliases(area))
        .filter(([, r]) => r.kind !== "live")
        .map(([name, r]) => ({ area, name, file: areaFile(area, r.file)! })),
    ]);
    const spellings: ((area: string, name: string) => string)[] = [
      (a, n) => `/${a}/${n}`,
      (a, n) => `/${a}//${n}`,
      (a, n) => `/${a}%2f${n.replaceAll("/", "%2F")}`,
      (a, n) => `/${a.toUpperCase()}/${n.toUpperCase()}`,
      (a, n) => `/${a}/${n}/`,
      (a, n) => `/${a}/./${n}`,
    ];
    const credentials: (Record<string, string> | (() => Record<string, string>))[] = [
      {},
      { Authorization: "Bearer ipk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" },
      () => ({ Authorization: `bearer ${government}` }),
      () => ({ Authorization: `Bearer ${academic}` }),
      () => ({ Authorization: `Basic ${government}` }),
    ];
    const seen = new Map<number, number>();
    for (const { area, name, file } of routes) {
      const genuine = readFileSync(join(w.data, "areas", area, file.path));
      const stale = existsSync(join(w.site, area, name)) ? readFileSync(join(w.site, area, name)) : null;
      for (const spell of spellings) {
        for (const credential of credentials) {
          const headers = typeof credential === "function" ? credential() : credential;
          for (const method of ["GET", "HEAD"]) {
            const path = spell(area, name);
            const res = await hit("§4/§6 sweep", w.url, path, { method, headers });
            seen.set(res.status, (seen.get(res.status) ?? 0) + 1);
            const why = `${method} ${path} ${headers.Authorization?.slice(0, 12) ?? "-"}`;
            expect([200, 401, 403, 429], why).toContain(res.status);
            if (res.status !== 200) continue;
            if (file.access !== "public") expect(headers.Authorization, why).toBe(`bearer ${government}`);
            if (name !== "ledger/export") {
              expect(res.headers["content-type"], why).toMatch(
                file.mediatype === "text/csv" ? /^text\/csv/ : new RegExp(`^${file.mediatype.replace("/", "\\/")}`),
              );
              if (method === "GET") expect(res.body.equals(genuine), why).toBe(true);
            }
            if (stale && !stale.equals(genuine) && method === "GET") expect(res.body.equals(stale), why).toBe(false);
          }
        }
      }
    }
    expect(seen.get(200)).toBeGreaterThan(0);
    expect(seen.get(401)).toBeGreaterThan(0);
    expect(seen.get(403)).toBeGreaterThan(0);
  });
});

describe("§6 Bearer scheme in any case; 304 on If-None-Match", () => {
  let w: World;
  let government: string;
  beforeAll(async () => {
    w = await world();
    government = (await w.keys.issue("government", "ministry", w.clock.now())).token;
  });
  afterAll(async () => w.stop());

  it("accepts the scheme in any case (RFC 9110 §11.1)", async () => {
    for (const scheme of ["Bearer", "bearer", "BEARER", "bEaReR"]) {
      const res = await hit("§6 bearer", w.url, "/government/policy-impact.json", {
        headers: { Authorization: `${scheme} ${government}` },
      });
      expect(res.status, scheme).toBe(200);
    }
    for (const auth of [
      `Basic ${government}`,
      `Bearer ${government} ${government}`,
      `Bearer,${government}`,
      "Bearer",
    ]) {
      expect(
        (await hit("§6 bearer", w.url, "/government/policy-impact.json", { headers: { Authorization: auth } })).status,
        auth.slice(0, 20),
      ).toBe(401);
    }
  });

  it("answers 304 to If-None-Match with the ETag, *, or a weak tag; keyed files still need the key", async () => {
    const first = await hit("§6 conditional", w.url, "/academics/papers.json");
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^"[0-9a-f]{64}"$/);
    for (const tag of [etag, `W/${etag}`, "*", `"x", ${etag}`]) {
      const res = await hit("§6 conditional", w.url, "/academics/papers.json", { headers: { "If-None-Match": tag } });
      expect(res.status, tag).toBe(304);
      expect(res.body.length).toBe(0);
      expect(res.headers.etag).toBe(etag);
      expect(res.headers.ratelimit).toBeDefined();
    }
    expect(
      (await hit("§6 conditional", w.url, "/academics/papers.json", { headers: { "If-None-Match": '"other"' } }))
        .status,
    ).toBe(200);
    const keyed = await hit("§6 conditional", w.url, "/government/policy-impact.json", {
      headers: { Authorization: `Bearer ${government}` },
    });
    expect(
      (
        await hit("§6 conditional", w.url, "/government/policy-impact.json", {
          headers: { "If-None-Match": String(keyed.headers.etag) },
        })
      ).status,
    ).toBe(401);
    expect(
      (
        await hit("§6 conditional", w.url, "/government/policy-impact.json", {
          headers: { "If-None-Match": String(keyed.headers.etag), Authorization: `Bearer ${government}` },
        })
      ).status,
    ).toBe(304);
  });
});

describe("§7 keys: revoke, rotate, expiry, ids never reused, and the access audit", () => {
  let w: World;
  const cli = (...args: string[]) =>
    spawnSync(process.execPath, ["--import", "tsx", join(REPO, "api", "cli", "keys.ts"), ...args], {
      cwd: REPO,
      encoding: "utf8",
      env: { ...process.env, ACCESS_LEDGER_DB: join(w.dir, "access.sqlite"), STATE_DIR: join(w.dir, "state") },
    });
  const tokenOf = (out: string) => /key \(shown once[^:]*\): (ipk_\S+)/.exec(out)![1]!;
  const gov = (token: string, path = "/government/compliance-report.json") =>
    hit("§7 keys", w.url, path, { headers: { Authorization: `Bearer ${token}` } });
  beforeAll(async () => {
    w = await world();
  });
  afterAll(async () => w.stop());

  it("npm run keys -- revoke takes effect on the running API at once", async () => {
    const issued = cli("issue", "--tier", "government", "--label", "Ministry of Tests");
    expect(issued.status, issued.stderr).toBe(0);
    const token = tokenOf(issued.stdout);
    expect((await gov(token)).status).toBe(200);
    const revoked = cli("revoke", "government-1", "--reason", "key compromise");
    expect(revoked.status, revoked.stderr).toBe(0);
    const refused = await gov(token);
    expect(refused.status).toBe(401);
    expect(refused.json().detail).toMatch(/government-1 is revoked/);
    expect(cli("revoke", "government-99").status).toBe(1);
    expect(cli("revoke").status).toBe(2);
  });

  it("npm run keys -- rotate issues a successor; the old key works through the grace period, then retires", async () => {
    const old = tokenOf(cli("issue", "--tier", "government", "--label", "Ministry of Rotation").stdout);
    const rotated = cli("rotate", "government-2");
    expect(rotated.status, rotated.stderr).toBe(0);
    expect(rotated.stdout).toMatch(/issued government-3 .* the successor of government-2/);
    const successor = tokenOf(rotated.stdout);
    expect((await gov(old)).status).toBe(200);
    expect((await gov(successor)).status).toBe(200);
    w.clock.advance(15 * 86_400_000);
    expect((await gov(old)).status).toBe(401);
    expect((await gov(successor)).status).toBe(200);
    expect(cli("rotate", "government-2").status).toBe(1);
  });

  it("a government key expires after 90 days and a 14-day grace", async () => {
    const token = (await w.keys.issue("government", "quarterly", w.clock.now())).token;
    w.clock.advance(95 * 86_400_000);
    expect((await gov(token)).status).toBe(200);
    w.clock.advance(10 * 86_400_000);
    const expired = await gov(token);
    expect(expired.status).toBe(401);
    expect(expired.json().detail).toMatch(/is expired/);
  });

  it("ids are never reused, so two keys never share a quota", async () => {
    for (let i = 0; i < 4; i++) await w.keys.issue("economist", `bank ${i}`, w.clock.now());
    await w.keys.revoke("economist-2", "left", w.clock.now());
    const next = await w.keys.issue("economist", "bank 5", w.clock.now());
    expect(next.key.id).toBe("economist-5");
    const fourth = (await w.keys.list()).find((k) => k.id === "economist-4")!;
    expect(fourth.sha256).not.toBe(next.key.sha256);
    const ids = (await w.keys.list()).map((k) => k.id);
    expect(new Set(ids).size).toBe(ids.length);
    const a = await hit("§7 keys", w.url, "/economy/supply", { headers: { Authorization: `Bearer ${next.token}` } });
    expect(a.headers.ratelimit).toMatch(/r=1999;/);
    const b = await hit("§7 keys", w.url, "/economy/supply", { headers: { Authorization: `Bearer ${next.token}` } });
    expect(b.headers.ratelimit).toMatch(/r=1998;/);
  });

  it("every keyed access is in the append-only audit log, which an auditor exports and checks offline; never the key", async () => {
    const token = (await w.keys.issue("government", "auditor test", w.clock.now())).token;
    expect((await gov(token)).status).toBe(200);
    expect((await gov(token, "/government/ledger/export?format=bogus")).status).toBe(400);
    expect((await hit("§7 keys", w.url, "/government/policy-impact.json")).status).toBe(401);
    expect((await gov(token, "/academics/papers.json")).status).toBe(200);
    // Refusals of requests with no known key are counted per window: a request in a
    // later window writes the finished window's counts.
    w.clock.advance(61_000);
    expect((await hit("§7 keys", w.url, "/government/policy-impact.json")).status).toBe(401);
    const ledgerCli = (...args: string[]) =>
      spawnSync(
        process.execPath,
        [
          "--import",
          "tsx",
          join(REPO, "cli", "ledger-cli.ts"),
          ...args,
          "--ledger",
          "access",
          "--db",
          join(w.dir, "access.sqlite"),
        ],
        {
          cwd: REPO,
          encoding: "utf8",
          env: { ...process.env, STATE_DIR: join(w.dir, "state") },
        },
      );
    expect(ledgerCli("verify").status).toBe(0);
    const out = join(w.dir, "audit-export");
    const exported = ledgerCli("export", out);
    expect(exported.status, exported.stderr).toBe(0);
    const vkey = cli("vkey").stdout.trim();
    const check = spawnSync(
      process.execPath,
      ["--import", "tsx", join(REPO, "cli", "ledger-cli.ts"), "verify-export", out, "--key", vkey],
      { cwd: REPO, encoding: "utf8" },
    );
    expect(check.status, check.stdout + check.stderr).toBe(0);
    const lines = readFileSync(join(out, "ledger.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; ts: string; payload: Record<string, unknown> });
    const accesses = lines.filter((e) => e.type === "access").map((e) => e.payload);
    // The export refused for its query string is answered by the route declaration before the
    // area handler: no data was reached, so it is in the request log, not the access audit.
    expect(accesses.slice(-2)).toEqual([
      expect.objectContaining({
        key_status: "active",
        tier: "government",
        area: "government",
        file: "compliance-report.json",
        outcome: "served",
        status: 200,
      }),
      expect.objectContaining({
        tier: "government",
        area: "academics",
        file: "papers.json",
        outcome: "served",
        status: 200,
      }),
    ]);
    expect(lines.at(-1)).toMatchObject({
      type: "access.refusals",
      payload: {
        credential: "none",
        area: "government",
        file: "policy-impact.json",
        outcome: "unauthorized",
        status: 401,
        count: 1,
      },
    });
    expect(accesses.some((a) => a.key_id === null)).toBe(false);
    expect(lines.every((e) => typeof e.ts === "string")).toBe(true);
    // Revoked and retired keys are audited too, with their id and status.
    expect(
      accesses.some((a) => a.key_id === "government-1" && a.key_status === "revoked" && a.outcome === "unauthorized"),
    ).toBe(true);
    // The token never reaches the ledger, the export or the database file.
    for (const file of [join(out, "ledger.jsonl"), join(w.dir, "access.sqlite")])
      expect(readFileSync(file).includes(token)).toBe(false);
    // Anonymous requests for public files are not audited (they are in the request log).
    expect(accesses.some((a) => a.key_id === null && a.file === "papers.json")).toBe(false);
  });
});

describe("§8 keyed data never reaches the public", () => {
  let w: World;
  beforeAll(async () => {
    w = await world({ keyedDataDir: (dir) => join(dir, "private") });
    // A deployment: the keyed files only in the private store, the signed manifests public.
    for (const path of ["compliance-report.json", "policy-impact.json", "ledger/export.json", "ledger/export.csv"]) {
      const from = join(w.data, "areas", "government", path);
      const to = join(w.dir, "private", "areas", "government", path);
      mkdirSync(join(to, ".."), { recursive: true });
      cpSync(from, to);
      rmSync(from);
      rmSync(join(w.site, "government", path), { force: true });
    }
  });
  afterAll(async () => w.stop());

  it("the API serves keyed files from the keyed store, verified against the public signed manifest", async () => {
    const token = (await w.keys.issue("government", "ministry", w.clock.now())).token;
    const res = await hit("§8 keyed store", w.url, "/government/compliance-report.json", {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(200);
    expect(res.text).toBe(
      readFileSync(join(w.dir, "private", "areas", "government", "compliance-report.json"), "utf8"),
    );
    expect(existsSync(join(w.data, "areas", "government", "compliance-report.json"))).toBe(false);
    // The public copy verifies on its own, and the public guard passes.
    const [government] = verifyAreas(join(w.data, "areas"), {
      areas: ["government"],
      keys: join(w.data, "keys", "datasets.vkey"),
      publicOnly: true,
    });
    expect(government).toMatchObject({ ok: true, keyedAbsent: 4 });
    expect(siteVerifyArea(w.data, "government")).not.toBeNull();
    // A tampered keyed file is refused.
    writeFileSync(join(w.dir, "private", "areas", "government", "policy-impact.json"), "{}\n");
    expect(
      (
        await hit("§8 keyed store", w.url, "/government/policy-impact.json", {
          headers: { Authorization: `Bearer ${token}` },
        })
      ).status,
    ).toBe(503);
  });
});

describe("§9 quotas cannot be turned into a lock-out", () => {
  let w: World;
  beforeAll(async () => {
    w = await world({ maxClients: 2, sketchWidth: 64 });
  });
  afterAll(async () => w.stop());

  it("with a cap of 2 exact clients, later clients are still served, each held to its quota", async () => {
    // Loopback is 127.0.0.0/8: every address is a different client.
    for (const address of ["127.0.0.2", "127.0.0.3"])
      expect((await hit("§9 quotas", w.url, "/diplomacy/protocols.json", { localAddress: address })).status).toBe(200);
    for (let i = 10; i < 40; i++) {
      const res = await hit("§9 quotas", w.url, "/diplomacy/protocols.json", { localAddress: `127.0.1.${i}` });
      expect(res.status, `127.0.1.${i}`).toBe(200);
      expect(res.headers.ratelimit).toMatch(/^"daily";r=\d+;t=\d+$/);
    }
    let served = 0;
    for (let i = 0; i < 110; i++)
      if ((await hit("§9 quotas", w.url, "/diplomacy/protocols.json", { localAddress: "127.0.2.1" })).status === 200)
        served++;
    expect(served).toBeGreaterThan(80);
    expect(served).toBeLessThanOrEqual(100);
  });
});
