/**
 * Checking a download without a clone, against the real static build (`npm run site:build` output,
 * served by a small static server that can play a CDN serving a tampered or missing file):
 *  - `integrity-verify <URL>` over HTTP: an area, one file, the key read from the same origin or
 *    pinned; a tampered byte, a missing file, a wrong key exit 1 with a FAIL line; an unreachable
 *    server exits 2; a ledger entry verifies from the tiles under /ledger/;
 *  - the /verify page in Debian's chromium, with no API: a dataset by URL and by chosen files is
 *    verified (a subset of an area too, the files not chosen reported not checked, a file the
 *    manifest does not list failed), a tampered byte is detected, an answer that stalls is given up
 *    at the deadline and an endless one stopped at its cap, a wrong key is rejected, a ledger entry's inclusion is
 *    verified and a tampered tile refused; the page passes axe.
 *  - the verifier as the build publishes it (/tools/integrity-verify-<version>.tgz and its .sha256):
 *    the same bytes from every pack, the files npm would pack and the copy of core/tlog/ they import, the digest docs/verify-downloads.md
 *    publishes; installed and run from an empty folder with `npx --yes --package=<its URL>`, as the
 *    docs tell a downloader (no registry: the package has no dependencies), and the pages print that command.
 * Until the build publishes the ledger's tiles, a small log's tiles (test/support/tlog-tiles.ts),
 * signed with a test key, are written under /ledger/ of the served copy.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifierKey } from "../core/checkpoint.ts";
import { publicKeyFromSecret } from "../core/signature.ts";
import { TEST_DATASET_SIGNER, TEST_DATASET_VKEY } from "./support/api/helpers.ts";
import { buildSite, launchChromium, REPO_DATA_DIR, REPO_ROOT } from "./support/site/helpers.ts";
import { packTool, toolPaths } from "../site/src/lib/verifier-tool.ts";
import { npxAsDownloader, runIntegrityVerify } from "./support/integrity-verify.ts";
import { serveStatic, type StaticServer } from "./support/static-server.ts";
import { sampleEntries, tlogFiles, writeTlog } from "./support/tlog-tiles.ts";
import { axeAudit } from "./support/site/axe.ts";

const tmp = mkdtempSync(join(tmpdir(), "verify-downloads-"));
const siteDir = join(tmp, "site");
const TEST_LEDGER = { ...TEST_DATASET_SIGNER, name: "test.example/ledger" };

let server: StaticServer;
let context: BrowserContext;
let page: Page;
/** The ledger key to pin: the published one when the build has tiles, else the test log's. */
let ledgerKey: string;
let ledgerSize: number;

const run = (...args: string[]) => runIntegrityVerify(tmp, ...args);

beforeAll(async () => {
  const build = await buildSite(REPO_DATA_DIR, siteDir);
  if (build.code !== 0) throw new Error(`site build failed:\n${build.output}`);
  if (existsSync(join(siteDir, "ledger", "checkpoint"))) {
    ledgerKey = readFileSync(join(siteDir, "keys", "ledger.vkey"), "utf8").trim();
  } else {
    writeTlog(join(siteDir, "ledger"), tlogFiles(sampleEntries(600), TEST_LEDGER));
    ledgerKey = verifierKey(TEST_LEDGER.name, publicKeyFromSecret("ed25519", TEST_LEDGER.secretKeyHex));
  }
  ledgerSize = Number(readFileSync(join(siteDir, "ledger", "checkpoint"), "utf8").split("\n")[1]);
  server = await serveStatic(siteDir);
  context = await launchChromium(join(tmp, "profile"), { width: 1280, height: 900 });
  page = context.pages()[0] ?? (await context.newPage());
}, 240_000);

afterAll(async () => {
  await context?.close();
  await server?.close();
  rmSync(tmp, { recursive: true, force: true });
});

/** A copy of a served file with one byte flipped. */
function tampered(path: string, at = 20): Uint8Array {
  const bytes = readFileSync(join(siteDir, path));
  bytes[at] = bytes[at]! ^ 1;
  return bytes;
}

