import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { HISTORY_MAX_LIMIT, sealPulse, type PulseRecord } from "../../core/pulse/history.ts";
import { PulseBadge, PulseHistoryResponse } from "../../core/schemas/pulse.ts";
import { PROBLEM_BASE } from "../problems/problem.ts";
import { historyPath } from "../sources/pulse-history.ts";
import {
  historyText,
  manualClock,
  sampleHistory,
  signHistory,
  testServer,
  writeHistory,
  type TestServer,
} from "../../test/support/api/helpers.ts";

const PROBLEM_JSON = "application/problem+json";

async function problemOf(res: Response, status: number, slug: string): Promise<Record<string, unknown>> {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toBe(PROBLEM_JSON);
  const body = (await res.json()) as Record<string, unknown>;
  expect(body.type).toBe(PROBLEM_BASE + slug);
  expect(body.status).toBe(status);
  expect(typeof body.title).toBe("string");
  expect(typeof body.detail).toBe("string");
  expect(typeof body.instance).toBe("string");
  return body;
}

function paramNames(body: Record<string, unknown>): string[] {
  return (body.invalid_params as { name: string; reason: string }[]).map((p) => p.name);
}

function nextLink(res: Response): string | null {
  const link = res.headers.get("link");
  if (!link) return null;
  const match = /^<([^>]+)>; rel="next"$/.exec(link);
  expect(match).not.toBeNull();
  return match![1]!;
}

describe("GET /v1/pulse/badge", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await testServer(sampleHistory(100, { latest: { giScore: 0.985, miiScore: 0.96 } }));
  });
  afterAll(() => server.stop());
  const get = (query = "", init?: RequestInit) => fetch(`${server.url}/v1/pulse/badge${query}`, init);

  test("combined badge from the latest record, as shields.io endpoint JSON", async () => {
    const res = await get();
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const body = PulseBadge.parse(await res.json());
    expect(body).toEqual({
      schemaVersion: 1,
      label: "integrity",
      message: "98.5% / 96.0%",
      color: "yellowgreen",
      cacheSeconds: 300,
    });
  });

  test("single-metric badges: that metric alone drives the color", async () => {
    expect(await (await get("?metric=gi")).json()).toEqual({
      schemaVersion: 1,
      label: "GI",
      message: "98.5%",
      color: "brightgreen",
      cacheSeconds: 300,
    });
    expect(await (await get("?metric=mii")).json()).toEqual({
      schemaVersion: 1,
      label: "MII",
      message: "96.0%",
      color: "yellowgreen",
      cacheSeconds: 300,
    });
  });

  test("Cache-Control, Vary and a strong ETag that is the SHA-256 of the body", async () => {
    const res = await get();
    expect(res.headers.get("cache-control")).toBe("public, max-age=300");
    expect(res.headers.get("vary")).toBe("Accept");
    const body = Buffer.from(await res.arrayBuffer());
    expect(res.headers.get("etag")).toBe(`"${createHash("sha256").update(body).digest("hex")}"`);
  });

  test("If-None-Match answers 304 without a body (exact, weak-prefixed, list, *); a stale tag gets 200", async () => {
    const etag = (await get()).headers.get("etag")!;
    for (const header of [etag, `W/${etag}`, `"nope", ${etag}`, "*"]) {
      const res = await get("", { headers: { "If-None-Match": header } });
      expect(res.status).toBe(304);
      expect(res.headers.get("etag")).toBe(etag);
      expect(res.headers.get("cache-control")).toBe("public, max-age=300");
      expect(await res.text()).toBe("");
    }
    const stale = await get("", { headers: { "If-None-Match": '"0000"' } });
    expect(stale.status).toBe(200);
    // Each metric and format has its own tag.
    const gi = (await get("?metric=gi")).headers.get("etag");
    const svg = (await get("?format=svg")).headers.get("etag");
    expect(new Set([etag, gi, svg]).size).toBe(3);
  });

  test("?format=svg returns the SVG badge; format=json the JSON", async () => {
    const res = await get("?format=svg&metric=mii");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^image\/svg\+xml/);
    expect(res.headers.get("cache-control")).toBe("public, max-age=300");
    expect(res.headers.get("etag")).toMatch(/^"[0-9a-f]{64}"$/);
    const svg = await res.text();
    expect(svg.startsWith("<svg")).toBe(true);
    expect(svg).toContain("MII: 96.0%");
    const json = await get("?format=json", { headers: { Accept: "image/svg+xml" } });
    expect(json.headers.get("content-type")).toMatch(/^application\/json/);
  });

  test.each([
    ["image/svg+xml", "svg"],
    ["image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8", "svg"],
    ["application/json;q=0.9, image/svg+xml", "svg"],
    ["image/*", "svg"],
    ["image/svg+xml;q=0.5, application/json", "json"],
    ["image/svg+xml, application/json", "json"],
    ["*/*", "json"],
    ["text/html", "json"],
    ["application/json, image/svg+xml;q=0", "json"],
  ])("Accept %s → %s", async (accept, expected) => {
    const res = await get("", { headers: { Accept: accept } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(expected === "svg" ? /^image\/svg\+xml/ : /^application\/json/);
  });

  test.each([
    ["?metric=combined", ["metric"]],
    ["?metric=GI", ["metric"]],
    ["?metric=", ["metric"]],
    ["?metric", ["metric"]],
    ["?metric=gi&metric=mii", ["metric"]],
    ["?format=png", ["format"]],
    ["?format=", ["format"]],
    ["?colour=red", ["colour"]],
    ["?metric=gi&x=1&y=2", ["x", "y"]],
  ])("%s → 400 invalid-query naming %j", async (query, names) => {
    const body = await problemOf(await get(query), 400, "invalid-query");
    expect(paramNames(body)).toEqual(names);
    expect(body.instance).toBe("/v1/pulse/badge");
    expect(JSON.stringify(body)).not.toMatch(/at .*\.ts:\d+/);
  });

  test("HEAD answers like GET without a body", async () => {
    const res = await get("", { method: "HEAD" });
    expect(res.status).toBe(200);
    expect(res.headers.get("etag")).toMatch(/^"[0-9a-f]{64}"$/);
    expect(await res.text()).toBe("");
  });
});

