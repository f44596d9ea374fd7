/**
 * Incremental regeneration (pipeline/run/folds.ts): a run that continues its folds from their kept
 * state writes exactly the bytes a run that folds the whole ledger writes, and a state that cannot
 * be trusted — corrupt, made by other code, a watermark that is not a prefix of the ledger, a
 * published file that is not the one it describes — is a full fold, with the same bytes.
 */
import { closeSync, cpSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { deserialize, serialize } from "node:v8";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatDigest } from "../core/digest.ts";
import type { NewEvent } from "../core/ledger/store.ts";
import { DATASET_KEY, loadSigningKey } from "../store/keys.ts";
import { filesUnder } from "../store/files.ts";
import { LEDGER_ORIGIN, openLedgerStore } from "../store/open-ledger.ts";
import { tempDir } from "../test/support/store/helpers.ts";
import { appendEvents, prepareDataDir, seedSampleLedger } from "../test/support/pipeline/sample-ledger.ts";
import { steps } from "./areas/index.ts";
import { micHistoryStep } from "./areas/economy/mic-history.ts";
import { stateFile } from "./pass/fold-state.ts";
import { runPipeline, type RunOptions } from "./runner.ts";
import { locateSteps, type StepCode } from "./step-code.ts";

let dir: string;
let cleanup: () => void;
let held: NewEvent[];
let code: StepCode;
const A = () => join(dir, "a");
const B = () => join(dir, "b");
const stateDir = () => join(dir, "pipeline-state");

beforeAll(async () => {
  ({ dir, cleanup } = tempDir("pipeline-incremental-"));
  held = await seedSampleLedger(dir, 1500, 1000);
  const data = prepareDataDir(dir);
  cpSync(data, A(), { recursive: true });
  cpSync(data, B(), { recursive: true });
  code = await locateSteps(new URL("./areas/index.ts", import.meta.url), steps);
});
afterAll(() => cleanup?.());

/** One run over the ledger into `dataDir`; with `state`, folds continue from (and keep) their state. */
async function run(dataDir: string, state: boolean, extra: Partial<RunOptions> = {}) {
  const ledger = await openLedgerStore({ path: join(dir, "ledger.sqlite"), origin: LEDGER_ORIGIN });
  const lines: string[] = [];
  try {
    const report = await runPipeline({
      dataDir,
      ledger,
      steps,
      code,
      log: (line) => lines.push(line),
      signingKey: () => loadSigningKey(DATASET_KEY, join(dir, "state"), {}),
      ...(state ? { stateDir: stateDir() } : {}),
      ...extra,
    });
    expect(report.ok, lines.join("\n")).toBe(true);
    return { report, log: lines.join("\n") };
  } finally {
    await ledger.close();
  }
}

/** Every file under each data folder's areas/, byte for byte. */
function expectSameAreas(): void {
  const a = filesUnder(join(A(), "areas"));
  expect(a).toEqual(filesUnder(join(B(), "areas")));
  expect(a.length).toBeGreaterThan(20);
  for (const f of a)
    expect(readFileSync(join(A(), "areas", f)).equals(readFileSync(join(B(), "areas", f))), f).toBe(true);
}

function rewriteState(fold: string, change: (stored: Record<string, unknown>) => void): void {
  const file = stateFile(stateDir(), fold);
  const stored = deserialize(readFileSync(file)) as Record<string, unknown>;
  change(stored);
  writeFileSync(file, serialize(stored));
}

