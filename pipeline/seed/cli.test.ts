import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openLedger } from "../../store/open-ledger.ts";

const CLI = join(import.meta.dirname, "cli.ts");
const dir = mkdtempSync(join(tmpdir(), "seed-cli-"));
afterAll(async () => rmSync(dir, { recursive: true, force: true }));
// A short history keeps the child fast: C-1 .. C-11.
const ARGS = ["--now", "2025-07-14T18:00:00.000Z", "--size", "800"];

function seed(args: string[], env: Record<string, string> = {}) {
  const { SOURCE_DATE_EPOCH: _ignored, ...parent } = process.env;
  return spawnSync(process.execPath, [CLI, ...args], {
    encoding: "utf8",
    env: { ...parent, STATE_DIR: join(dir, "state"), ...env },
  });
}

async function opened(path: string) {
  return (await openLedger({ path, env: { STATE_DIR: join(dir, "state") } })).ledger;
}

describe("npm run seed", () => {
  const db = join(dir, "a", "ledger.sqlite");

  it("seeds an empty ledger through the store, signs a checkpoint, and the result verifies", async () => {
    const run = seed([...ARGS, "--db", db]);
    expect(run.stderr).toMatch(/generated a development key/);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/wrote \d+ SAMPLE events to .*ledger\.sqlite \(new file\)/);
    expect(run.stdout).toMatch(/sentinel\.heartbeat\s+\d+/);
    const ledger = await opened(db);
    try {
      const report = await ledger.verify();
      expect(report.problems).toEqual([]);
      expect(report.ok).toBe(true);
      expect(report.checkpointsChecked).toBe(1);
      const written = Number(/wrote (\d+) SAMPLE/.exec(run.stdout)![1]);
      expect(await ledger.size()).toBe(written);
      expect((await (await ledger).entries(0, 1).next()).value?.type).toBe("sample.generated");
    } finally {
      await ledger.close();
    }
  });

  it("refuses to seed a non-empty ledger without --force, and explains why --force cannot go back in time", async () => {
    const again = seed([...ARGS, "--db", db]);
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/refusing to seed .*ledger\.sqlite: the ledger already has \d+ entries.*--force/);
    const forced = seed([...ARGS, "--db", db, "--force"]);
    expect(forced.status).toBe(1);
    expect(forced.stderr).toMatch(/cannot append the sample .* append-only ledger never takes an earlier timestamp/);
    const ledger = await opened(db);
    try {
      expect((await ledger.verify()).ok).toBe(true); // nothing was written by the refused runs
    } finally {
      await ledger.close();
    }
  });

  it("is deterministic: the same seed, size and now (here from SOURCE_DATE_EPOCH) give the same ledger", async () => {
    const epoch = String(Date.parse("2025-07-14T18:00:00.000Z") / 1000);
    const b = join(dir, "b.sqlite");
    expect(seed(["--size", "800", "--db", b], { SOURCE_DATE_EPOCH: epoch }).status).toBe(0);
    const [la, lb] = [await opened(db), await opened(b)];
    try {
      expect(await lb.size()).toBe(await la.size());
      expect(Buffer.from(await lb.rootHash())).toEqual(Buffer.from(await la.rootHash()));
      const c = join(dir, "c.sqlite");
      expect(seed([...ARGS, "--seed", "other", "--db", c]).status).toBe(0);
      const lc = await opened(c);
      expect(Buffer.from(await lc.rootHash())).not.toEqual(Buffer.from(await la.rootHash()));
      await lc.close();
    } finally {
      await la.close();
      await lb.close();
    }
  });

  it("rejects bad options with a usage message", async () => {
    expect(seed(["--size", "ten", "--db", join(dir, "x.sqlite")]).stderr).toMatch(/--size must be a positive integer/);
    expect(seed(["--now", "yesterday", "--db", join(dir, "x.sqlite")]).stderr).toMatch(
      /--now must be an ISO 8601 instant/,
    );
    const early = seed(["--now", "2025-07-01T00:00:00.000Z", "--db", join(dir, "x.sqlite")]);
    expect(early.status).toBe(2);
    expect(early.stderr).toMatch(/before C-1/);
  });
});
