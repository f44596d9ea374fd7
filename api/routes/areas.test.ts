import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKeyStore } from "../api-keys.ts";
import { startServer, type RunningServer } from "../server.ts";
import { tempDir } from "../../store/test-helpers.ts";

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
  const keys = new ApiKeyStore(join(dir, "api-keys.json"));
  governmentKey = keys.issue("government", "test ministry", new Date(0)).token;
  academicKey = keys.issue("academic", "test university", new Date(0)).token;
  server = await startServer({ host: "127.0.0.1", port: 0, dataDir: join(dir, "data"), keysFile: keys.path, log: () => {} });
});
afterAll(async () => {
  await server.close();
  cleanup();
});

const get = (path: string, headers: Record<string, string> = {}) => fetch(server.url + path, { headers });

describe("area files", () => {
  it("serves the spec's paths with the right content types and the manifest's bytes", async () => {
    const cases: [string, string, string][] = [
      ["/economy/supply", "application/json; charset=utf-8", "economy/supply.json"],
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
      expect(Buffer.from(await res.arrayBuffer()).equals(readFileSync(join(dir, "data", "areas", file))), path).toBe(true);
    }
  });

  it("keeps keyed files behind a key of the right tier (401 without, 403 with another tier)", async () => {
    for (const path of ["/government/compliance-report.json", "/government/policy-impact.json", "/government/ledger/export.csv"]) {
      const anonymous = await get(path);
      expect(anonymous.status, path).toBe(401);
      expect(anonymous.headers.get("content-type")).toBe("application/problem+json");
      expect(anonymous.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect((await anonymous.json()).type).toBe("https://integrity-platform.example/problems/unauthorized");
      expect((await get(path, { Authorization: `Bearer ${academicKey}` })).status, path).toBe(403);
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
      `Bearer ${governmentKey.slice(0, -1)}A`,
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
