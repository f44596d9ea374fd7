/**
 * Build-level tests of the portal: real `astro build` runs over a generated, valid history of
 * 10,000 pulses (and a tampered copy of it), checking what lands in the output directory.
 */
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  cpSync,
  appendFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { historyLine, sealPulse } from "../core/pulse/history.ts";
import { buildSite, makeHistory, writeDataDir, type BuildResult } from "./support/site/helpers.ts";
import { generateKeyPair } from "../core/signature.ts";
import { publishLedgerCheckpoint } from "../pipeline/ledger-publication.ts";
import { openLedgerStore } from "../store/open-ledger.ts";
import { sampleEvent, steppingClock } from "./support/store/helpers.ts";
import { pulseRuns } from "../site/src/lib/pulse-runs.ts";
import { HistoryVerificationError, pulseStaticFiles, readPulseHistory } from "../site/src/lib/pulse-history.ts";
import { expectedStaticFiles } from "../core/pulse/static-files.ts";
import { filesUnder } from "../store/files.ts";

const RECORDS = 10_000;
const PAGE_SIZE = 50;
const BUILD_TIMEOUT = 180_000;

const tmp = mkdtempSync(join(tmpdir(), "site-build-"));
const dataDir = join(tmp, "data");
const outA = join(tmp, "out-a");
const outB = join(tmp, "out-b");
const history = makeHistory(RECORDS);
// The table lists runs: consecutive pulses a row would say the same of share it (site/src/lib/pulse-runs.ts).
const runs = pulseRuns([...history].reverse());
const LAST_PAGE = Math.ceil(runs.length / PAGE_SIZE);
let first: BuildResult;

function page(out: string, path: string): string {
  return readFileSync(join(out, path), "utf8");
}

/** The text of each `<tr>` of the table body. */
function bodyRows(html: string): string[] {
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(html)?.[1] ?? "";
  // A row may carry attributes (`data-pulses`: how many pulses it stands for).
  return body.match(/<tr[\s>][\s\S]*?<\/tr>/g) ?? [];
}

/** A 600-entry ledger published into the data folder as the pipeline does: checkpoint, key and tiles. */
async function writeLedger(): Promise<void> {
  const origin = "site-build.test/ledger";
  const key = generateKeyPair("ed25519");
  const ledger = await openLedgerStore({
    path: join(tmp, "ledger.sqlite"),
    origin,
    signer: { name: origin, secretKeyHex: key.secretKey },
    now: steppingClock(),
    durability: "normal",
  });
  try {
    await ledger.append(Array.from({ length: 600 }, (_, i) => sampleEvent(i)));
    await publishLedgerCheckpoint({
      dataDir,
      ledger,
      sign: async () => ({ note: await ledger.checkpoint(), signer: { name: origin, publicKeyHex: key.publicKey } }),
      trustNewKey: false,
    });
  } finally {
    await ledger.close();
  }
}

beforeAll(async () => {
  writeDataDir(dataDir, history);
  await writeLedger();
  first = await buildSite(dataDir, outA);
}, BUILD_TIMEOUT);

afterAll(async () => rmSync(tmp, { recursive: true, force: true }));

