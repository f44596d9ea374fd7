/**
 * The runner on a real temporary ledger and data folder, with small steps of its own: a document
 * from the ledger facts, a document from a curated source and another step's output, a CSV streamed
 * from every ledger entry.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { LedgerEntry } from "../core/ledger/entry.ts";
import type { LedgerReader, NewEvent } from "../core/ledger/store.ts";
import { DATASET_KEY, loadSigningKey } from "../store/keys.ts";
import type { Ledger } from "../store/ledger/ledger.ts";
import { openLedgerStore } from "../store/open-ledger.ts";
import { sampleEvent, steppingClock, tempDir } from "../test/support/store/helpers.ts";
import { publicKeyFromSecret } from "../core/signature.ts";
import { verifierKey } from "../core/checkpoint.ts";
import { ExportLedgerReader, exportLedger } from "../store/ledger-jsonl.ts";
import { ledgerVerifiers, main as pipelineMain } from "./cli.ts";
import { readManifest } from "./manifest.ts";
import { defaultProfilesDir } from "./validate/profiles.ts";
import { verifyAreas } from "./verify.ts";

const PROFILES = defaultProfilesDir();
import { runPipeline, type RunOptions } from "./runner.ts";
import { createSourceReader } from "./source-reader.ts";
import type { DocumentStep, RowsStep, Step } from "./step.ts";
import { badge, countStep } from "../test/support/pipeline/helpers.ts";

const REPO = new URL("..", import.meta.url).pathname;

/** Counts full reads: a real LedgerReader around the SQLite one, not a mock. */
class CountingReader implements LedgerReader {
  entriesCalls = 0;
  readonly inner: LedgerReader;
  constructor(inner: LedgerReader) {
    this.inner = inner;
  }
  /** The wrapped log's origin, which the runner records in the manifests. */
  get origin(): string {
    return this.inner.origin;
  }
  size() {
    return this.inner.size();
  }
  entries(start?: number, end?: number) {
    this.entriesCalls += 1;
    return this.inner.entries(start, end);
  }
  storedEntries(start?: number, end?: number) {
    this.entriesCalls += 1;
    return this.inner.storedEntries(start, end);
  }
  rootHash(n?: number) {
    return this.inner.rootHash(n);
  }
  inclusionProof(seq: number, n?: number) {
    return this.inner.inclusionProof(seq, n);
  }
  consistencyProof(a: number, b?: number) {
    return this.inner.consistencyProof(a, b);
  }
  latestCheckpoint() {
    return this.inner.latestCheckpoint();
  }
  verify() {
    return this.inner.verify();
  }
}

const labelStep: DocumentStep = {
  kind: "document",
  id: "economy/roi.json",
  area: "economy",
  path: "roi.json",
  name: "labelled",
  title: "Labelled count",
  description: "The count under a curated label.",
  mediatype: "application/json",
  access: "public",
  schema: "pulse-badge",
  inputs: ["sources/test/label.json", "step:economy/supply.json"],
  version: 1,
  generate: ({ sources }, outputs) => {
    const { label } = sources.json("test/label.json", z.strictObject({ label: z.string().min(1) }));
    const count = JSON.parse(new TextDecoder().decode(outputs.get("economy/supply.json"))) as { message: string };
    return badge(label, count.message);
  },
};

const auditStep: RowsStep = {
  kind: "rows",
  id: "government/ledger/export.csv",
  area: "government",
  path: "ledger/export.csv",
  name: "audit-trail",
  title: "Audit trail",
  description: "Every ledger entry.",
  mediatype: "text/csv",
  access: "government",
  schema: "government/audit-trail-row",
  inputs: ["ledger"],
  version: 1,
  start: () => ({
    head: "timestamp,event_type,agent,data,attestation_hash\r\n",
    sink: {
      push: (e: LedgerEntry) => {
        const agent = String((e.payload as { sentinel?: string }).sentinel ?? "ledger");
        const data = `"${JSON.stringify(e.payload).replaceAll('"', '""')}"`;
        return `${e.ts},${e.type},${agent},${data},${e.hash}\r\n`;
      },
      end: () => "",
    },
  }),
};

