/**
 * Tampering with the published history: each case edits a copy of a genuine three-record history,
 * and the indexer must refuse to append, naming the file and line at fault.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { appendFileSync, cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { signCheckpoint, verifierKey } from "../../core/checkpoint.ts";
import { leafHash, rootHash } from "../../core/merkle.ts";
import { historyLine, sealPulse, type PulseRecord } from "../../core/pulse/history.ts";
import { generateKeyPair, publicKeyFromSecret } from "../../core/signature.ts";
import { PulseRefusal, runPulse, verifyPublished } from "./indexer.ts";
import { PULSE_ORIGIN } from "./published.ts";
import {
  PROJECT_ROOT,
  TEST_DATASET_KEY,
  commit,
  gitInit,
  makeDataDir,
  options,
  tempDir,
} from "../../test/support/pipeline/pulse/helpers.ts";

let base: { dir: string; cleanup: () => void };
let repo: string;
const DAYS = ["2026-04-01T06:00:00.000Z", "2026-04-02T06:00:00.000Z", "2026-04-03T06:00:00.000Z"];
const NEXT = "2026-04-04T06:00:00.000Z";

beforeAll(async () => {
  base = tempDir("pulse-tamper-");
  repo = join(base.dir, "repo");
  gitInit(repo);
  commit(repo, { "README.md": "r\n" }, "init", "2026-03-30T00:00:00Z");
  const data = makeDataDir(join(base.dir, "genuine"));
  for (const day of DAYS) await runPulse(options(join(base.dir, "genuine"), repo, data, day));
});
afterAll(() => base.cleanup());

let copies = 0;
/** A fresh copy of the genuine world; returns its folder and data folder. */
function copy(): { dir: string; data: string; history: string; checkpoint: string } {
  const dir = join(base.dir, `copy-${copies++}`);
  cpSync(join(base.dir, "genuine"), dir, { recursive: true });
  const data = join(dir, "data");
  return { dir, data, history: join(data, "pulse/history.jsonl"), checkpoint: join(data, "pulse/checkpoint") };
}

function lines(path: string): string[] {
  return readFileSync(path, "utf8").split("\n").slice(0, -1);
}

async function refusal(dir: string, data: string): Promise<string> {
  try {
    await runPulse(options(dir, repo, data, NEXT));
  } catch (error) {
    expect(error).toBeInstanceOf(PulseRefusal);
    return (error as Error).message;
  }
  throw new Error("the indexer appended to a tampered history");
}