describe("incremental regeneration", () => {
  it("folds only the new entries and writes the bytes of a full fold", async () => {
    const first = await run(A(), true);
    await run(B(), false);
    expect(first.report.ledgerEntries).toBe(1500);
    expectSameAreas();

    // A reader that opened a continued output before the run (the API streams the file it checked
    // against its manifest) keeps reading that version: the new one is a new file put in its place.
    const exports = ["government/ledger/export.json", "government/ledger/export.csv", "economy/mic-history.csv"];
    const before = exports.map((f) => readFileSync(join(A(), "areas", f)));
    const readers = exports.map((f) => openSync(join(A(), "areas", f), "r"));
    const size = await appendEvents(dir, held.slice(0, 500));
    const next = await run(A(), true);
    await run(B(), false);
    expect(next.report.ledgerEntries).toBe(500);
    expect(next.log).toContain(`reading the ledger once: entries 1500–${size - 1} of ${size}`);
    readers.forEach((fd, i) => {
      expect(readFileSync(fd).equals(before[i]!), exports[i]).toBe(true);
      closeSync(fd);
      expect(readFileSync(join(A(), "areas", exports[i]!)).length).toBeGreaterThan(before[i]!.length);
    });
    expectSameAreas();
  });

  it("folds whole what its state cannot vouch for, with the same bytes", async () => {
    writeFileSync(stateFile(stateDir(), "facts"), "not a state");
    // A watermark whose edge gives its root, but not the ledger's first entry.
    const other = new Uint8Array(32).fill(7);
    rewriteState("government/ledger/export.json", (s) => {
      s.watermark = { size: 1, root: formatDigest(other), edge: [other] };
    });
    rewriteState("government/ledger/export.csv", (s) => {
      s.identity = "sha256:made-by-other-code";
    });
    // The published file is not the one the state describes.
    rewriteState("economy/mic-history.csv", (s) => {
      (s.fold as { digest: { hash: string } }).digest.hash = formatDigest(other);
    });

    const size = await appendEvents(dir, held.slice(500, 750));
    const again = await run(A(), true);
    await run(B(), false);
    expect(again.report.ledgerEntries).toBe(size);
    expect(again.log).toMatch(/facts\.state: unreadable/);
    expect(again.log).toMatch(/export\.json\.state: its watermark \(1 entries, .*\) is not a prefix of the ledger/);
    expect(again.log).toMatch(/export\.csv\.state: made by other code or inputs/);
    expect(again.log).toMatch(/mic-history\.csv: not the file its fold state describes/);
    expectSameAreas();

    // Every state was kept again at the ledger's size: a run with nothing new reads nothing.
    const idle = await run(A(), true);
    expect(idle.report.ledgerRead).toBe(false);
  });

  it("folds kept at different watermarks: the pass starts at the earliest, each fold after its own", async () => {
    // Only economy runs: the facts and the mint history move on, the audit trail's folds stay behind.
    const middle = await appendEvents(dir, held.slice(750, 875));
    const economy = await run(A(), true, { areas: ["economy"] });
    await run(B(), false, { areas: ["economy"] });
    expect(economy.log).toContain(`entries ${middle - 125}–${middle - 1}`);
    const size = await appendEvents(dir, held.slice(875));
    const all = await run(A(), true);
    await run(B(), false);
    expect(all.report.ledgerEntries).toBe(size - middle + 125);
    expectSameAreas();
  });

  it("a step whose code changed folds from the first entry", async () => {
    const changed = { ...micHistoryStep, version: micHistoryStep.version + 1 };
    const modules = new Map([...code.modules].map(([s, m]) => [s === micHistoryStep ? changed : s, m]));
    const out = await run(A(), true, {
      steps: steps.map((s) => (s === micHistoryStep ? changed : s)),
      code: { root: code.root, modules },
      areas: ["economy"],
    });
    expect(out.log).toMatch(/mic-history\.csv\.state: made by other code or inputs/);
    expect(out.report.ledgerEntries).toBe(await ledgerSize());
    expect(readFileSync(join(A(), "areas", "economy", "mic-history.csv"))).toEqual(
      readFileSync(join(B(), "areas", "economy", "mic-history.csv")),
    );
  });

  it("the audit trail's CSV made from the JSON export's items is the CSV its own sink writes", async () => {
    // With both exports stale the helper writes the CSV from the JSON items (every run above); with
    // the CSV alone stale, its sink is fed the entries.
    const csv = join(B(), "areas", "government", "ledger", "export.csv");
    const made = readFileSync(csv);
    rmSync(csv);
    const alone = await run(B(), false, { areas: ["government"] });
    expect(alone.log).toMatch(/streaming government\/ledger\/export\.csv$/m);
    expect(readFileSync(csv).equals(made)).toBe(true);
    expect(made.length).toBeGreaterThan(100_000);
  });

  // Last: it changes the ledger behind the store's back.
  it("a continued run over an entry changed behind the store's back fails, keeping no state and publishing nothing", async () => {
    await run(A(), true); // every fold kept at the ledger's size
    const size = await appendEvents(
      dir,
      held.slice(0, 3).map((e) => ({ ...e, ts: undefined })),
    );
    const raw = new DatabaseSync(join(dir, "ledger.sqlite"));
    raw.exec("DROP TRIGGER entries_no_update");
    raw.exec(`UPDATE entries SET payload = replace(payload, '}', ',"x":1}') WHERE seq = ${size - 2}`);
    raw.close();
    const states = readdirSync(stateDir()).map((f) => [f, readFileSync(join(stateDir(), f))] as const);
    const published = filesUnder(join(A(), "areas")).map((f) => [f, readFileSync(join(A(), "areas", f))] as const);
    const ledger = await openLedgerStore({ path: join(dir, "ledger.sqlite"), origin: LEDGER_ORIGIN });
    const lines: string[] = [];
    try {
      await expect(
        runPipeline({
          dataDir: A(),
          ledger,
          steps,
          code,
          log: (line) => lines.push(line),
          signingKey: () => loadSigningKey(DATASET_KEY, join(dir, "state"), {}),
          stateDir: stateDir(),
        }),
      ).rejects.toThrow(/the ledger pass read \d+ entries with root sha256:[0-9a-f]{64}, but the ledger reported/);
    } finally {
      await ledger.close();
    }
    expect(lines.join("\n")).toContain(`reading the ledger once: entries ${size - 3}–${size - 1} of ${size}`);
    for (const [f, bytes] of states) expect(readFileSync(join(stateDir(), f)).equals(bytes), f).toBe(true);
    expect(readdirSync(stateDir()).length).toBe(states.length);
    expect(filesUnder(join(A(), "areas"))).toEqual(published.map(([f]) => f));
    for (const [f, bytes] of published) expect(readFileSync(join(A(), "areas", f)).equals(bytes), f).toBe(true);
    expect(filesUnder(A()).filter((f) => /\.tmp|\.stage|\.whole/.test(f))).toEqual([]);
  });
});

async function ledgerSize(): Promise<number> {
  const ledger = await openLedgerStore({ path: join(dir, "ledger.sqlite"), origin: LEDGER_ORIGIN });
  try {
    return await ledger.size();
  } finally {
    await ledger.close();
  }
}
