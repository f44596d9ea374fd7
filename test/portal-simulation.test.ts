/**
 * The philosophy page's simulation island in Debian's chromium: the site is built from the
 * repository's data and served with the API by the embedded default (`npm start`); a person types a
 * scenario, starts it, and watches the rounds arrive over the WebSocket until the final one. What
 * the page shows is checked against the pure simulation run here on the same published files.
 * A page served from a second loopback port (another origin) must not be able to open the
 * WebSocket with the visitor's browser.
 */
import { createServer, type Server } from "node:http";
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formCouncil } from "../core/philosophy/council.ts";
import { simulate } from "../core/philosophy/simulation.ts";
import { Deliberations, SentinelStatus, Virtues, type SimulationUpdate } from "../core/schemas/index.ts";
import { buildSite, launchChromium, REPO_DATA_DIR, startPortal, stopPortal } from "./support/site/helpers.ts";

const tmp = mkdtempSync(join(tmpdir(), "portal-simulation-"));
let portal: ChildProcess | undefined;
let base: string;
let context: BrowserContext;
let page: Page;
let otherOrigin: Server | undefined;

beforeAll(async () => {
  const build = await buildSite(REPO_DATA_DIR, join(tmp, "site"));
  if (build.code !== 0) throw new Error(`site build failed:\n${build.output}`);
  const running = await startPortal({
    stateDir: join(tmp, "state"),
    dataDir: REPO_DATA_DIR,
    siteDir: join(tmp, "site"),
  });
  portal = running.child;
  base = running.url;
  context = await launchChromium(join(tmp, "profile"), { width: 1000, height: 900 });
  page = context.pages()[0] ?? (await context.newPage());
}, 180_000);

afterAll(async () => {
  await context?.close();
  await stopPortal(portal);
  await new Promise((resolve) => (otherOrigin ? otherOrigin.close(resolve) : resolve(undefined)));
  rmSync(tmp, { recursive: true, force: true });
});

/** Scenarios that usually deliberate for several rounds; the first that does on the published data is used (the sample data changes). */
const LONG_CANDIDATES = [
  "Burn the surplus of the fee pool",
  "Weigh transparency against privacy in the audit export",
  "Rotate the government API keys",
  "Lower the quorum for urgent sessions",
  "Fund the academics' replication grants",
];

function expectedStream(scenario: string): SimulationUpdate[] {
  const area = (path: string) => join(REPO_DATA_DIR, "areas", path);
  const read = (path: string) => JSON.parse(readFileSync(area(path), "utf8")) as unknown;
  const hash = (dir: string, path: string) =>
    (read(`${dir}/datapackage.json`) as { resources: { path: string; hash: string }[] }).resources.find(
      (r) => r.path === path,
    )!.hash;
  const council = formCouncil({
    deliberations: Deliberations.parse(read("philosophy/deliberations.json")),
    virtues: Virtues.parse(read("philosophy/virtues.json")),
    sentinelStatus: SentinelStatus.parse(read("government/sentinel-status.json")),
    inputs: {
      deliberations: hash("philosophy", "deliberations.json"),
      virtues: hash("philosophy", "virtues.json"),
      sentinel_status: hash("government", "sentinel-status.json"),
    },
  });
  return [...simulate(council, scenario)];
}

describe("the simulation island on /philosophy/", () => {
  it("is the page's only script", async () => {
    await page.goto(`${base}/philosophy/`);
    const scripts = await page
      .locator("script")
      .evaluateAll((nodes) =>
        nodes.map((n) => ({ src: (n as HTMLScriptElement).src, type: (n as HTMLScriptElement).type })),
      );
    expect(scripts).toEqual([{ src: "", type: "module" }]);
    await expect(page.locator("simulation-island form").isVisible()).resolves.toBe(true);
  });

  it("starts a scenario and shows the rounds as they arrive, ending with the outcome", async () => {
    const scenario = LONG_CANDIDATES.find((s) => expectedStream(s).length > 4) ?? LONG_CANDIDATES[0]!;
    const expected = expectedStream(scenario);
    expect(expected.length).toBeGreaterThan(3);
    await page.goto(`${base}/philosophy/`);
    await page.fill("#sim-scenario", scenario);
    await page.click("simulation-island button[type=submit]");
    // Rounds arrive one by one (npm start paces them): some are shown before the final one.
    await page.waitForFunction(
      () =>
        document.querySelectorAll(".sim-rounds > li").length >= 2 &&
        !document.querySelector(".sim-rounds > li[data-phase=final]"),
    );
    await expect(page.locator("simulation-island button").isDisabled()).resolves.toBe(true);
    await page.waitForSelector(".sim-rounds > li[data-phase=final]", { timeout: 60_000 });

    const rounds = page.locator(".sim-rounds > li");
    await expect(rounds.count()).resolves.toBe(expected.length);
    const last = expected.at(-1)!;
    const finalPositions = await rounds.last().locator(".sim-positions li").allTextContents();
    expect(finalPositions).toEqual(last.sentinels.map((s) => `${s.id} ${s.position} (${s.stance.toFixed(2)})`));
    await expect(rounds.first().locator("strong").textContent()).resolves.toBe("Opening");
    const excluded = last.current_state.excluded;
    await expect(page.locator(".sim-note").textContent()).resolves.toBe(
      excluded.length === 0 ? "" : `Not taking part (office integrity below 0.95): ${excluded.join(", ")}.`,
    );
    await expect(page.locator(".sim-status").textContent()).resolves.toMatch(
      new RegExp(`^Outcome: ${last.current_state.outcome} after ${last.current_state.round} rounds`),
    );
    await expect(page.locator("simulation-island button").isEnabled()).resolves.toBe(true);
  });

  it("cannot be opened from a page on another origin (cross-site WebSocket hijacking)", async () => {
    const target = `${base.replace(/^http/, "ws")}/philosophy/simulation`;
    const html = `<!doctype html><title>other origin</title><script>
      const ws = new WebSocket(${JSON.stringify(target)});
      ws.onopen = () => { document.title = "opened"; };
      ws.onclose = (e) => { if (document.title !== "opened") document.title = "refused " + e.code; };
    </script>`;
    otherOrigin = createServer((_req, res) => res.writeHead(200, { "Content-Type": "text/html" }).end(html));
    await new Promise<void>((resolve) => otherOrigin!.listen(0, "127.0.0.1", resolve));
    const port = (otherOrigin.address() as AddressInfo).port;
    await page.goto(`http://127.0.0.1:${port}/`);
    await page.waitForFunction(() => document.title !== "other origin");
    await expect(page.title()).resolves.toBe("refused 1006");

    // The same script from the portal's own origin opens it.
    await page.goto(`${base}/philosophy/`);
    const sameOrigin = await page.evaluate(
      (url) =>
        new Promise<string>((resolve) => {
          const ws = new WebSocket(url);
          ws.onopen = () => {
            ws.close(1000);
            resolve("opened");
          };
          ws.onclose = (e) => resolve(`refused ${e.code}`);
        }),
      target,
    );
    expect(sameOrigin).toBe("opened");
  });
});