describe("badge colors follow the spec's table", () => {
  test.each([
    [0.99, 0.98, "brightgreen", "brightgreen", "brightgreen"],
    [0.98, 0.979, "yellowgreen", "brightgreen", "yellowgreen"],
    [0.95, 0.97, "yellowgreen", "yellowgreen", "yellowgreen"],
    [0.92, 0.99, "yellow", "yellow", "brightgreen"],
    [0.9, 0.9, "yellow", "yellow", "yellow"],
    [0.89, 0.99, "red", "red", "brightgreen"],
    [0.999, 0.1, "red", "brightgreen", "red"],
  ])("GI %s, MII %s → combined %s, gi %s, mii %s", async (giScore, miiScore, combined, gi, mii) => {
    const server = await testServer(sampleHistory(3, { latest: { giScore, miiScore } }));
    try {
      const colors = [];
      for (const q of ["", "?metric=gi", "?metric=mii"])
        colors.push(((await (await fetch(`${server.url}/v1/pulse/badge${q}`)).json()) as PulseBadge).color);
      expect(colors).toEqual([combined, gi, mii]);
    } finally {
      await server.stop();
    }
  });
});

describe("no history yet", () => {
  test("missing file: the `no data` badge and an empty history", async () => {
    const server = await testServer(null);
    try {
      for (const [q, label] of [
        ["", "integrity"],
        ["?metric=gi", "GI"],
        ["?metric=mii", "MII"],
      ] as const) {
        const res = await fetch(`${server.url}/v1/pulse/badge${q}`);
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual({
          schemaVersion: 1,
          label,
          message: "no data",
          color: "lightgrey",
          isError: true,
          cacheSeconds: 300,
        });
      }
      const svg = await (await fetch(`${server.url}/v1/pulse/badge?format=svg`)).text();
      expect(svg).toContain("no data");
      const history = await fetch(`${server.url}/v1/pulse/history`);
      expect(history.status).toBe(200);
      expect(await history.json()).toEqual({ count: 0, items: [] });
      expect(history.headers.get("link")).toBeNull();
    } finally {
      await server.stop();
    }
  });

  test("empty file: the same, and `before` names no record", async () => {
    const server = await testServer([]);
    try {
      expect(((await (await fetch(`${server.url}/v1/pulse/badge`)).json()) as PulseBadge).message).toBe("no data");
      expect(await (await fetch(`${server.url}/v1/pulse/history`)).json()).toEqual({ count: 0, items: [] });
      const res = await fetch(`${server.url}/v1/pulse/history?before=${crypto.randomUUID()}`);
      expect(paramNames(await problemOf(res, 400, "invalid-query"))).toEqual(["before"]);
    } finally {
      await server.stop();
    }
  });
});

