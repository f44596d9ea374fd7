import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { verifierKey } from "../core/checkpoint.ts";
import { digestOf } from "../core/digest.ts";
import { generateKeyPair } from "../core/signature.ts";
import { EXPORT_LINES } from "../store/ledger-jsonl.ts";
import { LEDGER_KEY, loadSigningKey } from "../store/keys.ts";
import { openLedgerStore } from "../store/open-ledger.ts";
import { sampleEvent, sessionOpened, steppingClock, tempDir } from "../test/support/store/helpers.ts";

let dir: string;
let cleanup: () => void;

beforeEach(async () => {
  ({ dir, cleanup } = tempDir());
});
afterEach(async () => cleanup());

function editLine(out: string, seq: number, edit: (line: string) => string): void {
  const path = join(out, EXPORT_LINES);
  const lines = readFileSync(path, "utf8").split("\n");
  lines[seq] = edit(lines[seq]!);
  writeFileSync(path, lines.join("\n"));
}

describe("npm run ledger", () => {
  const cli = join(import.meta.dirname, "ledger-cli.ts");
  const run = (args: string[], env: Record<string, string> = {}) =>
    spawnSync(process.execPath, [cli, ...args], {
      encoding: "utf8",
      env: { ...process.env, STATE_DIR: join(dir, "state"), ...env },
    });

  it("checkpoints, verifies, exports and verifies the export with the printed key", async () => {
    const db = join(dir, "cli.sqlite");
    const seed = generateKeyPair("ed25519");
    const env = { LEDGER_SIGNING_KEY: seed.secretKey };
    // Fill through the library with the same origin the CLI uses.
    const ledger = await openLedgerStore({
      path: db,
      origin: "integrity-platform.example/ledger",
      now: steppingClock(),
      durability: "normal",
    });
    await ledger.append(Array.from({ length: 30 }, (_, i) => sampleEvent(i)));
    await ledger.close();

    const checkpoint = run(["checkpoint", "--db", db], env);
    expect(checkpoint.status, checkpoint.stderr).toBe(0);
    expect(checkpoint.stdout).toMatch(/^integrity-platform\.example\/ledger\n30\n/);

    const verified = run(["verify", "--db", db], env);
    expect(verified.status, verified.stdout + verified.stderr).toBe(0);
    expect(verified.stdout).toMatch(/ok: .* 30 entries/);

    const out = join(dir, "published");
    expect(run(["export", out, "--db", db], env).status).toBe(0);
    expect(run(["verify-export", out, "--key", seed.publicKey]).status).toBe(0);
    const vkey = verifierKey("integrity-platform.example/ledger", seed.publicKey);
    expect(run(["verify-export", out, "--key", vkey]).status).toBe(0);
    // Without --key: the published keys and this installation's own, and the output names the one that verified.
    const own = run(["verify-export", out], env);
    expect(own.status, own.stdout + own.stderr).toBe(0);
    expect(own.stdout).toContain(
      `checkpoint signed by this installation's key (LEDGER_SIGNING_KEY): integrity-platform.example/ledger ${seed.publicKey}`,
    );
    const stranger = run(["verify-export", out], { LEDGER_SIGNING_KEY: generateKeyPair("ed25519").secretKey });
    expect(stranger.status).toBe(1);

    editLine(out, 8, (l) => l.replace("0.97", "0.96"));
    const broken = run(["verify-export", out, "--key", seed.publicKey]);
    expect(broken.status).toBe(1);
    expect(broken.stdout).toMatch(/seq 8: hash mismatch/);

    const proof = run(["inclusion", "5", "--db", db], env);
    expect(proof.status).toBe(0);
    expect(proof.stdout.trim().split("\n")).toHaveLength(5); // ceil(log2 30)
  });

  it("answers bad arguments with a clear message and exit 2", async () => {
    const noLedger = run(["verify", "--db", join(dir, "none.sqlite")]);
    expect(noLedger.status).toBe(2);
    expect(noLedger.stderr).toMatch(/no ledger at/);
    const unknown = run(["frobnicate"]);
    expect(unknown.status).toBe(2);
    const badKey = run(["verify-export", dir, "--key", "nope"]);
    expect(badKey.status).toBe(2);
    const badSeq = run(["inclusion", "-1", "--db", join(dir, "none.sqlite")]);
    expect(badSeq.status).toBe(2);
  });

  it('appends one event of any registered type and prints {"seq": N, "hash": …}, on LEDGER_DB or STATE_DIR\'s ledger', async () => {
    const db = join(dir, "appended.sqlite");
    const mint = JSON.stringify(sampleEvent(1).payload);
    const first = run(["append", "mic_mint", mint], { LEDGER_DB: db });
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^\{"seq": 0, "hash": "sha256:[0-9a-f]{64}"\}\n$/);
    const second = run(["append", "consensus.opened", JSON.stringify(sessionOpened("S-1").payload)], { LEDGER_DB: db });
    expect(second.status, second.stderr).toBe(0);
    const printed = JSON.parse(second.stdout) as { seq: number; hash: string };
    expect(printed.seq).toBe(1);
    // The CLI's writes sign their checkpoints with the ledger key it generated in STATE_DIR.
    const ledger = await openLedgerStore({
      path: db,
      origin: "integrity-platform.example/ledger",
      verifiers: [ledgerKeyIn(join(dir, "state"))],
    });
    try {
      expect((await Array.fromAsync(ledger.entries())).map((e) => [e.seq, e.hash, e.type])).toEqual([
        [0, JSON.parse(first.stdout).hash, "mic_mint"],
        [1, printed.hash, "consensus.opened"],
      ]);
      expect((await ledger.verify()).ok).toBe(true);
    } finally {
      await ledger.close();
    }
    // Without LEDGER_DB: STATE_DIR/ledger.sqlite.
    const inState = run(["append", "sentinel.heartbeat", JSON.stringify(sampleEvent(0).payload)]);
    expect(inState.status, inState.stderr).toBe(0);
    expect(JSON.parse(inState.stdout)).toMatchObject({ seq: 0 });
    expect(existsSync(join(dir, "state", "ledger.sqlite"))).toBe(true);
  });

  it("appends the automatic revocation an event triggers in the same write: a drift above 0.1 ends a grant in force", async () => {
    const db = join(dir, "trigger.sqlite");
    const ledgerId = "0b7a3c5e-1f2d-4a6b-8c9d-0e1f2a3b4c5d";
    const now = Date.now();
    const ledger = await openLedgerStore({ path: db, origin: "integrity-platform.example/ledger" });
    try {
      await ledger.append([
        {
          type: "identity.registered",
          payload: {
            ledger_id: ledgerId,
            algorithm: "ed25519",
            public_key: generateKeyPair("ed25519").publicKey,
            role: "viewer",
            reputation: 0.9,
          },
        },
        {
          type: "avm.grant",
          payload: {
            ledger_id: ledgerId,
            scopes: ["api.read"],
            risk_level: "low",
            attestation_hash: `sha256:${"ab".repeat(32)}`,
            created_at: new Date(now - 60_000).toISOString(),
            expires_at: new Date(now + 86_400_000).toISOString(),
          },
        },
      ]);
    } finally {
      await ledger.close();
    }
    // Within the threshold nothing follows; above it the revocation is appended with it.
    const calm = run(
      ["append", "identity.drift", JSON.stringify({ ledger_id: ledgerId, drift_score: 0.05, source: "monitor" })],
      { LEDGER_DB: db },
    );
    expect(calm.status, calm.stderr).toBe(0);
    expect(JSON.parse(calm.stdout)).toMatchObject({ seq: 2 });
    const drift = { ledger_id: ledgerId, drift_score: 0.4, source: "monitor" };
    const drifted = run(["append", "identity.drift", JSON.stringify(drift)], { LEDGER_DB: db });
    expect(drifted.status, drifted.stderr).toBe(0);
    expect(JSON.parse(drifted.stdout)).toMatchObject({ seq: 3 });
    expect(drifted.stderr).toMatch(/avm\.revoke at seq 4 \(drift_exceeded\)/);
    const reopened = await openLedgerStore({ path: db, origin: "integrity-platform.example/ledger" });
    try {
      const entries = await Array.fromAsync(reopened.entries());
      expect(entries.map((e) => e.type)).toEqual([
        "identity.registered",
        "avm.grant",
        "identity.drift",
        "identity.drift",
        "avm.revoke",
      ]);
      expect(entries[4]!.payload).toMatchObject({
        ledger_id: ledgerId,
        reason: "drift_exceeded",
        evidence_hash: digestOf({ type: "identity.drift", payload: drift }),
      });
      // One transaction: the trigger and its revocation share the instant of their commit.
      expect(entries[4]!.ts).toBe(entries[3]!.ts);
    } finally {
      await reopened.close();
    }
    // Nothing is in force any more: a second drift revokes nothing.
    const again = run(["append", "identity.drift", JSON.stringify(drift)], { LEDGER_DB: db });
    expect(again.stderr).not.toMatch(/avm\.revoke/);
  });

  it("refuses a bad event with a clear message, a non-zero exit and nothing written", async () => {
    const db = join(dir, "refused.sqlite");
    const cases: [string[], RegExp][] = [
      [["append", "made.up", "{}"], /unknown event type "made\.up"/],
      [["append", "mic_burn", "{not json"], /PAYLOAD-JSON is not valid JSON/],
      [["append", "mic_burn", "[1, 2]"], /must be a JSON object/],
      [
        ["append", "mic_burn", JSON.stringify({ account: "treasury", amount_shards: "1.5", reason: "fee" })],
        /invalid mic_burn payload: amount_shards/,
      ],
      [
        ["append", "mic_burn", JSON.stringify({ account: "treasury", amount_shards: "1", reason: "fee", admin: true })],
        /admin/,
      ],
      [["append", "mic_burn"], /exactly TYPE and 'PAYLOAD-JSON'/],
    ];
    for (const [args, message] of cases) {
      const result = run(args, { LEDGER_DB: db });
      expect(result.status, args.join(" ")).not.toBe(0);
      expect(result.stderr, args.join(" ")).toMatch(message);
      expect(result.stdout).toBe("");
    }
    expect(existsSync(db)).toBe(false);
  });

  it("checks offline that a later checkpoint extends an earlier one, with the consistency command's proof", async () => {
    const db = join(dir, "grown.sqlite");
    const seed = generateKeyPair("ed25519");
    const env = { LEDGER_SIGNING_KEY: seed.secretKey, LEDGER_DB: db };
    const origin = "integrity-platform.example/ledger";
    const ledger = await openLedgerStore({
      path: db,
      origin,
      signer: { name: origin, secretKeyHex: seed.secretKey },
      now: steppingClock(),
      durability: "normal",
    });
    const older = join(dir, "older.checkpoint");
    const newer = join(dir, "newer.checkpoint");
    try {
      await ledger.append(Array.from({ length: 5 }, (_, i) => sampleEvent(i)));
      writeFileSync(older, await ledger.checkpoint());
      await ledger.append(Array.from({ length: 8 }, (_, i) => sampleEvent(5 + i)));
      writeFileSync(newer, await ledger.checkpoint());
    } finally {
      await ledger.close();
    }
    const proof = join(dir, "proof");
    writeFileSync(proof, run(["consistency", "5", "--size", "13"], env).stdout);
    const vkeyFile = join(dir, "ledger.vkey");
    writeFileSync(
      vkeyFile,
      `# the ledger's key\n${verifierKey("integrity-platform.example/ledger", seed.publicKey)}\n`,
    );

    const ok = run(["verify-consistency", older, newer, "--proof", proof, "--key", vkeyFile]);
    expect(ok.status, ok.stdout + ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/^ok: .* \(size 13\) extends .* \(size 5\)/);
    expect(run(["verify-consistency", newer, older, "--proof", proof, "--key", seed.publicKey]).status).toBe(1);
    const lines = readFileSync(proof, "utf8").split("\n");
    lines[0] = Buffer.alloc(32).toString("base64");
    writeFileSync(proof, lines.join("\n"));
    const forged = run(["verify-consistency", older, newer, "--proof", proof, "--key", vkeyFile]);
    expect(forged.status).toBe(1);
    expect(forged.stdout).toMatch(/does not show that the tree of size 13 extends the tree of size 5/);
    const otherKey = run([
      "verify-consistency",
      older,
      newer,
      "--proof",
      proof,
      "--key",
      generateKeyPair("ed25519").publicKey,
    ]);
    expect(otherKey.status).toBe(1);
  });

  it("reports a deleted entry as one line at its seq", async () => {
    const db = join(dir, "gap.sqlite");
    const ledger = await openLedgerStore({
      path: db,
      origin: "integrity-platform.example/ledger",
      now: steppingClock(),
      durability: "normal",
    });
    await ledger.append(Array.from({ length: 200 }, (_, i) => sampleEvent(i)));
    await ledger.close();
    const raw = new DatabaseSync(db);
    raw.exec("DROP TRIGGER entries_no_delete; DELETE FROM entries WHERE seq = 57;");
    raw.close();
    const verified = run(["verify", "--db", db]);
    expect(verified.status).toBe(1);
    expect(verified.stdout.trim().split("\n")).toEqual([
      expect.stringMatching(/^FAILED: .* has 1 problem\(s\):$/),
      expect.stringMatching(/^  seq 57: entry 57 is missing \(the next entry is seq 58\)/),
    ]);
  });

  it("generates a development key on first use and says so", async () => {
    const db = join(dir, "fresh.sqlite");
    const first = run(["checkpoint", "--db", db]);
    expect(first.status, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/generated a development key/);
    const second = run(["checkpoint", "--db", db]);
    expect(second.stderr).not.toMatch(/generated/);
    expect(second.stdout).toBe(first.stdout);
    rmSync(db);
  });
});

/** The verifier of the development ledger key a CLI run generated in `stateDir`. */
function ledgerKeyIn(stateDir: string) {
  const key = loadSigningKey(LEDGER_KEY, stateDir, {});
  return { name: key.name, publicKeyHex: key.publicKeyHex };
}
