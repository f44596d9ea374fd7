/**
 * The /migration page in Debian's chromium: the site built from the repository's data, served with
 * the API by the embedded default (`npm start`). A person looks an address up and their browser
 * verifies the proof and the checkpoint signature itself; a proof or checkpoint tampered with on
 * the way (intercepted here) is refused by the browser. The timeline marks the phase of the data's
 * as-of instant in the HTML and of the reader's clock once the island runs.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildSite, launchChromium, REPO_DATA_DIR, startPortal, stopPortal } from "./support/site/helpers.ts";
import { axeAudit } from "./support/site/axe.ts";

const tmp = mkdtempSync(join(tmpdir(), "portal-migration-"));
let portal: ChildProcess | undefined;
let base: string;
let context: BrowserContext;
let page: Page;

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
  context = await launchChromium(join(tmp, "profile"), { width: 1280, height: 900 });
  page = context.pages()[0] ?? (await context.newPage());
}, 180_000);

afterAll(async () => {
  await context?.close();
  await stopPortal(portal);
  rmSync(tmp, { recursive: true, force: true });
});

const result = () => page.locator(".lookup-result");

async function lookUp(address: string): Promise<{ verdict: string; text: string }> {
  await page.fill("#lookup-address", address);
  await page.click(".lookup-form button");
  await page.waitForFunction(() =>
    ["verified", "refused", "unavailable"].includes(
      document.querySelector<HTMLElement>(".lookup-result")?.dataset.verdict ?? "",
    ),
  );
  return { verdict: (await result().getAttribute("data-verdict"))!, text: (await result().textContent())! };
}

describe("the /migration page", () => {
  it("is in the menu, marks the data's phase in the HTML and the reader's phase once the island runs", async () => {
    const html = await (await fetch(`${base}/migration/`)).text();
    // The sample's data is as of 2026-11-23: the sunset.
    expect(html).toMatch(/<li data-phase="sunset"[^>]*aria-current="step"/);
    await page.clock.install({ time: new Date("2025-12-15T12:00:00Z") });
    await page.goto(`${base}/migration/`);
    await expect(
      page.locator('nav[aria-label="Areas"] a[href="/migration/"]').getAttribute("aria-current"),
    ).resolves.toBe("page");
    await page.waitForFunction(
      () => document.querySelector('[data-phase="transition"]')?.getAttribute("aria-current") === "step",
    );
    await expect(page.locator('[aria-current="step"]').count()).resolves.toBe(1);
    await expect(page.locator('[data-phase="transition"] .phase-now').textContent()).resolves.toMatch(/by your clock/);
    // Totals and the mismatch count, from the published summary.
    const summary = JSON.parse(readFileSync(join(REPO_DATA_DIR, "migration", "summary.json"), "utf8")) as {
      converted: number;
      mismatches: number;
    };
    const stats = await page.locator(".stats").textContent();
    expect(stats).toContain(`Addresses converted${summary.converted}`);
    expect(stats).toContain(`Mismatches reported${summary.mismatches}`);
    expect(await page.locator("#totals-heading ~ dl.facts").textContent()).toContain("9,223,372,664,630.810998 MIC");
  });

  it("verifies a real address in the browser", async () => {
    await page.goto(`${base}/migration/`);
    const atlas = await lookUp("ATLAS");
    expect(atlas.verdict).toBe("verified");
    expect(atlas.text).toContain("55,456.499447 MIC");
    expect(atlas.text).toContain("55456.499447 GIC");
    expect(atlas.text).toContain("integrity-platform.example/datasets");
    // A correction leaf of the review verifies too.
    const corrected = await lookUp("sample-legacy-0007");
    expect(corrected.verdict).toBe("verified");
    expect(corrected.text).toContain("Set in the review");
    // An address that was never converted is said to be missing, not verified.
    const missing = await lookUp("sample-legacy-0002");
    expect(missing.verdict).toBe("refused");
    expect(missing.text).toMatch(/not in the migration tree/);
    const axe = await axeAudit(page);
    expect(axe.violations.map((v) => v.id)).toEqual([]);
  });

  it("refuses a tampered proof and a tampered checkpoint in the browser", async () => {
    const genuine = (await (await fetch(`${base}/migration/proof/ATLAS`)).json()) as {
      index: number;
      tree_size: number;
      leaf: string;
      proof: string[];
    };
    const checkpoint = await (await fetch(`${base}/migration/checkpoint`)).text();
    const flip = (b64: string) =>
      Buffer.from(Buffer.from(b64, "base64").map((x, i) => (i === 0 ? x ^ 1 : x))).toString("base64");
    const tamperings: [string, unknown, string, RegExp][] = [
      [
        "a proof hash flipped",
        { ...genuine, proof: [flip(genuine.proof[0]!), ...genuine.proof.slice(1)] },
        checkpoint,
        /inclusion-failed/,
      ],
      [
        "a raised balance",
        {
          ...genuine,
          leaf: genuine.leaf
            .replace('"balance_shards":"5', '"balance_shards":"9')
            .replace('"v1_balance_gic":"5', '"v1_balance_gic":"9'),
        },
        checkpoint,
        /inclusion-failed/,
      ],
      [
        "the checkpoint's root replaced",
        genuine,
        checkpoint.replace(checkpoint.split("\n")[2]!, flip(checkpoint.split("\n")[2]!)),
        /checkpoint-untrusted/,
      ],
      [
        "the checkpoint's signature replaced",
        genuine,
        checkpoint.replace(/ (\S+)\n$/, (_, sig: string) => ` ${flip(sig)}\n`),
        /checkpoint-untrusted/,
      ],
    ];
    await page.goto(`${base}/migration/`);
    for (const [what, proof, note, code] of tamperings) {
      await page.route("**/migration/proof/ATLAS", (route) =>
        route.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify(proof) }),
      );
      await page.route("**/migration/checkpoint", (route) =>
        route.fulfill({ status: 200, contentType: "text/plain", body: note }),
      );
      const answer = await lookUp("ATLAS");
      expect(answer.verdict, what).toBe("refused");
      expect(answer.text, what).toMatch(code);
      await page.unrouteAll();
    }
    // Untouched again: verified.
    expect((await lookUp("ATLAS")).verdict).toBe("verified");
  });
});
