import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { foldAsync } from "../core/ledger/projection.ts";
import { consensusProjection } from "../core/consensus/state.ts";
import { testOffice } from "../test/support/core/consensus/helpers.ts";
import type { NewEvent } from "../core/ledger/store.ts";
import { simulate } from "../pipeline/seed/simulate.ts";
import { main } from "./consensus-cli.ts";
import { exportLedger } from "../store/ledger-jsonl.ts";
import { openLedger } from "../store/open-ledger.ts";
import { ProjectionFollower } from "../store/ledger/projection-follower.ts";
import { tempDir } from "../test/support/store/helpers.ts";

const CLI = join(import.meta.dirname, "consensus-cli.ts");
const { dir, cleanup } = tempDir("consensus-cli-");
afterAll(cleanup);
const env: NodeJS.ProcessEnv = {
  ...process.env,
  STATE_DIR: join(dir, "state"),
  LEDGER_DB: join(dir, "state", "ledger.sqlite"),
};
delete env.LEDGER_SIGNING_KEY;
delete env.LEDGER_SIGNING_KEY_FILE;

/** Runs the command in this process, capturing its lines. */
async function run(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(
    argv,
    env,
    (l) => out.push(l),
    (l) => err.push(l),
  );
  return { code, out: out.join("\n"), err: err.join("\n") };
}

let sealed: string[] = [];
beforeAll(async () => {
  // Three weeks of sample ledger, appended in batches as the seeder does, and a checkpoint.
  const { ledger } = await openLedger({ env, durability: "normal" });
  try {
    let batch: NewEvent[] = [];
    for (const e of simulate({ seed: "consensus-cli", size: 800, now: new Date("2025-07-25T12:00:00.000Z") })) {
      batch.push(e);
      if (batch.length === 500) (await ledger.append(batch), (batch = []));
    }
    await ledger.append(batch);
    await ledger.checkpoint();
    sealed = [...(await ledger.state(consensusProjection)).proofs.values()]
      .filter((p) => p.seal)
      .map((p) => p.inputs.delib_id);
  } finally {
    await ledger.close();
  }
});

describe("npm run consensus -- register-office", () => {
  const iris = testOffice("ORACLE", "critical", "DIPLOMACY");

  it("appends the office to the ledger at LEDGER_DB and prints one JSON line (a real process)", async () => {
    const r = spawnSync(
      process.execPath,
      [
        CLI,
        "register-office",
        "--id",
        "ORACLE",
        "--priority",
        "critical",
        "--cathedral",
        "DIPLOMACY",
        "--public-key",
        iris.public_key,
      ],
      {
        encoding: "utf8",
        env,
      },
    );
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      registered: "ORACLE",
      priority: "critical",
      cathedral: "DIPLOMACY",
      public_key: iris.public_key,
    });
    const { ledger } = await openLedger({ env });
    try {
      expect((await ledger.state(consensusProjection)).offices.get("ORACLE")).toMatchObject({
        priority: "critical",
        public_key: iris.public_key,
      });
    } finally {
      await ledger.close();
    }
  });

  it("refuses the same id, a key another office holds, a key that is no curve point — and writes nothing", async () => {
    const size = async () => {
      const { ledger } = await openLedger({ env });
      try {
        return await ledger.size();
      } finally {
        await ledger.close();
      }
    };
    const before = await size();
    const other = testOffice("ORACLE-2", "high");
    let r = await run(
      "register-office",
      "--id",
      "ORACLE",
      "--priority",
      "high",
      "--cathedral",
      "DIPLOMACY",
      "--public-key",
      other.public_key,
    );
    expect([r.code, r.err]).toEqual([
      1,
      "consensus: register-office refused (office-exists): ORACLE is already registered; an office is registered once",
    ]);
    r = await run(
      "register-office",
      "--id",
      "ORACLE-2",
      "--priority",
      "high",
      "--cathedral",
      "DIPLOMACY",
      "--public-key",
      iris.public_key,
    );
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/\(key-in-use\): the public key is already registered to ORACLE/);
    r = await run(
      "register-office",
      "--id",
      "ORACLE-2",
      "--priority",
      "high",
      "--cathedral",
      "DIPLOMACY",
      "--public-key",
      "02".padEnd(64, "0"),
    );
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/\(invalid-key\)/);
    expect(await size()).toBe(before);
  });

  it("explains bad input with the usage and exit 2", async () => {
    const ok = [
      "--id",
      "X-1",
      "--priority",
      "high",
      "--cathedral",
      "DIPLOMACY",
      "--public-key",
      testOffice("X-1", "high").public_key,
    ];
    const cases: [string[], RegExp][] = [
      [ok.slice(0, 6), /register-office needs --public-key/],
      [
        [...ok.slice(0, 2), "--priority", "low", ...ok.slice(4)],
        /--priority: Invalid option: expected one of "critical"\|"high"/,
      ],
      [[...ok.slice(0, 6), "--public-key", "ABCD"], /--public-key: /],
      [[...ok.slice(0, 4), "--cathedral", "NOWHERE", ...ok.slice(6)], /--cathedral: /],
      [[...ok, "--gi", "0.99"], /Unknown option '--gi'/],
    ];
    for (const [args, message] of cases) {
      const r = await run("register-office", ...args);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.err).toMatch(message);
      expect(r.err).toMatch(/usage: npm run consensus --/);
    }
    expect((await run("nonsense")).code).toBe(2);
  });
});