const TEST_STEPS: Step[] = [countStep, labelStep, auditStep];

const LEDGER_SECRET = "5e".repeat(32);

const SAMPLE: NewEvent = {
  type: "sample.generated",
  payload: { generator: "runner-test", seed: "42", notice: "Test data, not real activity." },
};

interface Fixture {
  root: string;
  dataDir: string;
  ledger: Ledger;
  reader: CountingReader;
  log: string[];
  run(extra?: Partial<RunOptions>): ReturnType<typeof runPipeline>;
  cleanup(): void;
}

async function fixture(sample = true): Promise<Fixture> {
  const { dir, cleanup } = tempDir("runner-test-");
  const dataDir = join(dir, "data");
  cpSync(join(REPO, "data", "schemas"), join(dataDir, "schemas"), { recursive: true });
  mkdirSync(join(dataDir, "sources", "test"), { recursive: true });
  writeFileSync(join(dataDir, "sources", "test", "label.json"), `{"label":"ledger entries"}\n`);
  const ledger = await openLedgerStore({
    path: join(dir, "ledger.sqlite"),
    origin: "test.example/ledger",
    durability: "normal",
    now: steppingClock(),
    signer: { name: "test.example/ledger", secretKeyHex: LEDGER_SECRET },
  });
  await ledger.append([...(sample ? [SAMPLE] : []), ...Array.from({ length: 40 }, (_, i) => sampleEvent(i))]);
  const reader = new CountingReader(ledger);
  const log: string[] = [];
  const stateDir = join(dir, "state");
  return {
    root: dir,
    dataDir,
    ledger,
    reader,
    log,
    run: (extra = {}) =>
      runPipeline({
        dataDir,
        ledger: reader,
        steps: TEST_STEPS,
        log: (l) => log.push(l),
        signingKey: () => loadSigningKey(DATASET_KEY, stateDir, {}),
        digestCache: join(stateDir, "pipeline-digests.json"),
        ...extra,
      }),
    cleanup: async () => {
      await ledger.close();
      cleanup();
    },
  };
}

function tmpFiles(dir: string): string[] {
  const found: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else if (e.name.endsWith(".tmp")) found.push(join(d, e.name));
    }
  };
  walk(dir);
  return found;
}

let f: Fixture;
beforeEach(async () => {
  f = await fixture();
});
afterEach(async () => f.cleanup());