describe("integrity-verify over HTTP", () => {
  it("verifies an area and one file of it from their URLs, saying where the key came from", async () => {
    const area = await run(`${server.url}/academics/`);
    expect(area.err).toBe("");
    expect(area.code).toBe(0);
    expect(area.out).toContain(`key ${server.url}/keys/datasets.vkey: `);
    expect(area.out).toMatch(/read from beside the data/);
    expect(area.out).toMatch(
      /^academics: verified — 6 files checked; manifest signed by integrity-platform\.example\/datasets\+/m,
    );
    const file = await run(`${server.url}/economy/mii.json`, "--key", join(REPO_DATA_DIR, "keys", "datasets.vkey"));
    expect(file.code).toBe(0);
    expect(file.out).toMatch(/^economy: verified — 1 file checked/m);
    // A file by its content-addressed URL (the manifest's immutablePath) and by its extension-less alias.
    const manifest = JSON.parse(readFileSync(join(siteDir, "academics", "datapackage.json"), "utf8")) as {
      resources: { path: string; immutablePath: string }[];
    };
    const immutable = await run(
      `${server.url}/academics/${manifest.resources.find((r) => r.path === "citations.bib")!.immutablePath}`,
    );
    expect(immutable.code).toBe(0);
    expect(immutable.out).toMatch(/^academics: verified — 1 file checked/m);
    const alias = await run(`${server.url}/economy/supply`);
    expect(alias.code).toBe(0);
    expect(alias.out).toMatch(/^economy: verified — 1 file checked/m);
    expect((await run(`${server.url}/economy/nonesuch`)).code).toBe(2);
    // The keyed files are not on the CDN: skipped and counted, not failed.
    const government = await run(`${server.url}/government`);
    expect(government.code).toBe(0);
    expect(government.out).toMatch(/^government: verified — 3 files checked, 4 keyed not published here/m);
  });

  it("fails on a tampered byte, a missing file and a wrong key; exits 2 when the server cannot be reached", async () => {
    server.overrides.set("/academics/papers.json", tampered("academics/papers.json"));
    server.overrides.set("/academics/citations.bib", null);
    const bad = await run(`${server.url}/academics/`);
    server.overrides.clear();
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(
      new RegExp(`^FAIL file ${server.url}/academics/papers\\.json: .*\\[hash-mismatch\\]$`, "m"),
    );
    expect(bad.err).toMatch(
      new RegExp(`^FAIL file ${server.url}/academics/citations\\.bib: missing.*\\[missing\\]$`, "m"),
    );
    expect(bad.out).toMatch(/^academics: FAILED \(2 failed checks\)$/m);
    const wrongKey = await run(`${server.url}/academics/`, "--key", TEST_DATASET_VKEY);
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.err).toMatch(/\[signature-untrusted\]$/m);
    const closed = await serveStatic(siteDir);
    await closed.close();
    const unreachable = await run(`${closed.url}/academics/`);
    expect(unreachable.code).toBe(2);
    expect(unreachable.err).toMatch(/\[fetch-failed\]|FAIL fetch-failed/);
  });

  it("verifies a ledger entry from the published tiles and refuses a tampered tile", async () => {
    const last = ledgerSize - 1;
    const ok = await run("--ledger", `${server.url}/ledger/`, "--entry", String(last), "--key", ledgerKey);
    expect(ok.err).toBe("");
    expect(ok.code).toBe(0);
    // The build's bundles hold each entry's public envelope: its leaf hash is verified, the envelope is said not to be.
    expect(ok.out).toMatch(
      new RegExp(
        `^ledger entry ${last}: verified — its leaf hash is included in \\S+ at size ${ledgerSize}, .*; its envelope .* is NOT verified`,
        "m",
      ),
    );
    const tile = readdirSync(join(siteDir, "ledger", "tile", "0")).sort()[0]!;
    server.overrides.set(`/ledger/tile/0/${tile}`, tampered(`ledger/tile/0/${tile}`, 32 * 3));
    const bad = await run("--ledger", `${server.url}/ledger/`, "--entry", "2", "--key", ledgerKey);
    server.overrides.clear();
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/\[inclusion-failed\]$/m);
  });
});