describe("a tampered pulse history is refused, naming the line", () => {
  it("the genuine history verifies and accepts a fourth record", async () => {
    const { dir, data } = copy();
    expect(verifyPublished(data)).toEqual({ ok: true, problems: [], records: 3 });
    const run = await runPulse(options(dir, repo, data, NEXT));
    expect(run.record!.prev).toBe(JSON.parse(lines(join(data, "pulse/history.jsonl"))[2]!).hash);
  });

  it("one byte edited in line 2", async () => {
    const { dir, data, history } = copy();
    const text = readFileSync(history, "utf8");
    const line2 = text.indexOf("\n") + 1;
    const at = text.indexOf('"totalLines":', line2) + '"totalLines":'.length;
    const edited = text.slice(0, at) + (text[at] === "9" ? "8" : "9") + text.slice(at + 1);
    expect(edited.length).toBe(text.length);
    writeFileSync(history, edited);
    const message = await refusal(dir, data);
    expect(message).toMatch(
      /history\.jsonl line 2: hash mismatch: recorded sha256:[0-9a-f]{64}, payload hashes to sha256:/,
    );
    expect(message).toMatch(/checkpoint: signed root sha256:[0-9a-f]{64} does not match/);
    expect(message).not.toMatch(/line [13]:/);
    expect(readFileSync(history, "utf8")).toBe(edited); // nothing appended
  });

  it("a line removed from the middle, or from the end", async () => {
    const middle = copy();
    const l = lines(middle.history);
    writeFileSync(middle.history, `${l[0]}\n${l[2]}\n`);
    const message = await refusal(middle.dir, middle.data);
    expect(message).toMatch(/history\.jsonl line 2: prev is sha256:\w+, expected sha256:/);
    expect(message).toMatch(/history\.jsonl line 3: missing — the checkpoint signs 3 line\(s\), the file has 2/);

    const end = copy();
    writeFileSync(
      end.history,
      lines(end.history)
        .slice(0, 2)
        .map((x) => `${x}\n`)
        .join(""),
    );
    expect(await refusal(end.dir, end.data)).toMatch(
      /^refusing to append: the published pulse history does not verify:\n {2}history\.jsonl line 3: missing/,
    );
  });

  it("lines reordered", async () => {
    const { dir, data, history } = copy();
    const l = lines(history);
    writeFileSync(history, `${l[0]}\n${l[2]}\n${l[1]}\n`);
    const message = await refusal(dir, data);
    expect(message).toMatch(/history\.jsonl line 2: prev is/);
    expect(message).toMatch(
      /history\.jsonl line 3: generatedAt 2026-04-02T06:00:00.000Z is not after the previous record's 2026-04-03T06:00:00.000Z/,
    );
  });

  it("a checkpoint signed by a key that is not trusted", async () => {
    const { dir, data, checkpoint } = copy();
    const note = readFileSync(checkpoint, "utf8");
    const body = note.slice(0, note.indexOf("\n\n") + 1);
    const [origin, size, root] = body.trimEnd().split("\n") as [string, string, string];
    const stranger = generateKeyPair("ed25519").secretKey;
    writeFileSync(
      checkpoint,
      signCheckpoint(
        { origin, size: Number(size), rootHash: new Uint8Array(Buffer.from(root, "base64")) },
        { name: "integrity-platform.example/datasets", secretKeyHex: stranger },
      ),
    );
    expect(await refusal(dir, data)).toMatch(/checkpoint: note has no verifiable signatures: no known key signed it/);
  });

  it("a checkpoint whose size or root does not match the file", async () => {
    const signer = { name: "integrity-platform.example/datasets", secretKeyHex: TEST_DATASET_KEY };
    const short = copy();
    const rootOf = (note: string) => new Uint8Array(Buffer.from(note.split("\n")[2]!, "base64"));
    const genuineRoot = rootOf(readFileSync(short.checkpoint, "utf8"));
    // A genuine checkpoint of the first two lines: the third is not covered.
    const twoLines = rootHash(
      lines(short.history)
        .slice(0, 2)
        .map((l) => leafHash(new TextEncoder().encode(l))),
    );
    writeFileSync(short.checkpoint, signCheckpoint({ origin: PULSE_ORIGIN, size: 2, rootHash: twoLines }, signer));
    expect(await refusal(short.dir, short.data)).toMatch(
      /history\.jsonl line 3: not covered by the checkpoint, which signs 2 line\(s\) of 3/,
    );

    const wrongRoot = copy();
    writeFileSync(
      wrongRoot.checkpoint,
      signCheckpoint({ origin: PULSE_ORIGIN, size: 3, rootHash: new Uint8Array(32).fill(7) }, signer),
    );
    expect(await refusal(wrongRoot.dir, wrongRoot.data)).toMatch(
      /checkpoint: signed root sha256:0707\w+ does not match the root sha256:\w+ of the 3 line\(s\)/,
    );

    const otherOrigin = copy();
    writeFileSync(
      otherOrigin.checkpoint,
      signCheckpoint({ origin: "example.org/other", size: 3, rootHash: genuineRoot }, signer),
    );
    expect(await refusal(otherOrigin.dir, otherOrigin.data)).toMatch(/checkpoint: origin is "example.org\/other"/);
  });

  it("a signing key missing from datasets.vkey: refused with the way forward; --trust-new-key adds it", async () => {
    const { dir, data } = copy();
    const newKey = generateKeyPair("ed25519").secretKey;
    const opts = options(dir, repo, data, NEXT);
    opts.env = { ...opts.env, DATASET_SIGNING_KEY: newKey };
    await expect(runPulse(opts)).rejects.toThrow(/is not among the trusted keys.*--trust-new-key/s);
    expect(lines(join(data, "keys/datasets.vkey"))).toHaveLength(1);

    const run = await runPulse({ ...opts, trustNewKey: true });
    expect(run.written).toContain("keys/datasets.vkey");
    expect(lines(join(data, "keys/datasets.vkey"))).toEqual([
      verifierKey("integrity-platform.example/datasets", publicKeyFromSecret("ed25519", TEST_DATASET_KEY)),
      verifierKey("integrity-platform.example/datasets", publicKeyFromSecret("ed25519", newKey)),
    ]);
    expect(verifyPublished(data)).toMatchObject({ ok: true, records: 4 });
  });

  it("the CLI, run as a child process: exits 1 naming the line, --verify agrees; appends to the genuine copy", () => {
    const { dir, data, history } = copy();
    const l = lines(history);
    writeFileSync(history, `${l[0]}\n${l[1]!.replace('"branch":"main"', '"branch":"mein"')}\n${l[2]}\n`);
    const cli = join(PROJECT_ROOT, "pipeline/pulse/cli.ts");
    const env = { ...process.env, STATE_DIR: join(dir, "state"), DATASET_SIGNING_KEY: TEST_DATASET_KEY };
    const run = (args: string[]) =>
      spawnSync(process.execPath, [cli, ...args], { encoding: "utf8", env, cwd: PROJECT_ROOT });

    const append = run(["--data", data, "--repo", repo, "--ledger", join(dir, "ledger.sqlite"), "--now", NEXT]);
    expect(append.stderr).toMatch(
      /pulse: refusing to append: the published pulse history does not verify:\n {2}history\.jsonl line 2: hash mismatch/,
    );
    expect(append.status).toBe(1);
    expect(lines(history)).toHaveLength(3);

    const verify = run(["--verify", "--data", data]);
    expect(verify.status).toBe(1);
    expect(verify.stderr).toMatch(/^pulse: history\.jsonl line 2: hash mismatch/);

    // The genuine copy takes a fourth record, dated by SOURCE_DATE_EPOCH this time, and verifies.
    const genuine = copy();
    const epoch = String(Date.parse(NEXT) / 1000);
    const recorded = spawnSync(
      process.execPath,
      [cli, "--data", genuine.data, "--repo", repo, "--ledger", join(genuine.dir, "ledger.sqlite")],
      {
        encoding: "utf8",
        env: { ...env, SOURCE_DATE_EPOCH: epoch },
        cwd: PROJECT_ROOT,
      },
    );
    expect(recorded.stderr).toBe("");
    expect(recorded.stdout).toMatch(/^recorded pulse C-275 [0-9a-f-]{36} sha256:[0-9a-f]{64}$/m);
    expect(recorded.status).toBe(0);
    expect(JSON.parse(lines(genuine.history)[3]!).generatedAt).toBe(NEXT);
    const ok = run(["--verify", "--data", genuine.data]);
    expect(ok.stdout).toBe("pulse history verified: 4 record(s), checkpoint and static copies match\n");
    expect(ok.status).toBe(0);
  });

  it("--verify notices a hand-edited static copy", () => {
    const { data } = copy();
    const badge = join(data, "v1/pulse/badge.json");
    const genuine = readFileSync(badge, "utf8");
    const edited = genuine.replace(/"message": "[^"]+"/, '"message": "99.9% / 99.9%"');
    expect(edited).not.toBe(genuine);
    writeFileSync(badge, edited);
    expect(verifyPublished(data)).toEqual({
      ok: false,
      records: 3,
      problems: ["v1/pulse/badge.json: differs from what the history gives (regenerate with npm run pulse)"],
    });
  });

  it("--verify (and pipeline --check) names a forged GI badge and latest record, and a stray file, under an intact signed history", () => {
    const { data } = copy();
    const gi = join(data, "v1/pulse/badge/gi.json");
    writeFileSync(
      gi,
      readFileSync(gi, "utf8")
        .replace(/"message": "[^"]+"/, '"message": "42.0%"')
        .replace(/"color": "[^"]+"/, '"color": "red"'),
    );
    const latest = join(data, "v1/pulse/latest.json");
    writeFileSync(latest, readFileSync(latest, "utf8").replace(/"giScore": [\d.]+,/, '"giScore": 0.42,'));
    writeFileSync(join(data, "v1/pulse/extra.json"), "{}\n");
    expect(verifyPublished(data)).toEqual({
      ok: false,
      records: 3,
      problems: [
        "v1/pulse/badge/gi.json: differs from what the history gives (regenerate with npm run pulse)",
        "v1/pulse/extra.json: not a file the history gives (remove it, or regenerate with npm run pulse)",
        "v1/pulse/latest.json: differs from what the history gives (regenerate with npm run pulse)",
      ],
    });
  });

  it("--verify (and pipeline --check) refuses a line after the signed checkpoint, though a reader would serve the signed ones", () => {
    const { data, history } = copy();
    // A correctly chained, sealed record appended without re-signing the checkpoint.
    const last = JSON.parse(lines(history).at(-1)!) as PulseRecord;
    const extra = sealPulse({
      ...last,
      id: "00000000-0000-4000-8000-000000000042",
      giScore: 0.42,
      generatedAt: NEXT,
      prev: last.hash,
    });
    appendFileSync(history, `${historyLine(extra)}\n`);
    expect(verifyPublished(data)).toEqual({
      ok: false,
      records: 4,
      problems: ["history.jsonl line 4: not covered by the checkpoint, which signs 3 line(s) of 4"],
    });
  });
});
