/**
 * The pipeline writes the same bytes whichever backend holds the ledger: the real steps run once
 * over a small simulated ledger in SQLite and once over the same entries copied to PostgreSQL
 * (opened through DATABASE_URL), and the two data folders are compared file by file.
 */
import { cpSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { DATASET_KEY, loadSigningKey } from "../store/keys.ts";
import { copyLedger } from "../store/ledger-copy.ts";
import { LEDGER_ORIGIN, ledgerBackend, openLedgerStore } from "../store/open-ledger.ts";
import { makePulseHistory, writePulseHistory } from "../test/support/pipeline/areas/helpers.ts";
import { freshDatabase } from "../test/support/postgres.ts";
import { tempDir } from "../test/support/store/helpers.ts";
import { steps as realSteps } from "./areas/index.ts";
import { runPipeline } from "./runner.ts";
import { simulate } from "./seed/simulate.ts";

const REPO = new URL("..", import.meta.url).pathname;
const NOW = new Date("2025-12-20T00:00:00.000Z");

/** Every file under `dir` (relative path → bytes). */
function tree(dir: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, e.name);
      if (e.isDirectory()) walk(path);
      else files.set(relative(dir, path), readFileSync(path));
    }
  };
  walk(dir);
  return files;
}

describe("the pipeline over either backend", () => {
  it("writes byte-identical data/ from a SQLite ledger and from its copy in PostgreSQL", async () => {
    const { dir, cleanup } = tempDir("pipeline-backends-");
    try {
      const state = join(dir, "state");
      const sqlite = join(dir, "ledger.sqlite");
      const seeded = await openLedgerStore({ path: sqlite, origin: LEDGER_ORIGIN, durability: "normal" });
      await seeded.append([...simulate({ seed: "backends-test", size: 300, now: NOW })]);
      await seeded.close();

      const url = await freshDatabase("pipeline_backends");
      const [source, target] = [ledgerBackend({ path: sqlite }), ledgerBackend({ path: url })];
      await source.open(LEDGER_ORIGIN);
      await target.open(LEDGER_ORIGIN);
      await copyLedger(source, target).finally(() => Promise.all([source.close(), target.close()]));

      const outputs: Map<string, Buffer>[] = [];
      for (const env of [{ LEDGER_DB: sqlite }, { DATABASE_URL: url }]) {
        const dataDir = join(dir, `data-${outputs.length}`);
        cpSync(join(REPO, "data", "schemas"), join(dataDir, "schemas"), { recursive: true });
        cpSync(join(REPO, "data", "sources"), join(dataDir, "sources"), { recursive: true });
        const scores = Array.from({ length: 6 }, (_, i) => [0.95 + (i % 4) / 100, 0.9 + (i % 6) / 100] as const);
        writePulseHistory(
          dataDir,
          makePulseHistory(scores, "2025-12-10T06:00:00.000Z"),
          loadSigningKey(DATASET_KEY, state, {}),
        );
        const ledger = await openLedgerStore({ origin: LEDGER_ORIGIN, env });
        try {
          expect(ledger.store.kind).toBe(outputs.length === 0 ? "sqlite" : "postgresql");
          const log: string[] = [];
          const report = await runPipeline({
            dataDir,
            ledger,
            steps: realSteps,
            log: (l) => log.push(l),
            signingKey: () => loadSigningKey(DATASET_KEY, state, {}),
          });
          expect(
            report.steps.filter((s) => s.status === "failed"),
            log.join("\n"),
          ).toEqual([]);
          expect(report.ledgerEntries).toBeGreaterThan(100);
        } finally {
          await ledger.close();
        }
        outputs.push(tree(dataDir));
      }
      const [fromSqlite, fromPostgres] = outputs as [Map<string, Buffer>, Map<string, Buffer>];
      expect([...fromPostgres.keys()].sort()).toEqual([...fromSqlite.keys()].sort());
      expect([...fromSqlite.keys()].filter((f) => f.startsWith("areas/")).length).toBeGreaterThan(10);
      const differing = [...fromSqlite]
        .filter(([file, bytes]) => !bytes.equals(fromPostgres.get(file)!))
        .map(([file]) => file);
      expect(differing).toEqual([]);
    } finally {
      cleanup();
    }
  });
});