describe("the /verify page", () => {
  const areaResult = () => page.locator("#area-result");
  const ledgerResult = () => page.locator("#ledger-result");

  async function submit(form: string, result: string): Promise<{ verdict: string; text: string }> {
    await page.locator(`#${result}`).evaluate((e) => delete (e as HTMLElement).dataset.verdict);
    await page.click(`#${form} button[type=submit]`);
    await page.waitForFunction(
      (id) => ["verified", "failed", "error"].includes(document.getElementById(id)?.dataset.verdict ?? ""),
      result,
    );
    const box = page.locator(`#${result}`);
    return { verdict: (await box.getAttribute("data-verdict"))!, text: (await box.textContent())! };
  }

  it("is in the menu and verifies an area from its URL, each check named in words", async () => {
    await page.goto(`${server.url}/verify/`);
    expect(await page.locator('nav[aria-label="Areas"] a[href="/verify/"]').getAttribute("aria-current")).toBe("page");
    await page.fill("#area-url", `${server.url}/academics/`);
    const r = await submit("area-form", "area-result");
    expect(r.verdict).toBe("verified");
    expect(r.text).toContain("Verified in your browser: the academics manifest and 6 files.");
    expect(await areaResult().locator('li[data-status="passed"]').count()).toBe(9); // key, signature, manifest, 6 files
    // The built-in key, unchanged, is the one published beside the data, not one the reader pinned.
    expect(await areaResult().locator("li").first().textContent()).toMatch(
      /^✓ Passed Trusted key: .*\/keys\/datasets\.vkey.*read from beside the data/,
    );
    expect(await areaResult().locator("li").first().textContent()).not.toMatch(/the key you pinned/);
    // The page speaks to a person using it: how to pin a key in its own terms, never a command-line flag.
    expect(await areaResult().locator("li").first().textContent()).toMatch(
      /replace the key in the box with one you obtained another way to know who signed/,
    );
    expect(r.text).not.toMatch(/--[a-z]/);
    const axe = await axeAudit(page);
    expect(axe.violations.map((v) => v.id)).toEqual([]);
  });

  it("detects a tampered byte, and verifies one file from its URL", async () => {
    await page.goto(`${server.url}/verify/`);
    server.overrides.set("/academics/papers.json", tampered("academics/papers.json"));
    await page.fill("#area-url", `${server.url}/academics/`);
    const r = await submit("area-form", "area-result");
    server.overrides.clear();
    expect(r.verdict).toBe("failed");
    expect(r.text).toMatch(/Not verified: 1 check failed/);
    const failed = areaResult().locator('li[data-status="failed"]');
    expect(await failed.getAttribute("data-code")).toBe("hash-mismatch");
    expect(await failed.textContent()).toMatch(/^✗ Failed File: .*\/academics\/papers\.json/);
    await page.fill("#area-url", `${server.url}/academics/dataset.json`);
    const one = await submit("area-form", "area-result");
    expect(one.verdict).toBe("verified");
    expect(one.text).toContain("the academics manifest and 1 file.");
  });

  it("rejects a wrong key", async () => {
    await page.goto(`${server.url}/verify/`);
    await page.fill("#area-url", `${server.url}/academics/`);
    await page.fill("#area-key", TEST_DATASET_VKEY);
    const r = await submit("area-form", "area-result");
    expect(r.verdict).toBe("failed");
    expect(await areaResult().locator('li[data-status="failed"]').getAttribute("data-code")).toBe(
      "signature-untrusted",
    );
    expect(await areaResult().locator("li").first().textContent()).toMatch(/the key you pinned \(the key above\)/);
    await page.fill("#area-key", "not a key");
    expect((await submit("area-form", "area-result")).verdict).toBe("error");
  });

  it("verifies the files a person chose, and detects one that was changed", async () => {
    await page.goto(`${server.url}/verify/`);
    const dir = join(REPO_DATA_DIR, "areas", "diplomacy");
    // Every file of the area's folder, the release history (releases.json) among them; the releases' folders are not chosen.
    const files = readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isFile())
      .map(({ name }) => ({ name, mimeType: "application/octet-stream", buffer: readFileSync(join(dir, name)) }));
    expect(files.map((f) => f.name)).toContain("releases.json");
    await page.setInputFiles("#area-files", files);
    const r = await submit("area-form", "area-result");
    expect(r.verdict).toBe("verified");
    expect(r.text).toContain("the diplomacy manifest and 3 files.");
    // The release history is not a file of the manifest: not checked, in one line, and not failed.
    const history = await areaResult().locator('li[data-status="skipped"]').allTextContents();
    expect(history).toEqual([
      expect.stringMatching(
        /^– Not checked Release history: releases\.jsonnot checked: the area's release history \(releases\.json\)/,
      ),
    ]);
    const changed = files.map((f) =>
      f.name === "standards.json" ? { ...f, buffer: Buffer.concat([f.buffer, Buffer.from(" ")]) } : f,
    );
    await page.setInputFiles("#area-files", changed);
    const bad = await submit("area-form", "area-result");
    expect(bad.verdict).toBe("failed");
    expect(await areaResult().locator('li[data-status="failed"]').getAttribute("data-code")).toBe("size-mismatch");
  });

  it("verifies a subset the person chose, saying which listed files were not checked, and fails a file the manifest does not list", async () => {
    await page.goto(`${server.url}/verify/`);
    const dir = join(REPO_DATA_DIR, "areas", "academics");
    const file = (name: string) => ({
      name,
      mimeType: "application/octet-stream",
      buffer: readFileSync(join(dir, name)),
    });
    await page.setInputFiles("#area-files", [
      file("datapackage.json"),
      file("datapackage.json.sig"),
      file("dataset.json"),
    ]);
    const r = await submit("area-form", "area-result");
    expect(r.verdict).toBe("verified");
    // Every other file the signed manifest lists is named not checked.
    const others =
      (JSON.parse(readFileSync(join(dir, "datapackage.json"), "utf8")) as { resources: unknown[] }).resources.length -
      1;
    expect(r.text).toContain(
      `Verified in your browser: the academics manifest and 1 file (${others} other files it lists were not chosen, so not checked).`,
    );
    expect(await areaResult().locator('li[data-status="failed"]').count()).toBe(0);
    expect(await areaResult().locator('li[data-status="passed"]').last().textContent()).toMatch(
      /^✓ Passed File: dataset\.json/,
    );
    const notChecked = await areaResult().locator('li[data-status="skipped"]').allTextContents();
    expect(notChecked).toHaveLength(others);
    for (const line of notChecked)
      expect(line).toMatch(/^– Not checked File: \S+?not checked: not among the files given$/);
    expect(r.text).not.toMatch(/--[a-z]/);
    // A file that is not in the signed manifest is not part of the area: the check fails on it.
    await page.setInputFiles("#area-files", [
      file("datapackage.json"),
      file("datapackage.json.sig"),
      file("dataset.json"),
      { name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("mine\n") },
    ]);
    const extra = await submit("area-form", "area-result");
    expect(extra.verdict).toBe("failed");
    expect(extra.text).toMatch(/Not verified: 1 check failed/);
    const failed = areaResult().locator('li[data-status="failed"]');
    expect(await failed.getAttribute("data-code")).toBe("file-unlisted");
    expect(await failed.textContent()).toMatch(/^✗ Failed File: notes\.txt/);
  });

  it("gives up an answer that stalls, at its deadline, and stops reading an endless one at its cap, saying which", async () => {
    await page.goto(`${server.url}/verify/`);
    // The island's deadline, shortened for the test as a page embedding it may (data-timeout-seconds).
    await page.locator("integrity-verify").evaluate((e) => ((e as HTMLElement).dataset.timeoutSeconds = "1"));
    server.overrides.set("/academics/datapackage.json", "stall");
    await page.fill("#area-url", `${server.url}/academics/`);
    const started = Date.now();
    const stalled = await submit("area-form", "area-result");
    const seconds = (Date.now() - started) / 1000;
    expect(stalled.verdict).toBe("error");
    expect(await areaResult().locator('li[data-status="failed"]').getAttribute("data-code")).toBe("fetch-timeout");
    expect(stalled.text).toMatch(/no complete answer within the deadline of 1 s; gave up/);
    expect(seconds).toBeLessThan(1 + 3);
    server.overrides.set("/academics/datapackage.json", "endless");
    const endless = await submit("area-form", "area-result");
    server.overrides.clear();
    expect(endless.verdict).toBe("failed");
    expect(await areaResult().locator('li[data-status="failed"]').getAttribute("data-code")).toBe("too-large");
    expect(endless.text).toMatch(/more than 4 MiB, the cap for a manifest; stopped reading at the size cap/);
    expect(server.hostile.sent.get("/academics/datapackage.json")).toBeLessThan(4 * 1024 * 1024 + 32 * 1024 * 1024);
  });

  it("verifies a ledger entry's inclusion from the tiles against the signed checkpoint, and refuses a tampered tile", async () => {
    await page.goto(`${server.url}/verify/`);
    expect(await page.inputValue("#ledger-url")).toBe(`${server.url}/ledger/`);
    await page.fill("#ledger-entry", "257");
    await page.fill("#ledger-key", ledgerKey);
    const r = await submit("ledger-form", "ledger-result");
    expect(r.verdict).toBe("verified");
    expect(r.text).toContain(
      `Verified in your browser: entry 257's leaf hash is in the signed log of ${ledgerSize.toLocaleString("en")} entries. Its envelope below is NOT verified`,
    );
    // key, checkpoint, entry, tiles, inclusion, and the published witness policy's quorum (/keys/ledger.policy)
    expect(await ledgerResult().locator('li[data-status="passed"]').count()).toBe(6);
    expect(r.text).toMatch(/witnesses: cosigned by .*; quorum .* met/);
    expect(await ledgerResult().locator('li[data-status="skipped"]').textContent()).toMatch(
      /^– Skipped Entry: entry 257.*NOT verified/,
    );
    expect(await ledgerResult().locator("pre code").textContent()).toMatch(
      /^NOT verified \(the published envelope, not bound to the signed leaf\):\n\{"hash":/,
    );
    const tile = readdirSync(join(siteDir, "ledger", "tile", "0")).sort()[0]!;
    server.overrides.set(`/ledger/tile/0/${tile}`, tampered(`ledger/tile/0/${tile}`, 32 * 3));
    await page.fill("#ledger-entry", "2");
    const bad = await submit("ledger-form", "ledger-result");
    server.overrides.clear();
    expect(bad.verdict).toBe("failed");
    expect(await ledgerResult().locator('li[data-status="failed"]').getAttribute("data-code")).toBe("inclusion-failed");
    // The published ledger key does not verify the test log's checkpoint, or a wrong key the real one's.
    await page.fill("#ledger-key", TEST_DATASET_VKEY);
    const wrong = await submit("ledger-form", "ledger-result");
    expect(wrong.verdict).toBe("failed");
    expect(await ledgerResult().locator('li[data-status="failed"]').getAttribute("data-code")).toBe(
      "checkpoint-untrusted",
    );
    const axe = await axeAudit(page);
    expect(axe.violations.map((v) => v.id)).toEqual([]);
  });
});