describe("runPipeline", () => {
  it("writes every output, its manifest and signature, reading the ledger once", async () => {
    const report = await f.run();
    expect(report.ok).toBe(true);
    expect(f.reader.entriesCalls).toBe(1);
    expect(report.ledgerEntries).toBe(41);
    expect(report.steps.map((s) => `${s.id} ${s.status}`).sort()).toEqual([
      "economy/roi.json written",
      "economy/supply.json written",
      "government/ledger/export.csv written",
    ]);
    const areas = join(f.dataDir, "areas");
    expect(JSON.parse(readFileSync(join(areas, "economy", "supply.json"), "utf8")).message).toBe("41");
    expect(JSON.parse(readFileSync(join(areas, "economy", "roi.json"), "utf8"))).toMatchObject({
      label: "ledger entries",
      message: "41",
    });
    const csv = readFileSync(join(areas, "government", "ledger", "export.csv"), "utf8");
    expect(csv.split("\r\n")).toHaveLength(1 + 41 + 1);
    for (const area of ["economy", "government"]) {
      expect(existsSync(join(areas, area, "datapackage.json"))).toBe(true);
      expect(readFileSync(join(areas, area, "datapackage.json.sig"), "utf8")).toMatch(
        /^government datapackage\n|^economy datapackage\n/,
      );
    }
    expect(readFileSync(join(f.dataDir, "keys", "datasets.vkey"), "utf8")).toMatch(
      /^integrity-platform\.example\/datasets\+[0-9a-f]{8}\+/,
    );
    expect(f.log).toContain("economy/supply.json … written");
    expect(f.log[f.log.length - 1]).toBe("3 written, 0 unchanged, 0 failed");
    expect(tmpFiles(f.root)).toEqual([]);
  });

  it("a second run with nothing new writes nothing and does not read the ledger", async () => {
    await f.run();
    const before = readFileSync(join(f.dataDir, "areas", "economy", "datapackage.json"));
    f.reader.entriesCalls = 0;
    f.log.length = 0;
    const report = await f.run();
    expect(report.ok).toBe(true);
    expect(f.reader.entriesCalls).toBe(0);
    expect(report.ledgerRead).toBe(false);
    expect(report.written).toEqual([]);
    expect(report.steps.every((s) => s.status === "unchanged")).toBe(true);
    expect(f.log).toContain("government/ledger/export.csv … unchanged");
    expect(f.log[f.log.length - 1]).toBe("0 written, 3 unchanged, 0 failed");
    expect(readFileSync(join(f.dataDir, "areas", "economy", "datapackage.json"))).toEqual(before);
  });

  it("regenerates what an appended ledger entry or an edited source changes", async () => {
    await f.run();
    await f.ledger.append([sampleEvent(1000)]);
    f.reader.entriesCalls = 0;
    let report = await f.run();
    expect(report.ok).toBe(true);
    expect(f.reader.entriesCalls).toBe(1);
    expect(
      report.steps
        .filter((s) => s.status === "written")
        .map((s) => s.id)
        .sort(),
    ).toEqual(["economy/roi.json", "economy/supply.json", "government/ledger/export.csv"]);
    expect(JSON.parse(readFileSync(join(f.dataDir, "areas", "economy", "supply.json"), "utf8")).message).toBe("42");

    // A curated source: only the step that reads it runs; the ledger is not read.
    writeFileSync(join(f.dataDir, "sources", "test", "label.json"), `{"label":"entries on the ledger"}\n`);
    f.reader.entriesCalls = 0;
    report = await f.run();
    expect(report.ok).toBe(true);
    expect(f.reader.entriesCalls).toBe(0);
    expect(report.steps.filter((s) => s.status === "written").map((s) => s.id)).toEqual(["economy/roi.json"]);
    const manifest = readManifest(join(f.dataDir, "areas", "economy", "datapackage.json"))!;
    expect(manifest.descriptor.sources).toContainEqual(
      expect.objectContaining({ kind: "curated", title: "Curated source data/sources/test/label.json" }),
    );
  });

  it("fails, writing nothing, when a stored entry was changed behind the store's back", async () => {
    // The stored leaves and subtrees still give the old root: only rehashing what is read shows it.
    const raw = new DatabaseSync(f.ledger.store.location);
    raw.exec("DROP TRIGGER entries_no_update");
    raw.exec(`UPDATE entries SET payload = replace(payload, '"operational"', '"degraded"') WHERE seq = 5`);
    raw.close();
    await expect(f.run()).rejects.toThrow(
      /the ledger pass read 41 entries with root sha256:[0-9a-f]{64}, but the ledger reported 41 entries with root/,
    );
    expect(existsSync(join(f.dataDir, "areas", "government", "ledger", "export.csv"))).toBe(false);
    expect(existsSync(join(f.dataDir, "areas", "economy", "supply.json"))).toBe(false);
    expect(tmpFiles(f.root)).toEqual([]);
  });

  it("regenerates a file whose bytes were changed on disk", async () => {
    await f.run();
    const file = join(f.dataDir, "areas", "economy", "supply.json");
    const original = readFileSync(file, "utf8");
    writeFileSync(file, original.replace("41", "40"));
    const report = await f.run();
    expect(report.steps.find((s) => s.id === "economy/supply.json")!.status).toBe("written");
    expect(readFileSync(file, "utf8")).toBe(original);
  });

  it("a failing step names the step and the file, and leaves its area untouched", async () => {
    await f.run();
    await f.ledger.append([sampleEvent(2000)]);
    const broken: DocumentStep = {
      ...countStep,
      version: 2,
      generate: () => `{"schemaVersion":1,"label":"","message":"x","color":"blue"}\n`,
    };
    const report = await f.run({ steps: [broken, labelStep, auditStep] });
    expect(report.ok).toBe(false);
    const failure = report.steps.find((s) => s.id === "economy/supply.json")!;
    expect(failure.status).toBe("failed");
    expect(failure.reason).toContain(join(f.dataDir, "areas", "economy", "supply.json"));
    expect(failure.reason).toContain("JSON Schema");
    expect(f.log.some((l) => l.startsWith("economy/supply.json … FAILED: ") && l.includes("supply.json"))).toBe(true);
    expect(report.steps.find((s) => s.id === "economy/roi.json")!.status).toBe("failed");
    // The economy area keeps the previous run's files; government, which succeeded, is updated.
    expect(JSON.parse(readFileSync(join(f.dataDir, "areas", "economy", "supply.json"), "utf8")).message).toBe("41");
    expect(report.steps.find((s) => s.id === "government/ledger/export.csv")!.status).toBe("written");
    expect(f.log[f.log.length - 1]).toMatch(/1 written, 0 unchanged, 2 failed/);
    expect(tmpFiles(f.root)).toEqual([]);
  });

  it("a rows step that throws mid-stream fails and leaves no temporary file", async () => {
    const throwing: RowsStep = {
      ...auditStep,
      start: () => ({
        head: "timestamp,event_type,agent,data,attestation_hash\r\n",
        sink: {
          push: (e, payloadText) => {
            if (e.seq === 20) throw new Error("cannot format entry 20");
            return auditStep.start({ pulse: [], sources: createSourceReader(f.dataDir) }).sink.push(e, payloadText);
          },
          end: () => "",
        },
      }),
    };
    const report = await f.run({ steps: [countStep, labelStep, throwing] });
    expect(report.ok).toBe(false);
    expect(report.steps.find((s) => s.id === "government/ledger/export.csv")!.reason).toMatch(
      /export\.csv: cannot format entry 20/,
    );
    expect(existsSync(join(f.dataDir, "areas", "government", "ledger", "export.csv"))).toBe(false);
    expect(existsSync(join(f.dataDir, "areas", "economy", "supply.json"))).toBe(true);
    expect(tmpFiles(f.root)).toEqual([]);
  });

  it("validates streamed CSV rows against the row schema", async () => {
    const badRows: RowsStep = {
      ...auditStep,
      start: () => ({
        head: "timestamp,event_type,agent,data,attestation_hash\r\n",
        sink: { push: (e) => `${e.ts},${e.type},x,{},not-a-hash\r\n`, end: () => "" },
      }),
    };
    const report = await f.run({ steps: [badRows], areas: ["government"] });
    expect(report.ok).toBe(false);
    expect(report.steps[0]!.reason).toMatch(
      /export\.csv: row 1 does not match its row JSON Schema: \/attestation_hash/,
    );
  });

  it("writes keyed outputs into the keyed data folder only; the public folder keeps the signed manifest with their hashes", async () => {
    f.cleanup();
    f = await fixture(false); // real data, not SAMPLE: the public folder may hold no keyed file
    const keyedDir = join(f.root, "private");
    const report = await f.run({ keyedDataDir: keyedDir });
    expect(report.ok).toBe(true);
    const publicFile = join(f.dataDir, "areas", "government", "ledger", "export.csv");
    const keyedFile = join(keyedDir, "areas", "government", "ledger", "export.csv");
    expect(existsSync(publicFile)).toBe(false);
    expect(existsSync(keyedFile)).toBe(true);
    expect(existsSync(join(f.dataDir, "areas", "economy", "supply.json"))).toBe(true);
    const manifest = readManifest(join(f.dataDir, "areas", "government", "datapackage.json"))!;
    expect(manifest.records.get("ledger/export.csv")!.hash).toBe(
      `sha256:${createHash("sha256").update(readFileSync(keyedFile)).digest("hex")}`,
    );
    // The public copy verifies on its own (the keyed file is counted as not present), and the
    // keyed downloader's copy verifies against the same signed manifest.
    const verifyOf = (extra: object) => verifyAreas(join(f.dataDir, "areas"), { profiles: PROFILES, ...extra });
    expect(verifyOf({ publicOnly: true }).find((r) => r.area === "government")).toMatchObject({
      ok: true,
      keyedAbsent: 1,
    });
    expect(verifyOf({ keyed: join(keyedDir, "areas") }).find((r) => r.area === "government")).toMatchObject({
      ok: true,
      keyedAbsent: 0,
    });
    // A second run finds everything unchanged, in both folders.
    const again = await f.run({ keyedDataDir: keyedDir });
    expect(again.steps.every((s) => s.status === "unchanged")).toBe(true);
    // The guard for the public repository: a keyed file in the public folder of real (not SAMPLE) data fails.
    cpSync(keyedFile, publicFile);
    expect(verifyOf({ publicOnly: true }).find((r) => r.area === "government")).toMatchObject({
      ok: false,
      file: publicFile,
      problem: expect.stringMatching(/keyed file in the public data folder/),
    });
  });

  it("--areas limits the run to those areas", async () => {
    const report = await f.run({ areas: ["government"] });
    expect(report.ok).toBe(true);
    expect(report.steps.map((s) => s.id)).toEqual(["government/ledger/export.csv"]);
    expect(existsSync(join(f.dataDir, "areas", "economy"))).toBe(false);
  });

  it("--check passes right after a run and names a file whose byte changed", async () => {
    await f.run();
    f.log.length = 0;
    let report = await f.run({ check: true });
    expect(report.ok).toBe(true);
    expect(report.differences).toEqual([]);
    expect(report.steps.every((s) => s.status === "matches")).toBe(true);

    const file = join(f.dataDir, "areas", "government", "ledger", "export.csv");
    const bytes = readFileSync(file);
    bytes[bytes.length - 3] = bytes[bytes.length - 3] === 0x61 ? 0x62 : 0x61;
    writeFileSync(file, bytes);
    const snapshot = readFileSync(file);
    f.log.length = 0;
    report = await f.run({ check: true });
    expect(report.ok).toBe(false);
    expect(report.differences).toEqual([file]);
    expect(f.log).toContain(`  differs: ${file}`);
    // --check wrote nothing.
    expect(readFileSync(file)).toEqual(snapshot);
    expect(tmpFiles(f.root)).toEqual([]);
  });

  it("--check names a file in an area's folder that no manifest lists; a run says so and leaves it", async () => {
    await f.run();
    const copy = join(f.dataDir, "areas", "government", "ledger", "export (copy).csv");
    const notes = join(f.dataDir, "areas", "economy", "notes.txt");
    cpSync(join(f.dataDir, "areas", "government", "ledger", "export.csv"), copy);
    writeFileSync(notes, "mine\n");
    f.log.length = 0;
    let report = await f.run({ check: true });
    expect(report.ok).toBe(false);
    expect(report.differences.sort()).toEqual([copy, notes].sort());
    expect(f.log).toContain(`${copy} … UNLISTED: no manifest lists it, so nothing publishes or verifies it`);
    f.log.length = 0;
    report = await f.run();
    expect(report.ok).toBe(true);
    expect(f.log.some((line) => line.startsWith(`${notes} … UNLISTED`))).toBe(true);
    expect(readFileSync(notes, "utf8")).toBe("mine\n");
    rmSync(copy);
    rmSync(notes);
    expect((await f.run({ check: true })).differences).toEqual([]);
  });

  it("--check reports a stale manifest and a signature that does not verify", async () => {
    await f.run();
    const manifest = join(f.dataDir, "areas", "economy", "datapackage.json");
    writeFileSync(
      manifest,
      readFileSync(manifest, "utf8").replace('"title": "Integrity Platform — economy"', '"title": "Economy"'),
    );
    let report = await f.run({ check: true });
    expect(report.differences).toEqual([manifest]);
    await f.run();
    writeFileSync(
      `${manifest}.sig`,
      readFileSync(`${manifest}.sig`, "utf8").replace("economy datapackage", "government datapackage"),
    );
    report = await f.run({ check: true });
    expect(report.ok).toBe(false);
    expect(report.differences).toEqual([`${manifest}.sig`]);
  });

  it("refuses to sign with a key that data/keys/datasets.vkey does not list, unless told to trust it", async () => {
    await f.run();
    await f.ledger.append([sampleEvent(3000)]);
    const otherState = join(f.root, "other-state");
    let report = await f.run({ signingKey: () => loadSigningKey(DATASET_KEY, otherState, {}) });
    expect(report.ok).toBe(false);
    expect(report.steps[0]!.reason).toMatch(/is not listed in .*datasets\.vkey.*--trust-new-key/);
    report = await f.run({ signingKey: () => loadSigningKey(DATASET_KEY, otherState, {}), trustNewKey: true });
    expect(report.ok).toBe(true);
    expect(
      readFileSync(join(f.dataDir, "keys", "datasets.vkey"), "utf8")
        .trim()
        .split("\n"),
    ).toHaveLength(2);
  });

  it("a step's identity includes its code: editing a module it imports runs it again, a type-only import does not", async () => {
    const root = join(f.root, "repo");
    mkdirSync(join(root, "steps"), { recursive: true });
    writeFileSync(
      join(root, "steps", "count.ts"),
      `import { label } from "./label.ts";\nimport type { T } from "./types.ts";\nexport const count = label;\n`,
    );
    writeFileSync(join(root, "steps", "label.ts"), `export const label = "entries";\n`);
    writeFileSync(join(root, "steps", "types.ts"), `export type T = number;\n`);
    let runs = 0;
    const counted: DocumentStep = {
      ...countStep,
      generate: (inputs, outputs) => (runs++, countStep.generate(inputs, outputs)),
    };
    const code = { root, modules: new Map<Step, string>([[counted, "steps/count.ts"]]) };
    const manifest = join(f.dataDir, "areas", "economy", "datapackage.json");
    const recorded = () =>
      readManifest(manifest)!.descriptor.resources as {
        path: string;
        inputs_hash: string;
        inputs: Record<string, string>;
      }[];

    expect((await f.run({ steps: [counted], areas: ["economy"], code })).ok).toBe(true);
    const first = recorded().find((r) => r.path === "supply.json")!;
    expect(first.inputs.code).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(runs).toBe(1);

    writeFileSync(join(root, "steps", "types.ts"), `export type T = string;\n`);
    f.reader.entriesCalls = 0;
    await f.run({ steps: [counted], areas: ["economy"], code });
    expect([runs, f.reader.entriesCalls]).toEqual([1, 0]);

    writeFileSync(join(root, "steps", "label.ts"), `export const label = "ledger entries";\n`);
    const report = await f.run({ steps: [counted], areas: ["economy"], code });
    expect(report.ok).toBe(true);
    expect(runs).toBe(2);
    const second = recorded().find((r) => r.path === "supply.json")!;
    expect(second.inputs.code).not.toBe(first.inputs.code);
    expect(second.inputs_hash).not.toBe(first.inputs_hash);
    expect(second.inputs.ledger).toBe(first.inputs.ledger);
  });

  it("refuses a step list with a cycle or an unknown dependency before running anything", async () => {
    const a: DocumentStep = { ...labelStep, inputs: ["step:economy/supply.json"] };
    const b: DocumentStep = { ...countStep, inputs: ["step:economy/roi.json"] };
    await expect(f.run({ steps: [a, b] })).rejects.toThrow(/dependency cycle/);
    await expect(f.run({ steps: [a] })).rejects.toThrow(/names no step/);
    expect(f.reader.entriesCalls).toBe(0);
  });
});