describe("npm run consensus -- export-proof / verify-proof", () => {
  it("exports every sealed proof of the sample ledger, and every one verifies against the ledger and its export", async () => {
    expect(sealed.length).toBeGreaterThan(5);
    const out = join(dir, "proofs");
    expect(await run("export-proof", "--all", out)).toMatchObject({
      code: 0,
      out: `exported ${sealed.length} sealed proofs to ${out}`,
    });
    expect(readdirSync(out).sort()).toEqual(sealed.map((id) => `${id}.json`).sort());
    const { ledger, key } = await openLedger({ env });
    try {
      await exportLedger(ledger, join(dir, "export"));
    } finally {
      await ledger.close();
    }
    for (const id of sealed) {
      const file = join(out, `${id}.json`);
      const local = await run("verify-proof", file, "--key", key.publicKeyHex);
      expect(local.code, local.err).toBe(0);
      expect(local.out).toMatch(
        new RegExp(
          `^ok: .*proof ${id} of session CS-\\d+-\\d+ verified \\(canonical-form, .*, inclusion\\); checkpoint signed by the given key: integrity-platform\\.example/ledger ${key.publicKeyHex}$`,
        ),
      );
      const offline = await run(
        "verify-proof",
        file,
        "--ledger-export",
        join(dir, "export"),
        "--key",
        key.publicKeyHex,
      );
      expect(offline.code, offline.err).toBe(0);
    }
    // Without --key: this installation's own development key is known besides the
    // published data/keys/ledger.vkey, and the output says which key verified.
    const own = `checkpoint signed by this installation's key (${join(dir, "state", "keys", "ledger.ed25519")}): integrity-platform.example/ledger ${key.publicKeyHex}`;
    const file = join(out, `${sealed[0]}.json`);
    for (const extra of [[], ["--ledger-export", join(dir, "export")]]) {
      const r = await run("verify-proof", file, ...extra);
      expect(r.code, r.err).toBe(0);
      expect(r.out).toContain(own);
    }
  });

  it("writes one proof to stdout or --out, and fails naming the first check on a changed file", async () => {
    const file = join(dir, "one.json");
    expect((await run("export-proof", sealed[0]!, "--out", file)).code).toBe(0);
    const text = readFileSync(file, "utf8");
    const bad = join(dir, "bad.json");
    writeFileSync(
      bad,
      text.replace(/"gi_delta":(-?[0-9.]+)/, (_, x: string) => `"gi_delta":${Number(x) + 0.001}`),
    );
    const r = await run("verify-proof", bad);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^FAILED: .*bad\.json: merkle-root: the parts hash to sha256:[0-9a-f]{64}, the seal says/);
    // A checkpoint key that is not the ledger's.
    const wrong = await run(
      "verify-proof",
      file,
      "--key",
      "3b6a27bcceb6a42d62a3a8d02a6f0d73653215771de243a63ac048a18b59da29",
    );
    expect(wrong.code).toBe(1);
    expect(wrong.err).toMatch(/: checkpoint: /);
    expect(await run("export-proof", "DP-0-0")).toMatchObject({
      code: 1,
      err: "consensus: the ledger has no proof DP-0-0",
    });
    expect((await run("verify-proof", join(dir, "missing.json"))).code).toBe(2);
  });

  it("the registry caught up entry by entry equals the one folded from the whole ledger", async () => {
    const { ledger } = await openLedger({ env });
    try {
      const follower = new ProjectionFollower(ledger);
      for (let n = 0; n < (await ledger.size()); n += 97) {
        // Catch up to a prefix as a server would between requests…
        await follower.at(consensusProjection, n);
      }
      const live = await follower.at(consensusProjection, await ledger.size());
      // …and fold the whole ledger from nothing: the same state.
      expect(live).toEqual(await foldAsync(consensusProjection, ledger.entries()));
      expect(live.ignored).toEqual([]);
    } finally {
      await ledger.close();
    }
  });
});
