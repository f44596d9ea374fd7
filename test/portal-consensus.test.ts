/**
 * The /consensus page in Debian's chromium: the site built from the repository's data, served with
 * the API over a real ledger on loopback. The cycle tracker shows the live cycle from
 * `GET /api/cycle/current`; with the API unavailable (a server without a ledger, or the request
 * failing) it shows the values published at build time and says so; and it refreshes every 15
 * seconds (driven with Playwright's clock). The roster, the sealed proofs and the monitoring charts
 * come from the published files; each sealed proof links to its static copy, written by the build
 * at the API's path (test/cdn-static.test.ts fetches them from a static host).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decideCycleUpdate, decideOpenSession } from "../core/consensus/decide.ts";
import { clockTime, decimal } from "../core/format/text.ts";
import type { ConsensusRegistry } from "../core/schemas/consensus.ts";
import { createApp } from "../api/app.ts";
import {
  decideAndAppend,
  openTestLedger,
  PARTICIPANTS,
  registerOffices,
  TEST_TOKEN_PUBLIC_KEY,
} from "./support/api/routes/consensus.ts";
import { listen, type RunningServer } from "../api/server/server.ts";
import type { Ledger } from "../store/ledger/ledger.ts";
import { buildSite, launchChromium, REPO_DATA_DIR } from "./support/site/helpers.ts";
import { axeAudit } from "./support/site/axe.ts";

const tmp = mkdtempSync(join(tmpdir(), "portal-consensus-"));
const siteDir = join(tmp, "site");
const published = JSON.parse(
  readFileSync(join(REPO_DATA_DIR, "areas", "philosophy", "consensus-registry.json"), "utf8"),
) as ConsensusRegistry;
let ledger: Ledger;
let live: RunningServer;
let down: RunningServer;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  const build = await buildSite(REPO_DATA_DIR, siteDir);
  if (build.code !== 0) throw new Error(`site build failed:\n${build.output}`);
  ledger = await openTestLedger(join(tmp, "ledger.sqlite"), { durability: "normal" });
  await registerOffices(ledger);
  // A live cycle unlike the published one, and a session open in its own room.
  await decideAndAppend(ledger, (s) => decideCycleUpdate(s, { cycle: "C-900", gi: 0.9123 }));
  await decideAndAppend(ledger, (s) =>
    decideOpenSession(s, { cycle: "C-900", room: "live-room", gi_baseline: 0.97, participants: [...PARTICIPANTS] }),
  );
  live = await listen(
    createApp({ dataDir: join(tmp, "data"), siteDir, log: () => {}, ledger, tokenPublicKeyHex: TEST_TOKEN_PUBLIC_KEY }),
    "127.0.0.1",
    0,
  );
  // The same site from a server without a ledger: /api/cycle/current answers 503.
  down = await listen(createApp({ dataDir: join(tmp, "data"), siteDir, log: () => {} }), "127.0.0.1", 0);
  context = await launchChromium(join(tmp, "profile"), { width: 1280, height: 900 });
  page = context.pages()[0] ?? (await context.newPage());
}, 300_000);

afterAll(async () => {
  await context?.close();
  await live?.close();
  await down?.close();
  ledger?.close();
  rmSync(tmp, { recursive: true, force: true });
});

const field = (name: string) => page.locator(`cycle-tracker [data-field="${name}"]`).textContent();
const source = () => page.locator("cycle-tracker").getAttribute("data-source");
const waitForSource = (value: string) =>
  page.waitForFunction((v) => document.querySelector("cycle-tracker")?.getAttribute("data-source") === v, value);

describe("the cycle tracker on /consensus/", () => {
  it("shows the live cycle from the API, and is the page's only script", async () => {
    await page.goto(`${live.url}/consensus/`);
    await waitForSource("live");
    expect([await field("cycle"), await field("gi"), await field("room")]).toEqual(["C-900", "0.9123", "live-room"]);
    expect(await page.locator(".tracker-source").textContent()).toContain("Live");
    const scripts = await page
      .locator("script")
      .evaluateAll((nodes) =>
        nodes.map((n) => ({ src: (n as HTMLScriptElement).src, type: (n as HTMLScriptElement).type })),
      );
    // One module script: inline, or the site's own bundle when the build shares a module (core/format)
    // with another page's island and so cannot inline it.
    expect(scripts).toHaveLength(1);
    expect(scripts[0]!.type).toBe("module");
    expect(scripts[0]!.src === "" || new URL(scripts[0]!.src).pathname.startsWith("/_astro/")).toBe(true);
  });

  it("falls back to the values published at build time when the API is unavailable, and says so", async () => {
    const current = published.current!;
    const expected = [current.cycle, decimal(current.gi, 4), current.room];
    // A server without a ledger (503).
    await page.goto(`${down.url}/consensus/`);
    await waitForSource("fallback");
    expect([await field("cycle"), await field("gi"), await field("room")]).toEqual(expected);
    const status = await page.locator(".tracker-source").textContent();
    expect(status).toContain("The API is not answering");
    expect(status).toContain("published with the data");
    // An API whose ledger has no cycle yet (404) is answering: the page says so, not that it is down.
    await page.route("**/api/cycle/current", (route) =>
      route.fulfill({
        status: 404,
        contentType: "application/problem+json",
        body: '{"status":404,"title":"Not found"}',
      }),
    );
    try {
      await page.goto(`${live.url}/consensus/`);
      await waitForSource("none-recorded");
      expect([await field("cycle"), await field("gi"), await field("room")]).toEqual(expected);
      expect(await page.locator(".tracker-source").textContent()).toMatch(
        /^The API has no cycle recorded on its ledger yet: showing the values published with the data/,
      );
    } finally {
      await page.unroute("**/api/cycle/current");
    }
    // The request failing on the network.
    await page.route("**/api/cycle/current", (route) => route.abort());
    try {
      await page.goto(`${live.url}/consensus/`);
      await waitForSource("fallback");
      expect([await field("cycle"), await field("gi"), await field("room")]).toEqual(expected);
    } finally {
      await page.unroute("**/api/cycle/current");
    }
  });

  it("refreshes the clock and the cycle every 15 seconds (Playwright's clock)", async () => {
    const t0 = new Date("2026-11-24T09:30:05.000Z");
    await page.clock.install({ time: t0 });
    await page.goto(`${live.url}/consensus/`);
    await waitForSource("live");
    expect(await field("clock")).toBe(clockTime(t0));
    expect(await field("cycle")).toBe("C-900");

    await decideAndAppend(ledger, (s) => decideCycleUpdate(s, { cycle: "C-901", gi: 0.9555 }));
    await page.clock.runFor(14_000);
    // Before 15 seconds nothing is fetched again.
    expect(await field("cycle")).toBe("C-900");
    expect(await field("clock")).toBe(clockTime(t0));
    await page.clock.runFor(1_000);
    await page.waitForFunction(
      () => document.querySelector('cycle-tracker [data-field="cycle"]')?.textContent === "C-901",
    );
    expect(await field("gi")).toBe("0.9555");
    expect(await field("clock")).toBe(clockTime(new Date(t0.getTime() + 15_000)));
    // And again 15 seconds later, the API now down: the published values, said so.
    await page.route("**/api/cycle/current", (route) => route.abort());
    try {
      await page.clock.runFor(15_000);
      await waitForSource("fallback");
      expect(await field("cycle")).toBe(published.current!.cycle);
      expect(await field("clock")).toBe(clockTime(new Date(t0.getTime() + 30_000)));
    } finally {
      await page.unroute("**/api/cycle/current");
    }
    expect(await source()).toBe("fallback");
  });
});