describe("site build over 10,000 pulses", () => {
  it("builds", async () => {
    expect(first.code, first.output).toBe(0);
    expect(first.output).toMatch(/pulse history verified: 10000 record\(s\)/);
    expect(first.output).toMatch(/generating static routes/);
    // No data areas here: the API reference documents the simulation's message, not an answer it cannot know.
    const simulation = readFileSync(join(outA, "docs", "philosophers-area", "index.html"), "utf8");
    expect(simulation).toContain('class="socket-sent"');
    expect(simulation).toContain("which this site has not generated yet");
    expect(simulation).not.toContain('class="socket-first"');
  });

  it("keeps every timeline page under 150 KB", async () => {
    const pages = filesUnder(outA).filter((p) => p.startsWith("pulse/timeline/") && p.endsWith("index.html"));
    expect(pages).toHaveLength(LAST_PAGE);
    const sizes = pages.map((p) => statSync(join(outA, p)).size);
    const largest = Math.max(...sizes);
    console.log(`timeline pages: ${pages.length}, HTML sizes ${Math.min(...sizes)}–${largest} bytes`);
    for (const [i, p] of pages.entries()) expect(sizes[i], p).toBeLessThan(150 * 1024);
  });

  it("lists 50 rows newest first on page 1 and the oldest on the last page, every pulse in exactly one row", async () => {
    // Some neighbouring pulses of the made-up history say the same: they share a row.
    expect(runs.length).toBeLessThan(RECORDS);
    expect(runs.reduce((n, run) => n + run.records.length, 0)).toBe(RECORDS);
    const times = (row: string) => [...row.matchAll(/<time datetime="([^"]+)"/g)].map((m) => m[1]);
    const expected = (run: (typeof runs)[number]) =>
      run.records.length === 1 ? [run.newest.generatedAt] : [run.oldest.generatedAt, run.newest.generatedAt];
    const html = page(outA, "pulse/timeline/index.html");
    const rows = bodyRows(html);
    expect(rows).toHaveLength(PAGE_SIZE);
    expect(rows.map(times)).toEqual(runs.slice(0, PAGE_SIZE).map(expected));
    expect(rows.map((r) => Number(/data-pulses="(\d+)"/.exec(r)?.[1]))).toEqual(
      runs.slice(0, PAGE_SIZE).map((run) => run.records.length),
    );
    const newest = runs[0]!.newest;
    expect(rows[0]).toContain(`<code title="${newest.hash}">${newest.hash.slice(7, 19)}</code>`);
    expect(html).toContain(`Page 1 of ${LAST_PAGE}`);
    expect(html).toMatch(/<a href="\/pulse\/timeline\/2\/" rel="next">/);
    expect(html).toMatch(/<th scope="col">Date \(UTC\)<\/th>/);
    expect(html).toMatch(/<caption[^>]*>/);

    const last = page(outA, `pulse/timeline/${LAST_PAGE}/index.html`);
    const lastRows = bodyRows(last);
    expect(lastRows).toHaveLength(runs.length - (LAST_PAGE - 1) * PAGE_SIZE);
    expect(lastRows.map(times)).toEqual(runs.slice((LAST_PAGE - 1) * PAGE_SIZE).map(expected));
    expect(times(lastRows.at(-1)!)[0]).toBe(history[0]!.generatedAt);
    expect(last).toContain(`Page ${LAST_PAGE} of ${LAST_PAGE}`);
    expect(last).toMatch(new RegExp(`<a href="/pulse/timeline/${LAST_PAGE - 1}/" rel="prev">`));
    expect(last).not.toContain('rel="next"');
  });

  it("draws two downsampled polylines, the dashed baseline, title and desc on every page", async () => {
    for (const path of [
      "pulse/timeline/index.html",
      "pulse/timeline/2/index.html",
      `pulse/timeline/${LAST_PAGE}/index.html`,
    ]) {
      const html = page(outA, path);
      const svg = /<svg[^>]*role="img"[\s\S]*?<\/svg>/.exec(html)?.[0] ?? "";
      expect(svg, path).toMatch(/aria-labelledby="spark-title spark-desc"/);
      expect(svg).toMatch(/<title id="spark-title">GI and MII over 10,000 pulses/);
      expect(svg).toMatch(/<desc id="spark-desc">GI ranged from [\d.]+% to [\d.]+%, latest [\d.]+%/);
      const polylines = [...svg.matchAll(/<polyline class="spark-(gi|mii)" points="([^"]*)"/g)];
      expect(polylines.map((m) => m[1])).toEqual(["gi", "mii"]);
      for (const m of polylines) {
        const points = m[2]!.trim().split(/\s+/);
        expect(points.length).toBeGreaterThan(100);
        expect(points.length).toBeLessThanOrEqual(300);
        expect(points[0]).toMatch(/^0,/);
        expect(points.at(-1)).toMatch(/^600,/);
      }
      expect(svg).toMatch(/<line class="spark-baseline"[^>]*stroke-dasharray="6 4"/);
    }
  });

  it("publishes /v1/pulse/* as the signed history gives them, equal to the verified copies in data/v1", async () => {
    expect(filesUnder(join(outA, "v1"))).toEqual(filesUnder(join(dataDir, "v1")));
    for (const file of [
      "badge.json",
      "badge/gi.json",
      "badge/mii.json",
      "badge.svg",
      "badge/gi.svg",
      "history.json",
      "latest.json",
    ]) {
      const built = readFileSync(join(outA, "v1", "pulse", file));
      expect(built.equals(readFileSync(join(dataDir, "v1", "pulse", file))), file).toBe(true);
    }
    const latest = JSON.parse(page(outA, "v1/pulse/latest.json")) as { hash: string };
    expect(latest.hash).toBe(history.at(-1)!.hash);
  });

  it("publishes the ledger's checkpoint and its C2SP tiles under /ledger/, byte for byte", async () => {
    const ledgerFiles = filesUnder(join(dataDir, "ledger"));
    // The bundles hold envelopes, not leaf data: at envelopes/, none at the C2SP entry bundle URL tile/entries/.
    expect(ledgerFiles).toEqual([
      "checkpoint",
      "envelopes/000",
      "envelopes/001",
      "envelopes/002.p/88",
      "tile/0/000",
      "tile/0/001",
      "tile/0/002.p/88",
      "tile/1/000.p/2",
    ]);
    expect(filesUnder(join(outA, "ledger"))).toEqual(ledgerFiles);
    for (const f of ledgerFiles)
      expect(readFileSync(join(outA, "ledger", f)).equals(readFileSync(join(dataDir, "ledger", f))), f).toBe(true);
    expect(readFileSync(join(outA, "keys", "ledger.vkey"), "utf8")).toBe(
      readFileSync(join(dataDir, "keys", "ledger.vkey"), "utf8"),
    );
  });

  it("shows the latest pulse, its cycle and the badges on the home page", async () => {
    const html = page(outA, "index.html");
    const latest = history.at(-1)!;
    expect(html).toContain(`Integrity pulse, cycle ${latest.cycle}`);
    expect(html).toMatch(/<img src="\/v1\/pulse\/badge.svg" alt="Integrity badge: GI [\d.]+%, MII [\d.]+%/);
    expect(html).toContain(`<code title="${latest.hash}">`);
    expect(html).toContain('href="/pulse/timeline/"');
  });

  it(
    "gives byte-identical files when built twice, also when the history holds a line its signed checkpoint does not cover",
    async () => {
      // A correctly chained record appended without re-signing the checkpoint is never published:
      // the second build, over the same data and that one line more, writes exactly the first's files.
      const appended = join(tmp, "appended");
      cpSync(dataDir, appended, { recursive: true });
      const last = history.at(-1)!;
      const extra = sealPulse({
        ...last,
        id: "00000000-0000-8000-8000-000000000042",
        giScore: 0.42,
        miiScore: 0.42,
        generatedAt: new Date(Date.parse(last.generatedAt) + 3_600_000).toISOString(),
        prev: last.hash,
      });
      appendFileSync(join(appended, "pulse", "history.jsonl"), `${historyLine(extra)}\n`);
      const second = await buildSite(appended, outB);
      expect(second.code, second.output).toBe(0);
      expect(page(outB, "index.html")).not.toContain("42.0%");
      expect(page(outB, "pulse/timeline/index.html")).not.toContain(extra.hash.slice(7, 19));
      const a = filesUnder(outA);
      expect(filesUnder(outB)).toEqual(a);
      const digest = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");
      const differing = a.filter((p) => digest(join(outA, p)) !== digest(join(outB, p)));
      expect(differing).toEqual([]);
    },
    BUILD_TIMEOUT,
  );

  it(
    "fails the build, naming the line, when the history was tampered with",
    async () => {
      const tampered = join(tmp, "tampered");
      cpSync(dataDir, tampered, { recursive: true });
      // Raise one score of line 1234 without resealing: its hash no longer matches its payload.
      const records = history.map((r, i) => (i === 1233 ? { ...r, giScore: 1 } : r));
      writeFileSync(join(tampered, "pulse", "history.jsonl"), records.map((r) => `${historyLine(r)}\n`).join(""));
      const out = join(tmp, "out-tampered");
      const result = await buildSite(tampered, out);
      expect(result.code).not.toBe(0);
      expect(result.output).toMatch(/history\.jsonl line 1234: hash mismatch/);
      // Refused when the build starts, before any page is rendered.
      expect(result.output).not.toMatch(/generating static routes/);
      // Nothing from the tampered history was published.
      const published = existsSync(out) ? filesUnder(out).filter((p) => p.endsWith(".html")) : [];
      expect(published).toEqual([]);
    },
    BUILD_TIMEOUT,
  );

  it(
    "fails the build, naming the file, when a static copy under data/v1 was forged under an intact signed history",
    async () => {
      const forged = join(tmp, "forged");
      cpSync(dataDir, forged, { recursive: true });
      const gi = join(forged, "v1", "pulse", "badge", "gi.json");
      writeFileSync(
        gi,
        readFileSync(gi, "utf8")
          .replace(/"message": "[^"]+"/, '"message": "42.0%"')
          .replace(/"color": "[^"]+"/, '"color": "red"'),
      );
      const out = join(tmp, "out-forged");
      const result = await buildSite(forged, out);
      expect(result.code).not.toBe(0);
      expect(result.output).toMatch(/v1\/pulse\/badge\/gi\.json: differs from what the history gives/);
      expect(result.output).not.toMatch(/generating static routes/);
      expect(existsSync(join(out, "v1", "pulse", "badge", "gi.json"))).toBe(false);
    },
    BUILD_TIMEOUT,
  );

  it(
    "refuses a history shorter than its signed checkpoint",
    async () => {
      // Nothing can be vouched for. (Lines past the checkpoint: the byte-identical build above.)
      const shortened = join(tmp, "shortened");
      cpSync(dataDir, shortened, { recursive: true });
      writeFileSync(
        join(shortened, "pulse", "history.jsonl"),
        history
          .slice(0, -1)
          .map((r) => `${historyLine(r)}\n`)
          .join(""),
      );
      const refused = await buildSite(shortened, join(tmp, "out-shortened"));
      expect(refused.code).not.toBe(0);
      expect(refused.output).toMatch(/cannot be vouched for/);
    },
    BUILD_TIMEOUT,
  );

  it(
    "builds an empty site when there is no history yet",
    async () => {
      const empty = join(tmp, "empty");
      const out = join(tmp, "out-empty");
      const result = await buildSite(empty, out);
      expect(result.code, result.output).toBe(0);
      const timeline = page(out, "pulse/timeline/index.html");
      expect(timeline).toMatch(/No pulse recorded yet/);
      expect(page(out, "index.html")).toMatch(/No pulse recorded yet/);
      expect(filesUnder(out).filter((p) => p.startsWith("v1/"))).toEqual([]);
      expect(statSync(join(out, "404.html")).isFile()).toBe(true);
    },
    BUILD_TIMEOUT,
  );
});

describe("the build's check of the pulse's static copies (pulseStaticFiles)", () => {
  const small = makeHistory(5);
  const copies = (name: string) => {
    const dir = join(tmp, name);
    writeDataDir(dir, small);
    return dir;
  };

  it("gives what the signed records give when data/v1 holds exactly that, and nothing before the first record", () => {
    const dir = copies("static-ok");
    const { records } = readPulseHistory(dir);
    const files = pulseStaticFiles(dir, records);
    expect([...files.keys()]).toEqual(filesUnder(dir).filter((p) => p.startsWith("v1/")));
    for (const [path, bytes] of files) expect(readFileSync(join(dir, path)).equals(bytes), path).toBe(true);
    expect(pulseStaticFiles(join(tmp, "static-none"), []).size).toBe(0);
  });

  it("throws naming each forged, missing or extra file", () => {
    const dir = copies("static-forged");
    const latest = join(dir, "v1", "pulse", "latest.json");
    writeFileSync(latest, readFileSync(latest, "utf8").replace(/"giScore": [\d.]+,/, '"giScore": 0.42,'));
    rmSync(join(dir, "v1", "pulse", "badge.svg"));
    writeFileSync(join(dir, "v1", "pulse", "extra.json"), "{}\n");
    const { records } = readPulseHistory(dir);
    let message = "";
    try {
      pulseStaticFiles(dir, records);
    } catch (error) {
      expect(error).toBeInstanceOf(HistoryVerificationError);
      message = (error as Error).message;
    }
    expect(message.split("\n").slice(1)).toEqual([
      "  v1/pulse/badge.svg: missing (regenerate with npm run pulse)",
      "  v1/pulse/extra.json: not a file the history gives (remove it, or regenerate with npm run pulse)",
      "  v1/pulse/latest.json: differs from what the history gives (regenerate with npm run pulse)",
    ]);
  });

  it("compares with the signed records only: copies of a line after the checkpoint are refused", () => {
    const dir = copies("static-unsigned");
    const last = small.at(-1)!;
    const extra = sealPulse({
      ...last,
      id: "00000000-0000-8000-8000-000000000042",
      giScore: 0.42,
      generatedAt: new Date(Date.parse(last.generatedAt) + 3_600_000).toISOString(),
      prev: last.hash,
    });
    appendFileSync(join(dir, "pulse", "history.jsonl"), `${historyLine(extra)}\n`);
    // The checkpoint still signs 5 lines: the signed records are unchanged and so are the copies.
    expect(pulseStaticFiles(dir, readPulseHistory(dir).records).size).toBe(8);
    // Copies written for the unsigned line too do not match what the signed records give.
    for (const [path, bytes] of expectedStaticFiles([...small, extra])) writeFileSync(join(dir, path), bytes);
    expect(() => pulseStaticFiles(dir, readPulseHistory(dir).records)).toThrow(
      /v1\/pulse\/latest\.json: differs from what the history gives/,
    );
  });
});
