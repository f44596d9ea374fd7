/**
 * `npm run ledger -- copy --to postgres://…` against a real PostgreSQL (test/support/postgres.ts):
 * a SQLite ledger of a few thousand entries and checkpoints is copied and proven, the export from
 * PostgreSQL is byte-identical to the export from SQLite, a copy onto a true prefix resumes, and a
 * target of another chain, another origin or more entries is refused and left as it was; with
 * `--ledger access` the access ledger goes into the database's `access` schema.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { generateKeyPair } from "../core/signature.ts";
import { EXPORT_CHECKPOINT, EXPORT_LINES } from "../store/ledger-jsonl.ts";
import { LEDGER_ORIGIN, ledgerBackend, openLedgerStore } from "../store/open-ledger.ts";
import { ACCESS_ORIGIN, openAccessLedgerStore } from "../store/access-ledger.ts";
import { freshDatabase } from "../test/support/postgres.ts";
import { sampleEvent, steppingClock, tempDir } from "../test/support/store/helpers.ts";

const cli = join(import.meta.dirname, "ledger-cli.ts");
const seed = generateKeyPair("ed25519");
let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = tempDir("ledger-copy-"));
});
afterEach(() => cleanup());

function run(args: string[]) {
  const env = {
    ...process.env,
    STATE_DIR: join(dir, "state"),
    LEDGER_SIGNING_KEY: seed.secretKey,
    DATABASE_URL: "",
    LEDGER_DB: "",
  };
  return spawnSync(process.execPath, [cli, ...args], { encoding: "utf8", env });
}

/** Appends `count` sample events after what `location` holds, in appends of `per` (each signs a checkpoint). */
async function fill(
  location: string,
  count: number,
  options: { per?: number; origin?: string; clockStart?: number; first?: number } = {},
): Promise<void> {
  const ledger = await openLedgerStore({
    path: location,
    origin: options.origin ?? LEDGER_ORIGIN,
    signer: { name: options.origin ?? LEDGER_ORIGIN, secretKeyHex: seed.secretKey },
    now: steppingClock(options.clockStart),
    durability: "normal",
  });
  try {
    const per = options.per ?? 600;
    const first = options.first ?? 0;
    for (let i = 0; i < count; i += per)
      await ledger.append(Array.from({ length: Math.min(per, count - i) }, (_, j) => sampleEvent(first + i + j)));
  } finally {
    await ledger.close();
  }
}

/** Everything a backend stores of its checkpoints, as plain values. */
async function storedCheckpoints(location: string) {
  const backend = ledgerBackend({ path: location });
  await backend.open(LEDGER_ORIGIN);
  try {
    return await backend.checkpoints();
  } finally {
    await backend.close();
  }
}

async function sizeOf(location: string): Promise<number> {
  const backend = ledgerBackend({ path: location });
  await backend.open(LEDGER_ORIGIN);
  try {
    return ((await backend.last())?.seq ?? -1) + 1;
  } finally {
    await backend.close();
  }
}