describe("GET /v1/pulse/history", () => {
  let server: TestServer;
  let records: PulseRecord[];
  beforeAll(async () => {
    records = sampleHistory(100);
    server = await testServer(records);
  });
  afterAll(() => server.stop());
  const get = (query = "", init?: RequestInit) => fetch(`${server.url}/v1/pulse/history${query}`, init);

  test("default: the 90 newest, newest first, body exactly {count, items}", async () => {
    const res = await get();
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(res.headers.get("cache-control")).toBe("public, max-age=60");
    expect(res.headers.get("x-limit-clamped")).toBeNull();
    const raw = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(raw).sort()).toEqual(["count", "items"]);
    const body = PulseHistoryResponse.parse(raw);
    expect(body.count).toBe(90);
    expect(body.items.map((r) => r.id)).toEqual(
      records
        .slice(-90)
        .reverse()
        .map((r) => r.id),
    );
    for (let i = 1; i < body.items.length; i++)
      expect(body.items[i - 1]!.generatedAt > body.items[i]!.generatedAt).toBe(true);
    expect(body.items[0]).toEqual(records[99]);
    expect(nextLink(res)).toBe(`/v1/pulse/history?limit=90&before=${records[10]!.id}`);
  });

  test("limit=365 returns all 100 without a next link; limit=1000 is clamped and says so", async () => {
    const all = await get("?limit=365");
    expect(((await all.json()) as { count: number }).count).toBe(100);
    expect(all.headers.get("link")).toBeNull();
    expect(all.headers.get("x-limit-clamped")).toBeNull();
    const clamped = await get("?limit=1000");
    expect(clamped.status).toBe(200);
    expect(clamped.headers.get("x-limit-clamped")).toBe(String(HISTORY_MAX_LIMIT));
    expect(((await clamped.json()) as { count: number }).count).toBe(100);
    const huge = await get("?limit=999999999");
    expect(huge.headers.get("x-limit-clamped")).toBe("365");
  });

  test("limit=1 returns the newest record only", async () => {
    const body = (await (await get("?limit=1")).json()) as { count: number; items: PulseRecord[] };
    expect(body).toEqual({ count: 1, items: [records[99]] });
  });

  test("following the next links collects every id exactly once, newest first", async () => {
    const seen: string[] = [];
    let url: string | null = "/v1/pulse/history?limit=7";
    let pages = 0;
    while (url) {
      const res = await fetch(server.url + url);
      expect(res.status).toBe(200);
      const body = PulseHistoryResponse.parse(await res.json());
      expect(body.count).toBeGreaterThan(0);
      seen.push(...body.items.map((r) => r.id));
      url = nextLink(res);
      pages++;
      expect(pages).toBeLessThanOrEqual(15);
    }
    expect(pages).toBe(15);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(records.map((r) => r.id).reverse());
  });

  test("ETag and If-None-Match → 304 keeping the paging headers", async () => {
    const res = await get("?limit=10");
    const etag = res.headers.get("etag")!;
    expect(etag).toBe(
      `"${createHash("sha256")
        .update(Buffer.from(await res.arrayBuffer()))
        .digest("hex")}"`,
    );
    const again = await get("?limit=10", { headers: { "If-None-Match": etag } });
    expect(again.status).toBe(304);
    expect(again.headers.get("cache-control")).toBe("public, max-age=60");
    expect(again.headers.get("link")).toBe(res.headers.get("link"));
    expect(await again.text()).toBe("");
    expect((await get("?limit=11", { headers: { "If-None-Match": etag } })).status).toBe(200);
  });

  test.each([
    ["limit=-1", "limit"],
    ["limit=0", "limit"],
    ["limit=1.5", "limit"],
    ["limit=abc", "limit"],
    ["limit=1e3", "limit"],
    ["limit=1e2", "limit"],
    ["limit=0x10", "limit"],
    ["limit=%2B5", "limit"],
    ["limit=+5", "limit"],
    ["limit=007", "limit"],
    ["limit=%00", "limit"],
    ["limit=5%00", "limit"],
    ["limit=", "limit"],
    ["limit", "limit"],
    ["limit=%20 5", "limit"],
    ["limit=1&limit=2", "limit"],
    ["limit=1234567890", "limit"],
    [`limit=${"9".repeat(10_240)}`, "limit"],
    [`limit=${"a".repeat(10_240)}`, "limit"],
    ["before=../../etc/passwd", "before"],
    ["before=%2e%2e%2f%2e%2e%2fetc%2fpasswd", "before"],
    ["before=", "before"],
    ["before=not-a-uuid", "before"],
    ["offset=10", "offset"],
    ["LIMIT=10", "LIMIT"],
  ])("hostile query %s → 400 naming %s", async (query, name) => {
    const res = await get(`?${query}`);
    const body = await problemOf(res, 400, "invalid-query");
    expect(paramNames(body)).toEqual([name]);
    // Nothing the client sent is echoed at length.
    expect(JSON.stringify(body).length).toBeLessThan(1500);
  });

  test("a 10 KB parameter name is rejected and cut when echoed", async () => {
    const body = await problemOf(await get(`?${"x".repeat(10_240)}=1`), 400, "invalid-query");
    expect(JSON.stringify(body).length).toBeLessThan(1500);
  });

  test("an unknown `before` is a 400 with a clear detail", async () => {
    const unknown = crypto.randomUUID();
    const body = await problemOf(await get(`?before=${unknown}`), 400, "invalid-query");
    expect(body.invalid_params).toEqual([
      { name: "before", reason: `no record with id ${unknown} in the pulse history` },
    ]);
    expect(body.detail).toContain(unknown);
  });

  test("`before` the oldest record gives an empty last page", async () => {
    const res = await get(`?before=${records[0]!.id}`);
    expect(await res.json()).toEqual({ count: 0, items: [] });
    expect(res.headers.get("link")).toBeNull();
  });
});