describe("the verifier tarball the build publishes, run as the docs say", () => {
  const PACKAGE_DIR = join(REPO_ROOT, "packages", "integrity-verify");
  const pkg = JSON.parse(readFileSync(join(PACKAGE_DIR, "package.json"), "utf8")) as { name: string; version: string };
  const fileName = `${pkg.name}-${pkg.version}.tgz`;
  const { tarballPath, checksumPath } = toolPaths(fileName);
  const built = () => readFileSync(join(siteDir, tarballPath));
  const hex = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

  /** The entry names of a tar (ustar, regular files), in order. */
  function tarNames(tar: Buffer): string[] {
    const names: string[] = [];
    for (let at = 0; at + 512 <= tar.length && tar[at] !== 0;) {
      const name = tar
        .subarray(at, at + 100)
        .toString("latin1")
        .replace(/\0.*$/s, "");
      const size = parseInt(tar.subarray(at + 124, at + 136).toString("latin1"), 8);
      names.push(name);
      at += 512 + Math.ceil(size / 512) * 512;
    }
    return names;
  }

  const npx = (cwd: string, ...args: string[]) => npxAsDownloader(tmp, cwd, ...args);

  it("publishes the package at /tools/ with its SHA-256 in sha256sum format, the same bytes from every pack", () => {
    const bytes = built();
    expect(readFileSync(join(siteDir, checksumPath), "utf8")).toBe(`${hex(bytes)}  ${fileName}\n`);
    // Deterministic: two packs of the same sources, and the build's, are the same bytes.
    const once = packTool(PACKAGE_DIR);
    expect(once.bytes.equals(packTool(PACKAGE_DIR).bytes)).toBe(true);
    expect(once.bytes.equals(bytes)).toBe(true);
    // A gzip with no timestamp and no name, holding package/<file> for exactly the files npm would pack
    // and the copy of the one verifier (core/tlog/*.js at src/tlog/), whose imports the package's point at.
    expect([...bytes.subarray(0, 10)]).toEqual([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
    const npmList = spawnSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts", PACKAGE_DIR], {
      cwd: tmp,
      encoding: "utf8",
      env: { ...process.env, npm_config_cache: join(tmp, "npm-pack-cache") },
    });
    expect(npmList.status, npmList.stderr).toBe(0);
    const npmFiles = (JSON.parse(npmList.stdout) as { files: { path: string }[] }[])[0]!.files
      .map((f) => f.path)
      .sort();
    expect(once.bundled.length).toBeGreaterThan(0);
    expect(once.bundled.every((f) => f.startsWith("src/tlog/") && !npmFiles.includes(f))).toBe(true);
    expect(tarNames(gunzipSync(bytes))).toEqual([...npmFiles, ...once.bundled].sort().map((f) => `package/${f}`));
  });

  it("is the digest docs/verify-downloads.md publishes for this version", () => {
    const digest = hex(built());
    const doc = readFileSync(join(REPO_ROOT, "docs", "verify-downloads.md"), "utf8");
    const row = doc.match(
      new RegExp(
        `^\\| ${pkg.version.replaceAll(".", "\\.")} \\| \`${fileName.replaceAll(".", "\\.")}\` \\| \`([0-9a-f]{64})\` \\|$`,
        "m",
      ),
    );
    expect(row, `docs/verify-downloads.md has no row for ${fileName}`).not.toBeNull();
    const message = `docs/verify-downloads.md gives ${row![1]} for ${fileName}, the build ${digest}: the package changed — raise its version (the path is served as immutable) and write the new digest there`;
    expect(row![1], message).toBe(digest);
    // Every digest the page's commands name is this one.
    const named = [...doc.matchAll(/([0-9a-f]{64}) {2}integrity-verify-/g)].map((m) => m[1]);
    expect(named.length).toBeGreaterThan(0);
    expect(new Set(named)).toEqual(new Set([digest]));
  });

  it("installs and runs from its URL with npx in an empty folder, with no registry, and checks the served build", async () => {
    const empty = join(tmp, "empty");
    mkdirSync(empty);
    const url = `${server.url}${tarballPath}`;
    const help = await npx(empty, `--package=${url}`, "integrity-verify", "--help");
    expect(help.code, help.err).toBe(0);
    expect(help.out).toMatch(/^usage: integrity-verify /);
    const area = await npx(
      empty,
      `--package=${url}`,
      "integrity-verify",
      `${server.url}/academics/`,
      "--key",
      join(REPO_DATA_DIR, "keys", "datasets.vkey"),
    );
    expect(area.err).toBe("");
    expect(area.code).toBe(0);
    expect(area.out).toMatch(/^academics: verified — 6 files checked/m);
    // The careful way: the downloaded file, checked, run from where it lies.
    writeFileSync(join(empty, fileName), built());
    const local = await npx(
      empty,
      `--package=./${fileName}`,
      "integrity-verify",
      "--ledger",
      `${server.url}/ledger/`,
      "--entry",
      String(ledgerSize - 1),
      "--key",
      ledgerKey,
    );
    expect(local.code, local.err).toBe(0);
    expect(readdirSync(empty)).toEqual([fileName]);
  }, 120_000);

  it("is the command the portal prints, from its configured origin", () => {
    const origin = "http://127.0.0.1:4321"; // the build's SITE_URL default (site/astro.config.mjs)
    const command = `npx --yes --package=${origin}${tarballPath} integrity-verify`;
    const verifyPage = readFileSync(join(siteDir, "verify", "index.html"), "utf8");
    expect(verifyPage).toContain(`${command} ${origin}/academics/`);
    expect(verifyPage).toContain(`npx --yes --package=./${fileName} integrity-verify`);
    expect(verifyPage).toContain(hex(built()));
    expect(verifyPage).toContain(`href="${tarballPath}"`);
    expect(readFileSync(join(siteDir, "academics", "index.html"), "utf8")).toContain(`${command} ${origin}/academics/`);
    expect(verifyPage).not.toMatch(/npx integrity-verify/);
  });
});