describe("npm run ledger -- copy", () => {
  it("--ledger access copies the access ledger into the database's access schema, proven, beside the main ledger", async () => {
    const sqlite = join(dir, "access.sqlite");
    const access = await openAccessLedgerStore(sqlite, {
      key: { name: ACCESS_ORIGIN, secretKeyHex: seed.secretKey, publicKeyHex: seed.publicKey, source: "env" },
      durability: "normal",
    });
    try {
      await access.append([
        {
          type: "access",
          payload: {
            key_id: "government-1",
            key_status: "active",
            tier: "government",
            area: "government",
            file: "compliance-report.json",
            outcome: "served",
            status: 200,
          },
        },
      ]);
      await access.append([
        {
          type: "access",
          payload: {
            key_id: "government-1",
            key_status: "active",
            tier: "government",
            area: "government",
            file: "policy-impact.json",
            outcome: "served",
            status: 200,
          },
        },
      ]);
    } finally {
      await access.close();
    }
    const url = await freshDatabase("copy_access");
    await fill(url, 10); // the main ledger, already moved: the access ledger's copy must not touch it

    const env = {
      ...process.env,
      STATE_DIR: join(dir, "state"),
      ACCESS_SIGNING_KEY: seed.secretKey,
      DATABASE_URL: "",
      ACCESS_LEDGER_DB: sqlite,
    };
    const copy = spawnSync(process.execPath, [cli, "copy", "--ledger", "access", "--to", url], {
      encoding: "utf8",
      env,
    });
    expect(copy.status, copy.stdout + copy.stderr).toBe(0);
    expect(copy.stdout).toContain("copied 2 entries and 2 checkpoints");
    expect(copy.stdout).toContain("(schema access)");
    expect(copy.stdout).toContain("ok: the copy is proven");

    const copied = await openAccessLedgerStore(url);
    try {
      expect((await Array.fromAsync(copied.entries())).map((e) => e.payload.file)).toEqual([
        "compliance-report.json",
        "policy-impact.json",
      ]);
    } finally {
      await copied.close();
    }
    expect(await sizeOf(url)).toBe(10);
  });

  it("copies a SQLite ledger into an empty database, proves it, and both export the same bytes", async () => {
    const sqlite = join(dir, "ledger.sqlite");
    await fill(sqlite, 3000);
    const url = await freshDatabase("copy");

    const copy = run(["copy", "--db", sqlite, "--to", url]);
    expect(copy.status, copy.stdout + copy.stderr).toBe(0);
    expect(copy.stdout).toContain("copied 3000 entries and 5 checkpoints");
    expect(copy.stdout).toContain("same size: source 3000, target 3000");
    expect(copy.stdout).toMatch(/same root hash: source (sha256:[0-9a-f]{64}), target \1/);
    expect(copy.stdout).toContain("same latest checkpoint note, byte for byte");
    expect(copy.stdout).toContain("same checkpoints: source 5, target 5");
    expect(copy.stdout).toContain("verify() on the target: clean (3000 entries, 5 checkpoints)");
    expect(copy.stdout).toContain("ok: the copy is proven");

    // Every checkpoint as it was recorded: note and time, none signed again.
    const copied = await storedCheckpoints(url);
    expect(copied).toEqual(await storedCheckpoints(sqlite));
    expect(copied.map((c) => c.size)).toEqual([600, 1200, 1800, 2400, 3000]);

    const [fromSqlite, fromPostgres] = [join(dir, "export-sqlite"), join(dir, "export-postgres")];
    for (const [db, out] of [
      [sqlite, fromSqlite],
      [url, fromPostgres],
    ] as const) {
      const exported = run(["export", out, "--db", db]);
      expect(exported.status, exported.stderr).toBe(0);
    }
    for (const file of [EXPORT_LINES, EXPORT_CHECKPOINT]) {
      expect(readFileSync(join(fromPostgres, file)).equals(readFileSync(join(fromSqlite, file))), file).toBe(true);
    }
    expect(readFileSync(join(fromPostgres, EXPORT_LINES), "utf8").split("\n").filter(Boolean)).toHaveLength(3000);
  });

  it("resumes onto a target that holds a prefix of the source, and copies nothing the second time", async () => {
    const sqlite = join(dir, "ledger.sqlite");
    await fill(sqlite, 1000, { per: 500 });
    const url = await freshDatabase("copy_prefix");
    expect(run(["copy", "--db", sqlite, "--to", url]).status).toBe(0);
    await fill(sqlite, 700, { per: 350, first: 1000, clockStart: Date.parse("2026-02-01T00:00:00.000Z") });

    const resumed = run(["copy", "--db", sqlite, "--to", url]);
    expect(resumed.status, resumed.stdout + resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain("copied 700 entries and 4 checkpoints");
    expect(resumed.stdout).toContain("(the target already held the first 1000)");
    expect(resumed.stdout).toContain("same size: source 1700, target 1700");
    expect(resumed.stdout).toContain("ok: the copy is proven");

    const again = run(["copy", "--db", sqlite, "--to", url]);
    expect(again.status, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toContain("copied 0 entries");
    expect(await storedCheckpoints(url)).toEqual(await storedCheckpoints(sqlite));
  });

  it("refuses a target of another chain, of another origin, or longer than the source, and leaves it as it was", async () => {
    const sqlite = join(dir, "ledger.sqlite");
    await fill(sqlite, 300);

    // The same events at other times: another chain under the same origin.
    const diverging = await freshDatabase("copy_diverging");
    await fill(diverging, 40, { clockStart: Date.parse("2025-06-01T00:00:00.000Z") });
    const refused = run(["copy", "--db", sqlite, "--to", diverging]);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain("the target is not a prefix of the source: its entry 39 is");
    expect(refused.stdout).not.toContain("ok:");
    expect(await sizeOf(diverging)).toBe(40);

    const otherOrigin = await freshDatabase("copy_origin");
    await fill(otherOrigin, 10, { origin: "other.example/ledger" });
    const wrongOrigin = run(["copy", "--db", sqlite, "--to", otherOrigin]);
    expect(wrongOrigin.status).not.toBe(0);
    expect(wrongOrigin.stderr).toMatch(/origin/);

    const longer = await freshDatabase("copy_longer");
    expect(run(["copy", "--db", sqlite, "--to", longer]).status).toBe(0);
    const shorter = join(dir, "shorter.sqlite");
    await fill(shorter, 100);
    const tooLong = run(["copy", "--db", shorter, "--to", longer]);
    expect(tooLong.status).not.toBe(0);
    expect(tooLong.stderr).toContain("it holds 300 entries, the source 100");
    expect(await sizeOf(longer)).toBe(300);

    const notPostgres = run(["copy", "--db", sqlite, "--to", join(dir, "other.sqlite")]);
    expect(notPostgres.status).toBe(2);
    expect(notPostgres.stderr).toContain("copy needs --to postgres://");
  });
});

describe("npm run ledger on PostgreSQL", () => {
  it("never prints the database's password: info, verify and a missing ledger name the URL without it", async () => {
    const url = new URL(await freshDatabase("shown"));
    url.username ||= "postgres";
    url.password = "secret-pw"; // the throwaway cluster trusts loopback: the password is sent, never checked
    await fill(url.href, 3);
    for (const args of [
      ["info", "--db", url.href],
      ["verify", "--db", url.href],
    ]) {
      const r = run(args);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout + r.stderr).not.toContain("secret-pw");
      expect(r.stdout).toContain(`${url.hostname}:${url.port}`);
    }
    const missing = new URL(url.href);
    missing.pathname = "/no_such_database_here";
    const r = run(["info", "--db", missing.href]);
    expect(r.status).not.toBe(0);
    expect(r.stdout + r.stderr).not.toContain("secret-pw");
  });
});