describe("the ledger export as input (--ledger-export)", () => {
  const vkey = () => verifierKey("test.example/ledger", publicKeyFromSecret("ed25519", LEDGER_SECRET));

  it("gives the same outputs as the SQLite ledger, and reads only the checkpoint when nothing is new", async () => {
    await f.run();
    const dir = join(f.root, "export");
    await exportLedger(f.ledger, dir);
    const reader = new CountingReader(new ExportLedgerReader(dir, ledgerVerifiers(vkey(), "")));
    const check = await f.run({ ledger: reader, check: true });
    expect(check.differences).toEqual([]);
    expect(check.ok).toBe(true);
    reader.entriesCalls = 0;
    const again = await f.run({ ledger: reader });
    expect(again.steps.every((s) => s.status === "unchanged")).toBe(true);
    expect(reader.entriesCalls).toBe(0);
  });

  it("refuses an export whose checkpoint no trusted key signed, and fails the run on a tampered line", async () => {
    const dir = join(f.root, "export");
    await exportLedger(f.ledger, dir);
    const other = verifierKey("test.example/ledger", publicKeyFromSecret("ed25519", "77".repeat(32)));
    expect(() => new ExportLedgerReader(dir, ledgerVerifiers(other, ""))).toThrow(
      /checkpoint: .*no verifiable signatures/,
    );

    const lines = readFileSync(join(dir, "ledger.jsonl"), "utf8").split("\n");
    lines[5] = lines[5]!.replace('"status":"operational"', '"status":"degraded"');
    writeFileSync(join(dir, "ledger.jsonl"), lines.join("\n"));
    const reader = new ExportLedgerReader(dir, ledgerVerifiers(vkey(), ""));
    await expect(f.run({ ledger: reader })).rejects.toThrow(/ledger\.jsonl: seq 5: hash mismatch/);
    // Nothing written: at most the empty folders the staged files stood in.
    const areasDir = join(f.dataDir, "areas");
    if (existsSync(areasDir))
      expect(readdirSync(areasDir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile())).toEqual([]);
    expect(tmpFiles(f.root)).toEqual([]);
  });
});

