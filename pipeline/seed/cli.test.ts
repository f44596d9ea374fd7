import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openLedger } from "../../store/open-ledger.ts";

const CLI = join(import.meta.dirname, "cli.ts");
const dir = mkdtempSync(join(tmpdir(), "seed-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
// A short history keeps the child fast: C-1 .. C-11.
const ARGS = ["--now", "2025-07-14T18:00:00.000Z", "--size", "800"];

function seed(args: string[], env: Record<string, string> = {}) {
  const { SOURCE_DATE_EPOCH: _ignored, ...parent } = process.env;
  return spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", env: { ...parent, STATE_DIR: join(dir, "state"), ...env } });
}

function opened(path: string) {
  return openLedger({ path, env: { STATE_DIR: join(dir, "state") } }).ledger;
}

describe("npm run seed", () => {
  const db = join(dir, "a", "ledger.sqlite");

  it("seeds an empty ledger through the store, signs a checkpoint, and the result verifies", () => {
    const run = seed([...ARGS, "--db", db]);
    expect(run.stderr).toMatch(/generated a development key/);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/wrote \d+ SAMPLE events to .*ledger\.sqlite \(new file\)/);
    expect(run.stdout).toMatch(/sentinel\.heartbeat\s+\d+/);
    const ledger = opened(db);
    try {
      const report = ledger.verify();
      expect(report.problems).toEqual([]);
      expect(report.ok).toBe(true);
      expect(report.checkpointsChecked).toBe(1);
      const written = Number(/wrote (\d+) SAMPLE/.exec(run.stdout)![1]);
      expect(ledger.size()).toBe(written);
      expect(ledger.entries(0, 1).next().value?.type).toBe("sample.generated");
    } finally {
      ledger.close();
    }
  });

  it("refuses to seed a non-empty ledger without --force, and explains why --force cannot go back in time", () => {
    const again = seed([...ARGS, "--db", db]);
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/refusing to seed .*ledger\.sqlite: the ledger already has \d+ entries.*--force/);
    const forced = seed([...ARGS, "--db", db, "--force"]);
    expect(forced.status).toBe(1);
    expect(forced.stderr).toMatch(/cannot append the sample .* append-only ledger never takes an earlier timestamp/);
    const ledger = opened(db);
    try {
      expect(ledger.verify().ok).toBe(true); // nothing was written by the refused runs
    } finally {
      ledger.close();
    }
  });

  it("is deterministic: the same seed, size and now (here from SOURCE_DATE_EPOCH) give the same ledger", () => {
    const epoch = String(Date.parse("2025-07-14T18:00:00.000Z") / 1000);
    const b = join(dir, "b.sqlite");
    expect(seed(["--size", "800", "--db", b], { SOURCE_DATE_EPOCH: epoch }).status).toBe(0);
    const [la, lb] = [opened(db), opened(b)];
    try {
      expect(lb.size()).toBe(la.size());
      expect(Buffer.from(lb.rootHash())).toEqual(Buffer.from(la.rootHash()));
      const c = join(dir, "c.sqlite");
      expect(seed([...ARGS, "--seed", "other", "--db", c]).status).toBe(0);
      const lc = opened(c);
      expect(Buffer.from(lc.rootHash())).not.toEqual(Buffer.from(la.rootHash()));
      lc.close();
    } finally {
      la.close();
      lb.close();
    }
  });

  it("rejects bad options with a usage message", () => {
    expect(seed(["--size", "ten", "--db", join(dir, "x.sqlite")]).stderr).toMatch(/--size must be a positive integer/);
    expect(seed(["--now", "yesterday", "--db", join(dir, "x.sqlite")]).stderr).toMatch(/--now must be an ISO 8601 instant/);
    const early = seed(["--now", "2025-07-01T00:00:00.000Z", "--db", join(dir, "x.sqlite")]);
    expect(early.status).toBe(2);
    expect(early.stderr).toMatch(/before C-1/);
  });
});
