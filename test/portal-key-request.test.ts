/**
 * Asking for a key, end to end: the site built from the repository's data and served with the API
 * by the embedded default (`npm start`) on a free port; in chromium, the government page's form is
 * filled and sent, the page shows the reference the API answered, and the operator's CLI
 * (`npm run keys -- requests`, `issue --request`) on the same state folder lists that request and
 * issues its key. A copy built for another origin (SITE_URL, with PUBLIC_API_ORIGIN naming the
 * running API) and served by a plain static server sends the request cross-origin to the API, which
 * allows the site's origin because it was started with the same SITE_URL; when that API does not
 * answer, the form gives way to the contact the build names (PUBLIC_CONTACT). The same copy opens
 * the simulation's WebSocket on the API, which accepts the site's origin too. The request-access
 * terms appear once per page, and axe finds nothing on the form at 1280 and 390 px. (A copy built
 * with no API has no form at all: test/site-origins.test.ts.)
 */
import { spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildSite,
  launchChromium,
  REPO_DATA_DIR,
  REPO_ROOT,
  startPortal,
  stopPortal,
} from "./support/site/helpers.ts";
import { serveStatic, type StaticServer } from "./support/static-server.ts";
import { freePort } from "./support/postgres.ts";
import { axeAudit, violationLines } from "./support/site/axe.ts";

const tmp = mkdtempSync(join(tmpdir(), "portal-key-request-"));
const siteDir = join(tmp, "site");
const crossDir = join(tmp, "cross-origin-site");
const CONTACT = "key-requests@operators.test";
const stateDir = join(tmp, "state");
let portal: ChildProcess | undefined;
let base: string;
let cdn: StaticServer;
let context: BrowserContext;
let page: Page;

