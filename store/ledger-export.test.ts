import { spawnSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { verifierKey } from "../core/checkpoint.ts";
import { generateKeyPair } from "../core/signature.ts";
import { EXPORT_CHECKPOINT, EXPORT_LINES, exportLedger, verifyExport } from "./ledger-export.ts";
import { SqliteLedger } from "./sqlite-ledger.ts";
import { sampleEvent, steppingClock, tempDir } from "./test-helpers.ts";

const ORIGIN = "export.test/ledger";
let dir: string;
let cleanup: () => void;
const key = generateKeyPair("ed25519");
const verifiers = [{ name: ORIGIN, publicKeyHex: key.publicKey }];

beforeEach(() => {
  ({ dir, cleanup } = tempDir());
});
afterEach(() => cleanup());

let exports = 0;
function makeExport(entries = 50): string {
  exports += 1;
  const ledger = new SqliteLedger(join(dir, `l${exports}.sqlite`), {
    origin: ORIGIN,
    signer: { name: ORIGIN, secretKeyHex: key.secretKey },
    now: steppingClock(),
    durability: "normal",
  });
  ledger.append(Array.from({ length: entries }, (_, i) => sampleEvent(i)));
  const out = join(dir, `export${exports}`);
  exportLedger(ledger, out);
  ledger.close();
  return out;
}

function editLine(out: string, seq: number, edit: (line: string) => string): void {
  const path = join(out, EXPORT_LINES);
  const lines = readFileSync(path, "utf8").split("\n");
  lines[seq] = edit(lines[seq]!);
  writeFileSync(path, lines.join("\n"));
}

describe("ledger export", () => {
  it("writes one canonical line per entry and a checkpoint that verifies offline", async () => {
    const out = makeExport();
    const lines = readFileSync(join(out, EXPORT_LINES), "utf8").trimEnd().split("\n");
    expect(lines).toHaveLength(50);
    expect(JSON.parse(lines[0]!).seq).toBe(0);
    expect(readFileSync(join(out, EXPORT_CHECKPOINT), "utf8").split("\n").slice(0, 2)).toEqual([ORIGIN, "50"]);
    const report = await verifyExport(out, verifiers);
    expect(report.problems).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.size).toBe(50);
  });

  it("names the line whose bytes changed", async () => {
    const out = makeExport();
    editLine(out, 12, (l) => l.replace('"status":"operational"', '"status":"degraded"'));
    const report = await verifyExport(out, verifiers);
    expect(report.ok).toBe(false);
    expect(report.problems[0]).toMatchObject({ seq: 12, problem: expect.stringMatching(/hash mismatch/) });
  });

  it("refuses non-canonical lines, truncation, and an unknown key", async () => {
    const out = makeExport();
    editLine(out, 3, (l) => l.replace("{", "{ "));
    expect((await verifyExport(out, verifiers)).problems).toContainEqual({ seq: 3, problem: "entry is not in canonical (JCS) form" });

    const short = makeExport(20);
    const path = join(short, EXPORT_LINES);
    writeFileSync(path, readFileSync(path, "utf8").split("\n").slice(0, 19).join("\n") + "\n");
    const truncated = await verifyExport(short, verifiers);
    expect(truncated.problems.map((p) => p.problem).join()).toMatch(/checkpoint covers 20 entries, the file has 19/);

    const other = generateKeyPair("ed25519");
    const wrongKey = await verifyExport(short, [{ name: ORIGIN, publicKeyHex: other.publicKey }]);
    expect(wrongKey.ok).toBe(false);
  });
});

describe("npm run ledger", () => {
  const cli = join(import.meta.dirname, "ledger-cli.ts");
  const run = (args: string[], env: Record<string, string> = {}) =>
    spawnSync(process.execPath, [cli, ...args], { encoding: "utf8", env: { ...process.env, STATE_DIR: join(dir, "state"), ...env } });

  it("checkpoints, verifies, exports and verifies the export with the printed key", () => {
    const db = join(dir, "cli.sqlite");
    const seed = generateKeyPair("ed25519");
    const env = { LEDGER_SIGNING_KEY: seed.secretKey };
    // Fill through the library with the same origin the CLI uses.
    const ledger = new SqliteLedger(db, { origin: "integrity-platform.example/ledger", now: steppingClock(), durability: "normal" });
    ledger.append(Array.from({ length: 30 }, (_, i) => sampleEvent(i)));
    ledger.close();

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

    editLine(out, 8, (l) => l.replace("0.97", "0.96"));
    const broken = run(["verify-export", out, "--key", seed.publicKey]);
    expect(broken.status).toBe(1);
    expect(broken.stdout).toMatch(/seq 8: hash mismatch/);

    const proof = run(["inclusion", "5", "--db", db], env);
    expect(proof.status).toBe(0);
    expect(proof.stdout.trim().split("\n")).toHaveLength(5); // ceil(log2 30)
  });

  it("answers bad arguments with a clear message and exit 2", () => {
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

  it("generates a development key on first use and says so", () => {
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