describe("paging a long history with the maximum limit", () => {
  test("400 records: limit=1000 → 365 clamped, then the remaining 35", async () => {
    const records = sampleHistory(400);
    const server = await testServer(records);
    try {
      const first = await fetch(`${server.url}/v1/pulse/history?limit=1000`);
      expect(first.headers.get("x-limit-clamped")).toBe("365");
      const page1 = PulseHistoryResponse.parse(await first.json());
      expect(page1.count).toBe(365);
      const next = nextLink(first)!;
      expect(next).toBe(`/v1/pulse/history?limit=365&before=${page1.items[364]!.id}`);
      const second = await fetch(server.url + next);
      const page2 = PulseHistoryResponse.parse(await second.json());
      expect(page2.count).toBe(35);
      expect(nextLink(second)).toBeNull();
      expect([...page1.items, ...page2.items].map((r) => r.id)).toEqual(records.map((r) => r.id).reverse());
    } finally {
      await server.stop();
    }
  });
});

describe("a changed history file", () => {
  test("one byte changed: history 503 naming the line, badge `unverified`; restored and appended files reload", async () => {
    const clock = manualClock();
    const records = sampleHistory(20, { latest: { giScore: 0.99, miiScore: 0.99 } });
    const server = await testServer(records, { now: clock.now });
    const badge = async (q = "") => (await (await fetch(`${server.url}/v1/pulse/badge${q}`)).json()) as PulseBadge;
    try {
      expect((await badge()).color).toBe("brightgreen");
      const path = historyPath(server.dataDir);
      const original = readFileSync(path, "utf8");
      const lines = original.split("\n");
      expect(lines[4]).toContain('"branch":"main"');
      lines[4] = lines[4]!.replace('"branch":"main"', '"branch":"mair"');
      const tampered = lines.join("\n");
      expect(tampered.length).toBe(original.length);
      writeFileSync(path, tampered);
      clock.advance(1001);

      const res = await fetch(`${server.url}/v1/pulse/history`);
      const body = await problemOf(res, 503, "history-unverified");
      expect(body.line).toBe(5);
      expect(body.detail).toContain("line 5");
      expect(String(body.problem)).toContain("hash mismatch");
      for (const [q, label] of [
        ["", "integrity"],
        ["?metric=gi", "GI"],
        ["?metric=mii", "MII"],
      ] as const) {
        expect(await badge(q)).toEqual({
          schemaVersion: 1,
          label,
          message: "unverified",
          color: "lightgrey",
          isError: true,
          cacheSeconds: 300,
        });
      }
      expect(await (await fetch(`${server.url}/v1/pulse/badge?format=svg`)).text()).toContain("unverified");
      const health = (await (await fetch(`${server.url}/health`)).json()) as {
        status: string;
        history: Record<string, unknown>;
      };
      expect(health.status).toBe("degraded");
      expect(health.history).toMatchObject({
        status: "unverified",
        verified: false,
        records: 0,
        first_problem: { line: 5 },
      });

      // Restored: served again.
      writeFileSync(path, original);
      clock.advance(1001);
      expect((await fetch(`${server.url}/v1/pulse/history`)).status).toBe(200);
      expect((await badge()).color).toBe("brightgreen");

      // Appended: the new latest record drives the badge once the file has been looked at again.
      const { hash: _hash, ...fields } = records[19]!;
      const sealed = sealPulse({
        ...fields,
        id: crypto.randomUUID(),
        giScore: 0.91,
        miiScore: 0.99,
        generatedAt: new Date(Date.parse(fields.generatedAt) + 3600_000).toISOString(),
        prev: records[19]!.hash,
      });
      writeFileSync(path, original + historyText([sealed]));
      // Not served until the checkpoint signs it.
      clock.advance(1001);
      expect(await badge()).toMatchObject({ message: "99.0% / 99.0%", color: "brightgreen" });
      signHistory(server.dataDir, original + historyText([sealed]));
      clock.advance(1001);
      expect(await badge()).toMatchObject({ message: "91.0% / 99.0%", color: "yellow" });
      const history = (await (await fetch(`${server.url}/v1/pulse/history`)).json()) as {
        count: number;
        items: PulseRecord[];
      };
      expect(history.count).toBe(21);
      expect(history.items[0]!.id).toBe(sealed.id);
    } finally {
      await server.stop();
    }
  });

  test("the file is looked at no more than once per second of the clock", async () => {
    const clock = manualClock();
    const records = sampleHistory(5, { latest: { giScore: 0.99, miiScore: 0.99 } });
    const server = await testServer(records, { now: clock.now });
    try {
      expect(((await (await fetch(`${server.url}/v1/pulse/badge`)).json()) as PulseBadge).color).toBe("brightgreen");
      writeHistory(server.dataDir, sampleHistory(5, { latest: { giScore: 0.5, miiScore: 0.5 } }));
      clock.advance(500);
      expect(((await (await fetch(`${server.url}/v1/pulse/badge`)).json()) as PulseBadge).color).toBe("brightgreen");
      clock.advance(501);
      expect(((await (await fetch(`${server.url}/v1/pulse/badge`)).json()) as PulseBadge).color).toBe("red");
    } finally {
      await server.stop();
    }
  });

  test("a history that is not canonical, broken mid-chain or out of order fails closed", async () => {
    const records = sampleHistory(6);
    const reordered = [...records];
    [reordered[2], reordered[3]] = [reordered[3]!, reordered[2]!];
    const cases: [string, string][] = [
      [historyText(records).replace(/\n$/, ""), "newline"],
      [historyText([...records.slice(0, 2), ...records.slice(3)]), "prev"],
      [historyText(reordered), "prev"],
      [historyText(records) + "{not json}\n", "JSON"],
    ];
    for (const [text, problemText] of cases) {
      const server = await testServer(null);
      try {
        signHistory(server.dataDir, text);
        writeFileSync(historyPath(server.dataDir), text);
        const body = await problemOf(await fetch(`${server.url}/v1/pulse/history`), 503, "history-unverified");
        expect(String(body.problem)).toContain(problemText);
        expect(((await (await fetch(`${server.url}/v1/pulse/badge`)).json()) as PulseBadge).message).toBe("unverified");
      } finally {
        await server.stop();
      }
    }
  });
});