describe("the rest of /consensus/", () => {
  it("lists the roster with GI, the newest sealed proofs linked to their static copies, and charts each target beside its measure", async () => {
    const fresh = await context.newPage();
    try {
      await fresh.goto(`${live.url}/consensus/`);
      const offices = await fresh
        .locator("tr[data-office]")
        .evaluateAll((rows) => rows.map((r) => r.getAttribute("data-office")));
      expect(offices).toEqual(published.offices.map((o) => o.office));
      const first = published.offices[0]!;
      expect(
        await fresh.locator(`tr[data-office="${first.office}"] td[data-label="Office integrity"]`).textContent(),
      ).toBe(decimal(first.gi!, 4));
      // Each proof links to its static copy at the API's path: the pipeline's file, byte for byte, in the build.
      const proofs = await fresh
        .locator("tr[data-proof] a[data-proof-copy]")
        .evaluateAll((as) => as.map((a) => a.getAttribute("href")));
      expect(proofs).toEqual(published.recent_proofs.map((p) => `/v1/consensus/proofs/${p.delib_id}`));
      expect(await fresh.locator("tr[data-proof] code[data-api-path]").count()).toBe(0);
      for (const p of published.recent_proofs) {
        const built = join(siteDir, "v1", "consensus", "proofs", p.delib_id);
        expect(existsSync(built), built).toBe(true);
        expect(readFileSync(built)).toEqual(
          readFileSync(join(REPO_DATA_DIR, "consensus", "proofs", `${p.delib_id}.json`)),
        );
      }
      // The consensus number is named for what it measures, linked to its definition, never called the pulse's GI.
      await expect(fresh.locator('main a.term[href="/glossary/#office-integrity"]').count()).resolves.toBe(1);
      expect(await fresh.locator('th:text-is("GI"), dt:text-is("GI")').count()).toBe(0);
      // A week in progress is shown as such: never judged met or missed, never plotted as a finished point.
      const monitoring = JSON.parse(
        readFileSync(join(REPO_DATA_DIR, "areas", "philosophy", "consensus-monitoring.json"), "utf8"),
      ) as { weeks: { week: string; complete: boolean }[] };
      const inProgress = monitoring.weeks.filter((w) => !w.complete).map((w) => w.week);
      expect(inProgress.length).toBeGreaterThan(0);
      for (const week of inProgress) {
        const row = fresh.locator(`tr[data-week="${week}"]`);
        await expect(row.locator("th").textContent()).resolves.toContain("in progress");
        expect(await row.locator(".status").count(), week).toBe(0);
        for (const chart of await fresh.locator(".monitoring-measure svg").all())
          expect(await chart.textContent(), week).not.toContain(week);
      }
      // Five charts, each with its target as the reference line.
      const charts = await fresh.locator(".monitoring-measure").evaluateAll((ms) =>
        ms.map((m) => ({
          id: m.getAttribute("data-measure"),
          svg: !!m.querySelector("svg[role=img]"),
          target: !!m.querySelector(".spark-baseline"),
        })),
      );
      expect(charts).toEqual(
        ["sessions", "duration", "agreement", "drift", "quorum"].map((id) => ({ id, svg: true, target: true })),
      );
      expect(await fresh.locator('nav[aria-label="Areas"] a[href="/consensus/"]').getAttribute("aria-current")).toBe(
        "page",
      );
      // The page passes axe at both widths, live values shown.
      for (const width of [1280, 390]) {
        await fresh.setViewportSize({ width, height: 900 });
        const axe = await axeAudit(fresh);
        expect(axe.violations.map((v) => `${v.id}: ${v.nodes[0]?.target.join(" ")}`)).toEqual([]);
        expect(await fresh.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      }
    } finally {
      await fresh.close();
    }
  });
});
