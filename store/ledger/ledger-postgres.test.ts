/**
 * The N-writer tests of the shared ledger (test/support/store/ledger-writers.ts) on PostgreSQL: two
 * pools on one database; and a store restored from an older dump under a running instance.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Ledger } from "./ledger.ts";
import { PostgresBackend } from "../drivers/postgres/backend.ts";
import { ledgerWriterTests } from "../../test/support/store/ledger-writers.ts";
import { openedSessions, openOnce, sessionOpened, steppingClock } from "../../test/support/store/helpers.ts";
import { freshDatabase, postgresBin } from "../../test/support/postgres.ts";

ledgerWriterTests({
  name: "PostgreSQL",
  place: () => freshDatabase("writers"),
  backend: (url) => new PostgresBackend(url),
});

describe("a store that goes back (a restore, a failover)", () => {
  const ORIGIN = "rewind.test/ledger";
  /** A ledger of one entry dumped, then a write acknowledged and lost when the dump is restored. */
  async function restoredUnder(label: string): Promise<{ url: string; b: Ledger }> {
    const url = await freshDatabase(label);
    const b = await Ledger.open(new PostgresBackend(url), { origin: ORIGIN, now: steppingClock() });
    await b.append([sessionOpened("S-0")]);
    const dump = join(mkdtempSync(join(tmpdir(), "rewind-")), "ledger.dump");
    execFileSync(join(postgresBin(), "pg_dump"), ["-Fc", "-f", dump, url]);
    await b.write(openOnce("LOST"));
    expect((await b.state(openedSessions)).has("LOST")).toBe(true);
    execFileSync(join(postgresBin(), "pg_restore"), ["--clean", "--if-exists", "-d", url, dump]);
    return { url, b };
  }
  /** Another instance opens session `id` (the first: in the lost entry's place). */
  async function writeElsewhere(url: string, id = "NEW", at = "2026-02-01T00:00:00.000Z"): Promise<void> {
    const a = await Ledger.open(new PostgresBackend(url), { origin: ORIGIN, now: steppingClock(Date.parse(at)) });
    await a.write(openOnce(id));
    await a.close();
  }

  it("a read notices a tail behind the one it knew, and forgets what it folded from the lost entries", async () => {
    const { url, b } = await restoredUnder("rewind");
    try {
      expect((await b.state(openedSessions)).has("LOST")).toBe(false);
      await writeElsewhere(url);
      const seen = await b.write((tail) => ({ events: [], result: [...tail.state(openedSessions).keys()].sort() }));
      expect(seen.result).toEqual(["NEW", "S-0"]);
      expect([...(await b.state(openedSessions)).keys()].sort()).toEqual(["NEW", "S-0"]);
      expect((await b.verify()).ok).toBe(true);
    } finally {
      await b.close();
    }
  });

  it("a write notices a store that went back and grew past the tail it knew (the root of its first entries differs)", async () => {
    const { url, b } = await restoredUnder("regrown");
    try {
      await writeElsewhere(url);
      await writeElsewhere(url, "NEWER", "2026-03-01T00:00:00.000Z");
      const seen = await b.write((tail) => ({ events: [], result: [...tail.state(openedSessions).keys()].sort() }));
      expect(seen.result).toEqual(["NEW", "NEWER", "S-0"]);
    } finally {
      await b.close();
    }
  });

  it("a read-only instance folds again from the start when the store went back and grew past what it had folded", async () => {
    const { url, b } = await restoredUnder("regrown-read");
    try {
      await writeElsewhere(url);
      await writeElsewhere(url, "NEWER", "2026-03-01T00:00:00.000Z");
      // The tail (3 entries) is past the 2 b knew: only the chain of the entries read tells.
      expect([...(await b.state(openedSessions)).keys()].sort()).toEqual(["NEW", "NEWER", "S-0"]);
    } finally {
      await b.close();
    }
  });

  it("a read notices a tail of the same size with another last entry", async () => {
    const { url, b } = await restoredUnder("beside");
    try {
      await writeElsewhere(url);
      expect([...(await b.state(openedSessions)).keys()].sort()).toEqual(["NEW", "S-0"]);
    } finally {
      await b.close();
    }
  });
});