function keysCli(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const env: NodeJS.ProcessEnv = { ...process.env, STATE_DIR: stateDir };
  delete env.ACCESS_LEDGER_DB;
  const run = spawnSync(process.execPath, ["--import", "tsx", join(REPO_ROOT, "api/cli/keys.ts"), ...args], {
    cwd: REPO_ROOT,
    env,
    encoding: "utf8",
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

beforeAll(async () => {
  const build = await buildSite(REPO_DATA_DIR, siteDir);
  if (build.code !== 0) throw new Error(`site build failed:\n${build.output}`);
  // The static copy's origin, known before its build; the API trusts it through SITE_URL.
  const cdnOrigin = `http://127.0.0.1:${await freePort()}`;
  const running = await startPortal({ stateDir, dataDir: REPO_DATA_DIR, siteDir, env: { SITE_URL: cdnOrigin } });
  portal = running.child;
  base = running.url;
  const cross = await buildSite(REPO_DATA_DIR, crossDir, {
    SITE_URL: cdnOrigin,
    PUBLIC_API_ORIGIN: base,
    PUBLIC_CONTACT: CONTACT,
  });
  if (cross.code !== 0) throw new Error(`site build failed:\n${cross.output}`);
  cdn = await serveStatic(crossDir, Number(new URL(cdnOrigin).port));
  context = await launchChromium(join(tmp, "profile"), { width: 1280, height: 900 });
  page = context.pages()[0] ?? (await context.newPage());
}, 240_000);

afterAll(async () => {
  await context?.close();
  await cdn?.close();
  await stopPortal(portal);
  rmSync(tmp, { recursive: true, force: true });
});

describe("the key-request form", () => {
  it("says the request-access terms once, however many files are keyed", async () => {
    await page.goto(`${base}/government/`);
    const text = (await page.locator("main").textContent())!;
    expect(text.split("rotated every quarter").length - 1).toBe(1);
    const keyedRows = page.locator('table.download-table tbody tr:not([data-access="public"])');
    expect(await keyedRows.count()).toBeGreaterThan(1);
    for (const row of await keyedRows.all())
      await expect(row.locator('a[href="#request-access"]').textContent()).resolves.toBe("Request a key");
  });

  it("sends a request from the government page; the CLI lists it and issues its key", async () => {
    await page.goto(`${base}/government/`);
    const form = page.locator("key-request-form");
    await expect.poll(() => form.getAttribute("data-state")).toBe("ready");
    await expect(page.locator("#kr-tier").inputValue()).resolves.toBe("government");
    await page.getByLabel("Affiliation (organisation, department)").fill("Ministry of Examples, Audit Office");
    await page.getByLabel(/^Official contact address/).fill("audit@ministry.example.gov");
    await page.getByLabel(/^Purpose/).fill("Quarterly audit of the compliance report");
    await page.getByRole("button", { name: "Send the request" }).click();
    await expect.poll(() => form.getAttribute("data-reference")).toMatch(/^KR-[0-9A-Z]{4}-[0-9A-Z]{4}$/);
    const reference = (await form.getAttribute("data-reference"))!;
    await expect(page.getByRole("status").filter({ hasText: reference }).textContent()).resolves.toContain(
      `Your reference is ${reference}`,
    );

    const listed = keysCli("requests");
    expect(listed.status, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(
      new RegExp(
        `^${reference}\\tpending\\tgovernment\\t.*Ministry of Examples, Audit Office\\taudit@ministry\\.example\\.gov\\t.*Quarterly audit`,
        "m",
      ),
    );
    const issued = keysCli("issue", "--request", reference);
    expect(issued.status, issued.stderr).toBe(0);
    const token = /: (ipk_[A-Za-z0-9_-]{43})$/m.exec(issued.stdout)?.[1];
    expect(token).toBeDefined();
    // The key opens the government's keyed file on the same server.
    const file = await fetch(`${base}/government/compliance-report.json`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(file.status).toBe(200);
    expect(keysCli("requests", "--all").stdout).toMatch(new RegExp(`^${reference}\\tissued\\t`, "m"));
  });

  it("shows the API's refusal in words (an academic request without the expected volume)", async () => {
    await page.goto(`${base}/government/`);
    const form = page.locator("key-request-form");
    await expect.poll(() => form.getAttribute("data-state")).toBe("ready");
    await page.locator("#kr-tier").selectOption("academic");
    await page.getByLabel("Affiliation (organisation, department)").fill("Example University");
    await page.getByLabel(/^Official contact address/).fill("someone@example.edu");
    await page.getByLabel(/^Purpose/).fill("A study");
    await page.getByRole("button", { name: "Send the request" }).click();
    await expect.poll(() => page.locator(".key-request-result").textContent()).toMatch(/^Not sent: /);
    await expect(page.locator(".key-request-result").textContent()).resolves.toMatch(
      /^Not sent: \/expected_volume: .*expected volume/,
    );
    expect(await form.getAttribute("data-reference")).toBeNull();
  });

  it("from a copy on another origin, sends the request to the API's origin and shows its reference", async () => {
    await page.goto(`${cdn.url}/government/`);
    const form = page.locator("key-request-form");
    await expect(form.getAttribute("data-endpoint")).resolves.toBe(`${base}/keys/requests`);
    await expect.poll(() => form.getAttribute("data-state")).toBe("ready");
    await page.getByLabel("Affiliation (organisation, department)").fill("Statistics Office, Open Data Unit");
    await page.getByLabel(/^Official contact address/).fill("opendata@statistics.example.gov");
    await page.getByLabel(/^Purpose/).fill("Cross-origin request from the static copy");
    const sent = page.waitForRequest((r) => r.method() === "POST");
    await page.getByRole("button", { name: "Send the request" }).click();
    const request = await sent;
    expect(request.url()).toBe(`${base}/keys/requests`);
    expect((await request.allHeaders())["origin"]).toBe(cdn.url);
    // The API allowed the site's origin (its SITE_URL) to write: the browser let the page read the answer.
    expect((await request.response())!.headers()["access-control-allow-origin"]).toBe(cdn.url);
    await expect.poll(() => form.getAttribute("data-reference")).toMatch(/^KR-[0-9A-Z]{4}-[0-9A-Z]{4}$/);
    const reference = (await form.getAttribute("data-reference"))!;
    expect(keysCli("requests").stdout).toMatch(
      new RegExp(`^${reference}\\tpending\\tgovernment\\t.*Statistics Office`, "m"),
    );
  });

  it("in a copy built for an API elsewhere, the keyed files, the API descriptions and the live panels name that API", () => {
    const government = readFileSync(join(crossDir, "government", "index.html"), "utf8");
    expect(government).toContain(`<code class="command">${base}/government/compliance-report.json</code>`);
    expect(
      (JSON.parse(readFileSync(join(crossDir, "openapi.json"), "utf8")) as { servers: { url: string }[] }).servers[0]!
        .url,
    ).toBe(base);
    expect(
      (
        JSON.parse(readFileSync(join(crossDir, "asyncapi.json"), "utf8")) as {
          servers: Record<string, { host: string; protocol: string }>;
        }
      ).servers.api,
    ).toMatchObject({ host: new URL(base).host, protocol: "ws" });
    expect(readFileSync(join(crossDir, "consensus", "index.html"), "utf8")).toContain(
      `data-endpoint="${base}/api/cycle/current"`,
    );
    expect(readFileSync(join(crossDir, "philosophy", "index.html"), "utf8")).toContain(
      `data-path="${base}/philosophy/simulation"`,
    );
  });

  it("from a copy on another origin, opens the simulation's WebSocket on the API, which accepts the site's origin", async () => {
    await page.goto(`${cdn.url}/philosophy/`);
    const opened = page.waitForEvent("websocket");
    await page.click("simulation-island button[type=submit]");
    expect((await opened).url()).toBe(`${base.replace(/^http/, "ws")}/philosophy/simulation`);
    await page.waitForSelector(".sim-rounds > li", { timeout: 30_000 });
    await expect(page.locator(".sim-rounds > li strong").first().textContent()).resolves.toBe("Opening");
    await page.goto("about:blank");
  });

  it("from a copy whose API does not answer, gives way to the contact the build names", async () => {
    await page.route(`${base}/**`, (route) => route.abort());
    try {
      await page.goto(`${cdn.url}/government/`);
      const form = page.locator("key-request-form");
      await expect.poll(() => form.getAttribute("data-state")).toBe("offline");
      await expect(page.locator(".key-request-form").isHidden()).resolves.toBe(true);
      const fallback = page.locator(".key-request-fallback");
      await expect(fallback.isVisible()).resolves.toBe(true);
      await expect(fallback.locator(`a[href="mailto:${CONTACT}"]`).count()).resolves.toBe(1);
      expect(await fallback.textContent()).toMatch(/is not answering/);
    } finally {
      await page.unroute(`${base}/**`);
    }
  });

  for (const width of [1280, 390]) {
    it(`passes axe and fits at ${width} px`, async () => {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${base}/government/#request-access`);
      await expect.poll(() => page.locator("key-request-form").getAttribute("data-state")).toBe("ready");
      const axe = await axeAudit(page, "key-request-form");
      expect(violationLines(axe)).toEqual([]);
      await expect(page.evaluate(() => document.documentElement.scrollWidth)).resolves.toBeLessThanOrEqual(width);
    });
  }
});