describe("npm run pipeline (cli)", () => {
  it("exits 2 on bad usage and 1 when there is no ledger", async () => {
    const errors: string[] = [];
    const original = console.error;
    console.error = (line: string) => errors.push(line);
    try {
      expect(await pipelineMain(["--areas", "economy,astrology"], () => {})).toBe(2);
      expect(await pipelineMain(["--now", "not a time"], () => {})).toBe(2);
      expect(await pipelineMain(["--ledger", join(f.root, "missing.sqlite"), "--data", f.dataDir], () => {})).toBe(1);
    } finally {
      console.error = original;
    }
    expect(errors.join("\n")).toMatch(/unknown area "astrology"/);
    expect(errors.join("\n")).toMatch(/no ledger at .*missing\.sqlite: run `npm run seed`/);
  });
});

describe("SourceReader", () => {
  it("names the file and the field path of an invalid source, and refuses undeclared reads", async () => {
    const { dir, cleanup } = tempDir("sources-");
    try {
      writeFileSync(join(dir, "scoring.json"), `{"weights":{"gi":"high"}}`);
      writeFileSync(join(dir, "broken.json"), `{"weights":`);
      const reader = createSourceReader(dir);
      const schema = z.strictObject({ weights: z.strictObject({ gi: z.number() }) });
      expect(() => reader.json("scoring.json", schema)).toThrow(/^data\/sources\/scoring\.json: weights\.gi: /);
      expect(() => reader.json("broken.json", schema)).toThrow(/^data\/sources\/broken\.json: not valid JSON/);
      expect(() => reader.json("missing.json", schema)).toThrow(/^data\/sources\/missing\.json: file not found/);
      expect(() => reader.text("../escape.json")).toThrow(/invalid source path/);
      const scoped = createSourceReader(dir, { allowed: new Set(["broken.json"]), reader: "economy/x.json" });
      expect(() => scoped.text("scoring.json")).toThrow(
        /read by economy\/x\.json but not declared as input "sources\/scoring\.json"/,
      );
    } finally {
      cleanup();
    }
  });
});
