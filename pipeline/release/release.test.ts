/**
 * Releases over real regenerations: a temporary ledger and data folder, the real mint history step
 * and its Parquet copy (economy), a step that counts heartbeats (academics) and one fed a curated
 * source only (diplomacy). New events between two runs make a release of exactly the areas whose
 * files changed, and the changes resource names exactly the rows the appended events made.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { LedgerEntry } from "../../core/ledger/entry.ts";
import { DATASET_KEY, loadSigningKey } from "../../store/keys.ts";
import type { Ledger } from "../../store/ledger/ledger.ts";
import { openLedgerStore } from "../../store/open-ledger.ts";
import { sampleEvent, steppingClock, tempDir } from "../../test/support/store/helpers.ts";
import { badge } from "../../test/support/pipeline/helpers.ts";
import { micHistoryStep } from "../areas/economy/mic-history.ts";
import { micHistoryParquetStep } from "../areas/economy/mic-history-parquet.ts";
import { runPipeline } from "../runner.ts";
import type { DocumentStep, Step } from "../step.ts";
import type { ReleaseHistory } from "./history.ts";
import { verifyAreas } from "../verify.ts";
import { parse as parseYaml } from "yaml";
import { checkBibtex } from "../lib/bibtex.ts";

const REPO = new URL("../..", import.meta.url).pathname;

const heartbeatStep: DocumentStep = {
  kind: "document",
  id: "academics/dataset.json",
  area: "academics",
  path: "dataset.json",
  name: "heartbeats",
  title: "Heartbeats",
  description: "How many heartbeats the ledger holds.",
  mediatype: "application/json",
  access: "public",
  schema: "pulse-badge",
  inputs: ["ledger"],
  version: 1,
  generate: ({ facts }) => badge("heartbeats", String(facts.eventCounts["sentinel.heartbeat"] ?? 0)),
};

const curatedStep: DocumentStep = {
  kind: "document",
  id: "diplomacy/standards.json",
  area: "diplomacy",
  path: "standards.json",
  name: "label",
  title: "Label",
  description: "A curated label.",
  mediatype: "application/json",
  access: "public",
  schema: "pulse-badge",
  inputs: ["sources/test/label.json"],
  version: 1,
  generate: ({ sources }) => badge(sources.json("test/label.json", z.strictObject({ label: z.string() })).label, "1"),
};

const STEPS: Step[] = [micHistoryStep, micHistoryParquetStep, heartbeatStep, curatedStep];

let root: string;
let dataDir: string;
let ledger: Ledger;
let cleanup: () => void;
const run = (check = false) =>
  runPipeline({
    dataDir,
    ledger,
    steps: STEPS,
    check,
    log: () => {},
    signingKey: () => loadSigningKey(DATASET_KEY, join(root, "state"), {}),
    digestCache: join(root, "state", "pipeline-digests.json"),
  });
const history = (area: string) =>
  JSON.parse(readFileSync(join(dataDir, "areas", area, "releases.json"), "utf8")) as ReleaseHistory;
const versions = () =>
  Object.fromEntries(["economy", "academics", "diplomacy"].map((a) => [a, history(a).releases.map((r) => r.version)]));
const manifestVersion = (area: string) =>
  (JSON.parse(readFileSync(join(dataDir, "areas", area, "datapackage.json"), "utf8")) as { version: string }).version;

beforeAll(async () => {
  ({ dir: root, cleanup } = tempDir("release-test-"));
  dataDir = join(root, "data");
  cpSync(join(REPO, "data", "schemas"), join(dataDir, "schemas"), { recursive: true });
  mkdirSync(join(dataDir, "sources", "test"), { recursive: true });
  writeFileSync(join(dataDir, "sources", "test", "label.json"), `{"label":"curated"}\n`);
  ledger = await openLedgerStore({
    path: join(root, "ledger.sqlite"),
    origin: "test.example/ledger",
    durability: "normal",
    now: steppingClock(),
    signer: { name: "test.example/ledger", secretKeyHex: "5e".repeat(32) },
  });
  await ledger.append(Array.from({ length: 40 }, (_, i) => sampleEvent(i)));
});

afterAll(async () => {
  await ledger.close();
  cleanup();
});

describe("the repository's CITATION.cff", () => {
  it("is CFF 1.2.0 with the keys the format requires", () => {
    const cff = parseYaml(readFileSync(join(REPO, "CITATION.cff"), "utf8"));
    expect(cff).toMatchObject({
      "cff-version": "1.2.0",
      title: "Integrity Platform",
      authors: [{ name: "Integrity Platform" }],
    });
    expect(typeof cff.message).toBe("string");
  });
});

describe("area releases", () => {
  it("release 1.0.0 of every area first; a run with nothing new makes no release and --check is clean", async () => {
    expect((await run()).ok).toBe(true);
    expect(versions()).toEqual({ economy: ["1.0.0"], academics: ["1.0.0"], diplomacy: ["1.0.0"] });
    const economy = history("economy").releases[0]!;
    expect(economy.tables["mic-history.csv"]).toEqual({ added: 20, removed: 0, changed: 0 });
    const copy = readFileSync(join(dataDir, "areas", "economy", economy.manifest.path));
    expect(`sha256:${createHash("sha256").update(copy).digest("hex")}`).toBe(economy.manifest.hash);
    expect(copy.equals(readFileSync(join(dataDir, "areas", "economy", "datapackage.json")))).toBe(true);
    expect(existsSync(join(dataDir, "areas", "economy", "changes"))).toBe(false);

    const again = await run();
    expect(again.written).toEqual([]);
    expect((await run(true)).ok).toBe(true);
  });

  it("new mints make a minor release of the economy alone, whose changes name exactly the appended rows", async () => {
    const before = await ledger.size();
    await ledger.append([sampleEvent(1001), sampleEvent(1003), sampleEvent(1005)]);
    const appended = (await Array.fromAsync(ledger.entries(before))) as LedgerEntry[];
    expect((await run()).ok).toBe(true);
    expect(versions()).toEqual({ economy: ["1.0.0", "1.1.0"], academics: ["1.0.0"], diplomacy: ["1.0.0"] });
    expect(["economy", "academics", "diplomacy"].map(manifestVersion)).toEqual(["1.1.0", "1.0.0", "1.0.0"]);

    const changes = JSON.parse(readFileSync(join(dataDir, "areas", "economy", "changes", "mic-history.json"), "utf8"));
    expect(changes).toMatchObject({
      table: "mic-history.csv",
      from: "1.0.0",
      to: "1.1.0",
      primaryKey: ["timestamp", "sentinel"],
      removed: [],
      changed: [],
    });
    expect(changes.added.map((r: Record<string, string>) => `${r.timestamp} ${r.sentinel} ${r.amount}`)).toEqual(
      appended.map(
        (e) =>
          `${e.ts} ${(e.payload as { sentinel: string }).sentinel} ${(Number((e.payload as { amount_shards: string }).amount_shards) / 1e6).toFixed(6)}`,
      ),
    );
    const release = history("economy").releases[1]!;
    expect(release).toMatchObject({
      kind: "minor",
      previous: "1.0.0",
      tables: {
        "mic-history.csv": { added: 3, removed: 0, changed: 0, changes: "releases/1.1.0/changes/mic-history.json" },
      },
    });
    expect(release.ledger).toEqual({
      size: before + 3,
      root: `sha256:${Buffer.from(await ledger.rootHash()).toString("hex")}`,
    });
    // Listed in the manifest, and the immutable copy is the same bytes.
    const manifest = JSON.parse(readFileSync(join(dataDir, "areas", "economy", "datapackage.json"), "utf8")) as {
      resources: { path: string }[];
    };
    expect(manifest.resources.map((r) => r.path)).toContain("changes/mic-history.json");
    expect(readFileSync(join(dataDir, "areas", "economy", release.tables["mic-history.csv"]!.changes!), "utf8")).toBe(
      JSON.stringify(changes, null, 2) + "\n",
    );
    // Both releases' copies stay, and everything verifies offline.
    expect(existsSync(join(dataDir, "areas", "economy", "releases", "1.0.0", "datapackage.json"))).toBe(true);
    expect((await run(true)).ok).toBe(true);
    expect(verifyAreas(join(dataDir, "areas")).filter((r) => !r.ok)).toEqual([]);
  });

  it("a heartbeat then changes only the academics' document: a patch release of academics alone", async () => {
    await ledger.append([sampleEvent(2000)]);
    expect((await run()).ok).toBe(true);
    expect(versions()).toEqual({ economy: ["1.0.0", "1.1.0"], academics: ["1.0.0", "1.0.1"], diplomacy: ["1.0.0"] });
    const academics = history("academics").releases[1]!;
    expect(academics.kind).toBe("patch");
    // The citation a person pastes names the version, and no address (the page adds the copy's).
    const [entry] = checkBibtex(readFileSync(join(dataDir, "areas", "academics", academics.citation.bibtex), "utf8"));
    expect(entry!.fields).toMatchObject({ version: "1.0.1" });
    expect(entry!.fields).not.toHaveProperty("url");
    const cff = parseYaml(readFileSync(join(dataDir, "areas", "academics", academics.citation.cff), "utf8"));
    expect(cff).toMatchObject({
      "cff-version": "1.2.0",
      type: "dataset",
      version: "1.0.1",
      "date-released": academics.date!.slice(0, 10),
    });
    // The economy keeps its release and its changes resource.
    expect(manifestVersion("economy")).toBe("1.1.0");
    const changes = join(dataDir, "areas", "economy", "changes", "mic-history.json");
    const released = readFileSync(changes, "utf8");
    expect((await run(true)).ok).toBe(true);
    // A changes resource edited by hand: --check names it, a run puts the release's bytes back.
    writeFileSync(changes, released.replace('"removed": []', '"removed": [{}]'));
    const check = await run(true);
    expect(check.ok).toBe(false);
    expect(check.differences.some((d) => d.includes("changes/mic-history.json"))).toBe(true);
    expect((await run()).ok).toBe(true);
    expect(readFileSync(changes, "utf8")).toBe(released);
  });
});
