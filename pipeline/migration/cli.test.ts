/**
 * `npm run migration`: the commands outside checks call, run in-process through main() with a real
 * dataset key from the environment, and once through npm as a user would.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { canonicalize } from "../../core/canonical.ts";
import { verifierKey } from "../../core/checkpoint.ts";
import { leafHashOfText, verifyInclusion } from "../../core/merkle.ts";
import { generateKeyPair } from "../../core/signature.ts";
import { tempDir } from "../../test/support/store/helpers.ts";
import { main, type Io } from "./cli.ts";

const { dir: root, cleanup } = tempDir("migration-cli-");
afterAll(cleanup);

const key = generateKeyPair("ed25519");
const other = generateKeyPair("ed25519");
const env = (secret = key.secretKey): NodeJS.ProcessEnv => ({
  DATASET_SIGNING_KEY: secret,
  STATE_DIR: join(root, "state"),
});

async function run(
  args: string[],
  e: NodeJS.ProcessEnv = env(),
): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const io: Io = { out: (l) => out.push(l), err: (l) => err.push(l), env: e };
  return { code: await main(args, io), out, err };
}

const V1 = [
  '{"address":"ZETA","balance_gic":12}',
  '{"address":"ATLAS","balance_gic":1.005}',
  '{"address":"legacy-1","balance_gic":1e-7}',
  '{"address":"HERMES","balance_gic":1E2}',
  '{"address":"dup","balance_gic":1}',
  '{"address":"big","balance_gic":9223372036854.775807}',
  '{"address":"dup","balance_gic":2}',
  '{"address":"neg","balance_gic":-3}',
  '{"address":"nan","balance_gic":NaN}',
  '{"address":"AURORA","balance_gic":0.000001}',
];
const v1File = join(root, "v1.jsonl");
writeFileSync(v1File, V1.map((l) => `${l}\n`).join(""));
const out = join(root, "snap");
const snapshot = await run(["snapshot", "--v1", v1File, "--out", out, "--at", "2025-12-01T00:00:00Z"]);

describe("npm run migration -- snapshot", () => {
  it("writes the sorted leaves, the checkpoint and the mismatches, and prints counts and totals", async () => {
    expect(snapshot.code).toBe(0);
    const text = snapshot.out.join("\n");
    expect(text).toContain("lines read:  10");
    expect(text).toContain("converted:   5 addresses");
    expect(text).toContain("mismatches:  5 (duplicate-address 2, not-a-number 1, negative 1, too-precise 1)");
    expect(text).toContain("total v1:    9223372036967.780808 GIC");
    expect(text).toContain("total v2:    9223372036967780808 shards");
    const lines = readFileSync(join(out, "snapshot.jsonl"), "utf8").split("\n").slice(0, -1);
    expect(lines.map((l) => JSON.parse(l).address)).toEqual(["ATLAS", "AURORA", "HERMES", "ZETA", "big"]);
    for (const l of lines) expect(canonicalize(JSON.parse(l))).toBe(l);
    expect(JSON.parse(lines[0]!).balance_shards).toBe("1005000");
    expect(JSON.parse(lines[4]!).balance_shards).toBe("9223372036854775807");
    const mismatches = readFileSync(join(out, "mismatches.jsonl"), "utf8")
      .split("\n")
      .slice(0, -1)
      .map((l) => JSON.parse(l));
    expect(mismatches.map((m) => [m.address, m.reason])).toEqual([
      ["legacy-1", "too-precise"],
      ["dup", "duplicate-address"],
      ["dup", "duplicate-address"],
      ["neg", "negative"],
      ["nan", "not-a-number"],
    ]);
    expect(mismatches[4].input).toBe('{"address":"nan","balance_gic":NaN}');
    expect(readFileSync(join(out, "checkpoint"), "utf8")).toMatch(
      /^integrity-platform\.example\/migration\/v1-v2\n5\n[A-Za-z0-9+/]{43}=\n\n— integrity-platform\.example\/datasets /,
    );
  });

  it("refuses to overwrite a published snapshot", async () => {
    expect((await run(["snapshot", "--v1", v1File, "--out", out])).code).toBe(1);
  });

  it("answers bad usage with status 2", async () => {
    expect((await run(["snapshot", "--v1", v1File])).code).toBe(2);
    expect((await run(["nope"])).code).toBe(2);
    expect((await run(["prove", "--dir", out, "--address", "ATLAS", "--extra", "x"])).code).toBe(2);
  });
});

describe("prove and verify", () => {
  it("prove prints one JSON line that verifies against the checkpoint's root", async () => {
    const r = await run(["prove", "--dir", out, "--address", "HERMES"]);
    expect(r.code).toBe(0);
    expect(r.out).toHaveLength(1);
    const proof = JSON.parse(r.out[0]!);
    expect(Object.keys(proof)).toEqual(["index", "tree_size", "leaf", "proof"]);
    expect(proof).toMatchObject({
      index: 2,
      tree_size: 5,
      leaf: '{"address":"HERMES","balance_shards":"100000000","v1_balance_gic":"1E2"}',
    });
    const root = Buffer.from(readFileSync(join(out, "checkpoint"), "utf8").split("\n")[2]!, "base64");
    expect(
      verifyInclusion(
        leafHashOfText(proof.leaf),
        proof.index,
        proof.tree_size,
        proof.proof.map((h: string) => Buffer.from(h, "base64")),
        root,
      ),
    ).toBe(true);
    expect((await run(["prove", "--dir", out, "--address", "dup"])).code).toBe(1);
  });

  it("verify exits 0 when leaf, proof and signature verify", async () => {
    for (const address of ["ATLAS", "AURORA", "HERMES", "ZETA", "big"])
      expect((await run(["verify", "--dir", out, "--address", address])).code, address).toBe(0);
    expect((await run(["verify", "--dir", out])).code).toBe(0);
    expect((await run(["verify", "--dir", out, "--address", "dup"])).code).toBe(1);
  });

  it("verify fails on one changed byte of a leaf, of another leaf, of the checkpoint, or of a given proof", async () => {
    const variants: [string, (dir: string) => void][] = [
      ["the leaf", (d) => edit(join(d, "snapshot.jsonl"), '"1005000"', '"1005001"')],
      ["another leaf", (d) => edit(join(d, "snapshot.jsonl"), '"100000000"', '"100000001"')],
      [
        "the checkpoint's root",
        (d) => edit(join(d, "checkpoint"), /\n5\n(.)/, (_m, c: string) => `\n5\n${c === "A" ? "B" : "A"}`),
      ],
      ["the checkpoint's size", (d) => edit(join(d, "checkpoint"), "\n5\n", "\n6\n")],
    ];
    for (const [what, damage] of variants) {
      const copy = join(root, `damaged-${what.replace(/\W/g, "")}`);
      cpSync(out, copy, { recursive: true });
      damage(copy);
      expect((await run(["verify", "--dir", copy, "--address", "ATLAS"])).code, what).toBe(1);
    }
    const proof = JSON.parse((await run(["prove", "--dir", out, "--address", "ATLAS"])).out[0]!);
    const good = join(root, "proof.json");
    writeFileSync(good, JSON.stringify(proof));
    expect((await run(["verify", "--dir", out, "--address", "ATLAS", "--proof", good])).code).toBe(0);
    const bad = join(root, "bad-proof.json");
    const h = Buffer.from(proof.proof[0], "base64");
    h[31]! ^= 0x80;
    writeFileSync(bad, JSON.stringify({ ...proof, proof: [h.toString("base64"), ...proof.proof.slice(1)] }));
    expect((await run(["verify", "--dir", out, "--address", "ATLAS", "--proof", bad])).code).toBe(1);
  });

  it("verify trusts only the dataset key, never one found in the folder", async () => {
    // A folder signed with another key: the real dataset key does not verify it.
    const forged = join(root, "forged");
    const v1 = join(root, "v1-forged.jsonl");
    writeFileSync(v1, '{"address":"ATLAS","balance_gic":1000000}\n');
    expect((await run(["snapshot", "--v1", v1, "--out", forged], env(other.secretKey))).code).toBe(0);
    expect((await run(["verify", "--dir", forged, "--address", "ATLAS"])).code).toBe(1);
    // Shipping the forger's key inside the folder does not help, even when pointed at.
    const vkey = verifierKey("integrity-platform.example/datasets", other.publicKey);
    writeFileSync(join(forged, "datasets.vkey"), `${vkey}\n`);
    mkdirSync(join(forged, "keys"), { recursive: true });
    writeFileSync(join(forged, "keys", "datasets.vkey"), `${vkey}\n`);
    expect((await run(["verify", "--dir", forged, "--address", "ATLAS"])).code).toBe(1);
    const pointed = await run([
      "verify",
      "--dir",
      forged,
      "--address",
      "ATLAS",
      "--key",
      join(forged, "keys", "datasets.vkey"),
    ]);
    expect(pointed.code).toBe(1);
    expect(pointed.err.join("\n")).toMatch(/inside/);
    // The same key given from outside is the caller's choice: then it verifies.
    const outside = join(root, "forger.vkey");
    copyFileSync(join(forged, "datasets.vkey"), outside);
    expect((await run(["verify", "--dir", forged, "--address", "ATLAS", "--key", outside])).code).toBe(0);
    // Without DATASET_SIGNING_KEY, the published data/keys/datasets.vkey is the trust root.
    expect(
      (await run(["verify", "--dir", forged, "--address", "ATLAS"], { STATE_DIR: join(root, "state") })).code,
    ).toBe(1);
  });
});

describe("the 24-hour review", () => {
  it("appends corrections under a new checkpoint consistent with the first", async () => {
    const dir = join(root, "reviewed");
    cpSync(out, dir, { recursive: true });
    const first = readFileSync(join(dir, "checkpoint"), "utf8");
    const corrections = join(root, "corrections.jsonl");
    writeFileSync(
      corrections,
      '{"address":"dup","balance_shards":"2000000","note":"ticket 1: the later line"}\n{"address":"legacy-1","balance_shards":"0","note":"ticket 2: below one shard, written off"}\n',
    );
    const r = await run(["correct", "--dir", dir, "--corrections", corrections, "--at", "2025-12-01T18:00:00Z"]);
    expect(r.code).toBe(0);
    expect(r.out.join("\n")).toContain("tree 5 → 7 leaves");
    expect(readFileSync(join(dir, "checkpoints", "5"), "utf8")).toBe(first);
    expect(readFileSync(join(dir, "checkpoint"), "utf8")).not.toBe(first);
    expect((await run(["verify", "--dir", dir])).code).toBe(0);
    expect((await run(["verify", "--dir", dir, "--address", "dup"])).code).toBe(0);
    expect(JSON.parse((await run(["prove", "--dir", dir, "--address", "dup"])).out[0]!)).toMatchObject({
      index: 5,
      tree_size: 7,
    });
    // A rewritten history no longer verifies: the consistency proof does not hold.
    edit(join(dir, "corrections.jsonl"), "ticket 1", "ticket 9");
    expect((await run(["verify", "--dir", dir])).code).toBe(1);
  });

  it("refuses a correction after the review and a malformed correction", async () => {
    const dir = join(root, "late");
    cpSync(out, dir, { recursive: true });
    const corrections = join(root, "c2.jsonl");
    writeFileSync(corrections, '{"address":"dup","balance_shards":"2000000","note":"late"}\n');
    expect(
      (await run(["correct", "--dir", dir, "--corrections", corrections, "--at", "2025-12-02T00:00:00Z"])).code,
    ).toBe(1);
    writeFileSync(corrections, '{"address":"dup","balance_shards":"2.5","note":"not shards"}\n');
    expect(
      (await run(["correct", "--dir", dir, "--corrections", corrections, "--at", "2025-12-01T01:00:00Z"])).code,
    ).toBe(1);
  });
});

describe("through npm, as an outside check runs it", () => {
  it("prove and verify", async () => {
    const npm = (args: string[]) =>
      spawnSync("npm", ["run", "-s", "migration", "--", ...args], {
        encoding: "utf8",
        env: { ...process.env, ...env() },
      });
    const prove = npm(["prove", "--dir", out, "--address", "ZETA"]);
    expect(prove.status).toBe(0);
    expect(JSON.parse(prove.stdout.trim())).toMatchObject({ tree_size: 5, index: 3 });
    expect(npm(["verify", "--dir", out, "--address", "ZETA"]).status).toBe(0);
    expect(npm(["verify", "--dir", out, "--address", "nobody"]).status).toBe(1);
  }, 60_000);
});

function edit(path: string, from: string | RegExp, to: string | ((...args: string[]) => string)): void {
  const text = readFileSync(path, "utf8");
  const changed = text.replace(from, to as string);
  if (changed === text) throw new Error(`no change to ${path}`);
  writeFileSync(path, changed);
}
