/**
 * The `integrity-verify` command on folders, run as a downloader runs it (the bin, in a child
 * process): the repository's own signed areas verify; a folder holding part of an area verifies what
 * it holds and reports the rest not checked; a tampered byte, a wrong key, a file the manifest does
 * not list and a manifest listing a wrong size each fail with exit status 1 and a FAIL line naming the
 * file and the code; bad usage and an unreadable key exit 2. A ledger entry verifies from tiles written by
 * test/support/tlog-tiles.ts, and a tampered entry or tile, a wrong key or an entry past the end fail.
 */
import { spawn } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signCheckpoint, verifierKey } from "../../../core/checkpoint.ts";
import { leafHash, rootHash } from "../../../core/merkle.ts";
import { signManifest } from "../../../core/datapackage/index.ts";
import { publicKeyFromSecret } from "../../../core/signature.ts";
import { areaAliases } from "../../../core/datapackage/contract.ts";
import { TEST_DATASET_SIGNER, TEST_DATASET_VKEY } from "../../../test/support/api/helpers.ts";
import { integrityVerifyBin } from "../../../test/support/integrity-verify.ts";
import { ledgerEntries, sampleEntries, tlogFiles, writeTlog } from "../../../test/support/tlog-tiles.ts";

import { AREA_ALIASES } from "./area.js";
import { namesFile, namesNothing } from "./locate.js";

const REPO = resolve(import.meta.dirname, "../../..");
const BIN = integrityVerifyBin(REPO);
const tmp = mkdtempSync(join(tmpdir(), "integrity-verify-"));

/** Runs the installed command (node_modules/.bin, as `npx integrity-verify` does) on the project's Node. */
function run(...args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return runWithInput(null, ...args);
}

/** Runs the command with `input` on its stdin (none when null). */
function runWithInput(
  input: Uint8Array | null,
  ...args: string[]
): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: tmp,
    stdio: [input === null ? "ignore" : "pipe", "pipe", "pipe"],
  });
  if (input !== null) child.stdin!.end(input);
  let out = "";
  let err = "";
  child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (err += c.toString()));
  return new Promise((done) => child.on("close", (code) => done({ code, out, err })));
}

/** A fresh copy of data/areas/<area> and data/keys, laid out as in the repository. */
function copyArea(name: string, area = "academics"): string {
  const root = join(tmp, name);
  cpSync(join(REPO, "data", "areas", area), join(root, "areas", area), { recursive: true });
  cpSync(join(REPO, "data", "keys"), join(root, "keys"), { recursive: true });
  return join(root, "areas", area);
}

const LEDGER_SIGNER = { ...TEST_DATASET_SIGNER, name: "test.example/ledger" };
let ledgerDir: string;
let ledgerKey: string;

beforeAll(() => {
  ledgerDir = join(tmp, "site", "ledger");
  writeTlog(ledgerDir, tlogFiles(sampleEntries(600), LEDGER_SIGNER));
  ledgerKey = verifierKey(LEDGER_SIGNER.name, publicKeyFromSecret("ed25519", LEDGER_SIGNER.secretKeyHex));
});

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("integrity-verify on an area folder", () => {
  it("verifies the repository's signed areas, and one file of an area, with the key published beside them", async () => {
    const ok = await run(copyArea("ok"));
    expect(ok.err).toBe("");
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(/^key .*datasets\.vkey: .*read from beside the data/m);
    expect(ok.out).toMatch(
      /^academics: verified — 6 files checked; manifest signed by integrity-platform\.example\/datasets\+[0-9a-f]{8}$/m,
    );
    // The area's release history beside the manifest is not one of its files: one line says it was not checked.
    const history = ok.out.split("\n").filter((line) => line.startsWith("skip "));
    expect(history).toEqual([
      expect.stringMatching(
        /^skip history .*academics\/releases: not checked: the area's release history \(releases\.json and \d+ files under releases\/\), earlier releases' copies, not files of this manifest$/,
      ),
    ]);
    const one = await run(
      join(REPO, "data", "areas", "economy", "mii.json"),
      "--key",
      join(REPO, "data", "keys", "datasets.vkey"),
    );
    expect(one.code).toBe(0);
    expect(one.out).toMatch(/key .*: .*the key you pinned/);
    expect(one.out).toMatch(/^economy: verified — 1 file checked/m);
  });

  it("fails on a tampered byte, naming the file", async () => {
    const dir = copyArea("tampered");
    const file = join(dir, "papers.json");
    const bytes = readFileSync(file);
    bytes[10] = bytes[10]! ^ 1;
    writeFileSync(file, bytes);
    const r = await run(dir);
    expect(r.code).toBe(1);
    expect(r.err.trim().split("\n")).toEqual([
      expect.stringMatching(
        /^FAIL file .*papers\.json: sha256 is sha256:[0-9a-f]{64}, the manifest records sha256:[0-9a-f]{64} \[hash-mismatch\]$/,
      ),
    ]);
    expect(r.out).toMatch(/^academics: FAILED \(1 failed check\)$/m);
  });

  it("fails under a wrong key, and on a manifest changed after signing", async () => {
    const wrong = await run(copyArea("wrong-key"), "--key", TEST_DATASET_VKEY);
    expect(wrong.code).toBe(1);
    expect(wrong.err).toMatch(
      /^FAIL signature .*datapackage\.json\.sig: no trusted key signed it .*\[signature-untrusted\]$/m,
    );
    const dir = copyArea("edited");
    writeFileSync(
      join(dir, "datapackage.json"),
      readFileSync(join(dir, "datapackage.json"), "utf8").replace('"version"', '"version" ').trimEnd(),
    );
    const edited = await run(dir);
    expect(edited.code).toBe(1);
    expect(edited.err).toMatch(/\[signature-other-manifest\]$/m);
  });

  it("checks a subset of an area as given: what is there verifies, the rest is not checked; a file the manifest does not list fails", async () => {
    const dir = copyArea("subset");
    const manifest = JSON.parse(readFileSync(join(dir, "datapackage.json"), "utf8")) as {
      resources: { path: string; immutablePath: string }[];
    };
    const listed = manifest.resources.length;
    // Only dataset.json of the files the manifest lists, beside the area's release history.
    for (const r of manifest.resources) if (r.path !== "dataset.json") unlinkSync(join(dir, r.path));
    const key = join(REPO, "data", "keys", "datasets.vkey");
    const subset = await run(dir, "--key", key, "--verbose");
    expect(subset.err).toBe("");
    expect(subset.code).toBe(0);
    expect(subset.out).toMatch(/^ok {3}file .*dataset\.json: \d+ bytes, sha256:/m);
    expect(subset.out).toMatch(/^skip file .*citations\.bib: not checked: not among the files given$/m);
    expect(subset.out).toMatch(
      new RegExp(
        `^academics: verified — 1 file checked, ${listed - 1} listed but not in the folder \\(not checked\\); manifest signed by `,
        "m",
      ),
    );
    // A file the content-addressed name of a listed one is checked as that file.
    const immutable = manifest.resources.find((r) => r.path === "papers.json")!.immutablePath;
    mkdirSync(join(dir, "sha256"));
    cpSync(join(REPO, "data", "areas", "academics", "papers.json"), join(dir, immutable));
    const both = await run(dir, "--key", key);
    expect(both.code).toBe(0);
    expect(both.out).toMatch(
      new RegExp(`^academics: verified — 2 files checked, ${listed - 2} listed but not in the folder`, "m"),
    );
    // A file the manifest does not list is not part of the signed area: it fails, whatever it holds.
    writeFileSync(join(dir, "notes.txt"), "mine\n");
    const extra = await run(dir, "--key", key);
    expect(extra.code).toBe(1);
    expect(extra.err).toMatch(
      /^FAIL file .*notes\.txt: the signed manifest does not list this file \[file-unlisted\]$/m,
    );
    expect(extra.out).toMatch(/^academics: FAILED \(1 failed check\)$/m);
    unlinkSync(join(dir, "notes.txt"));
    // Only releases.json and what is under releases/ are the release history: a name that merely starts like them fails.
    writeFileSync(join(dir, "releases", "notes.txt"), "mine\n");
    writeFileSync(join(dir, "releases-notes.txt"), "mine\n");
    const near = await run(dir, "--key", key);
    expect(near.code).toBe(1);
    expect(near.err.trim().split("\n")).toEqual([
      expect.stringMatching(
        /^FAIL file .*\/releases-notes\.txt: the signed manifest does not list this file \[file-unlisted\]$/,
      ),
    ]);
    const underReleases = readdirSync(join(dir, "releases"), { recursive: true, withFileTypes: true }).filter((e) =>
      e.isFile(),
    ).length;
    expect(near.out).toContain(`the area's release history (releases.json and ${underReleases} files under releases/)`);
    unlinkSync(join(dir, "releases", "notes.txt"));
    unlinkSync(join(dir, "releases-notes.txt"));
    // Only the manifest and its signature: the signature verifies and nothing is claimed of the files.
    rmSync(join(dir, "sha256"), { recursive: true });
    unlinkSync(join(dir, "dataset.json"));
    const bare = await run(dir, "--key", key);
    expect(bare.code).toBe(0);
    expect(bare.out).toMatch(
      new RegExp(`^academics: verified — 0 files checked, ${listed} listed but not in the folder`, "m"),
    );
  });

  it("fails on a signed manifest that lists a wrong size, one line per bad file", async () => {
    // A manifest re-signed (with a test key) that records a wrong size for one file and a wrong hash for another.
    const resigned = copyArea("wrong-size");
    const manifest = JSON.parse(readFileSync(join(resigned, "datapackage.json"), "utf8")) as {
      resources: { path: string; bytes: number; hash: string }[];
    };
    manifest.resources.find((r) => r.path === "dataset.json")!.bytes += 1;
    manifest.resources.find((r) => r.path === "papers.json")!.hash = `sha256:${"0".repeat(64)}`;
    const text = JSON.stringify(manifest, null, 2);
    writeFileSync(join(resigned, "datapackage.json"), text);
    writeFileSync(join(resigned, "datapackage.json.sig"), signManifest("academics", text, TEST_DATASET_SIGNER));
    const r = await run(resigned, "--key", TEST_DATASET_VKEY);
    expect(r.code).toBe(1);
    const lines = r.err.trim().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^FAIL file .*dataset\.json: \d+ bytes, the manifest records \d+ \[size-mismatch\]$/);
    expect(lines[1]).toMatch(/^FAIL file .*papers\.json: .*\[hash-mismatch\]$/);
    expect(r.out).toMatch(/^academics: FAILED \(2 failed checks\)$/m);
  });

  it("refuses a signature of another area's manifest passed off as this one's", async () => {
    const dir = copyArea("swapped");
    cpSync(join(REPO, "data", "areas", "diplomacy", "datapackage.json"), join(dir, "datapackage.json"));
    cpSync(join(REPO, "data", "areas", "diplomacy", "datapackage.json.sig"), join(dir, "datapackage.json.sig"));
    const r = await run(dir);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/the signature is for the diplomacy manifest, not academics's \[signature-other-area\]$/m);
  });

  it("exits 2 when it cannot check: bad usage, a folder that does not exist, a key it cannot read", async () => {
    expect((await run()).code).toBe(2);
    expect((await run("a", "b")).code).toBe(2);
    expect((await run("--nope", "x")).code).toBe(2);
    const nowhere = await run(join(tmp, "no-such-folder"));
    expect(nowhere.code).toBe(2);
    expect(nowhere.err).toMatch(/no such file or folder/);
    const badKey = await run(copyArea("bad-key"), "--key", join(tmp, "no-such.vkey"));
    expect(badKey.code).toBe(2);
    expect(badKey.err).toMatch(/^FAIL key-missing: /m);
    const help = await run("--help");
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/^usage: integrity-verify/);
  });
});

describe("integrity-verify on one file by another of its published names", () => {
  it("verifies a file by its content-addressed immutablePath and by its extension-less alias", async () => {
    const academics = copyArea("immutable");
    const manifest = JSON.parse(readFileSync(join(academics, "datapackage.json"), "utf8")) as {
      resources: { path: string; immutablePath: string }[];
    };
    const bib = manifest.resources.find((r) => r.path === "citations.bib")!.immutablePath;
    mkdirSync(join(academics, "sha256"));
    cpSync(join(academics, "citations.bib"), join(academics, bib));
    const immutable = await run(join(academics, bib));
    expect(immutable.err).toBe("");
    expect(immutable.code).toBe(0);
    expect(immutable.out).toMatch(/^academics: verified — 1 file checked/m);

    const economy = copyArea("alias", "economy");
    cpSync(join(economy, "supply.json"), join(economy, "supply"));
    const alias = await run(join(economy, "supply"));
    expect(alias.err).toBe("");
    expect(alias.code).toBe(0);
    expect(alias.out).toMatch(/^economy: verified — 1 file checked/m);
    // The bytes at the alias are what is checked, against the file it names.
    writeFileSync(join(economy, "supply"), "{}");
    expect((await run(join(economy, "supply"))).err).toMatch(/^FAIL file .*economy\/supply: .*\[size-mismatch\]$/m);
  });

  it("reads an extension-less alias as a file, an unknown extension-less name in an area as a usage error, and keeps the contract's aliases", () => {
    expect(namesFile("/economy/supply")).toBe(true);
    expect(namesFile("/cdn/economy/mii")).toBe(true);
    expect(namesFile("/academics/sha256/52d2.bib")).toBe(true);
    expect(namesFile("/economy/")).toBe(false);
    expect(namesFile("/economy")).toBe(false);
    expect(namesNothing("/economy/nonesuch")).toBe(true);
    expect(namesNothing("/economy")).toBe(false);
    expect(namesNothing("/economy/supply")).toBe(false);
    const contract = Object.fromEntries(
      (["government", "academics", "philosophy", "economy", "diplomacy"] as const)
        .map((area) => [
          area,
          Object.fromEntries(
            Object.entries(areaAliases(area))
              .filter(([, r]) => r.kind === "alias" || r.kind === "live")
              .map(([name, r]) => [name, r.file]),
          ),
        ])
        .filter(([, aliases]) => Object.keys(aliases as object).length > 0),
    );
    expect(AREA_ALIASES).toEqual(contract);
  });
});

describe("integrity-verify --ledger on a folder of tiles", () => {
  it("verifies entries across tiles and prints the entry it verified", async () => {
    for (const entry of [0, 255, 256, 599]) {
      const r = await run("--ledger", ledgerDir, "--entry", String(entry), "--key", ledgerKey, "--print-entry");
      expect(r.err, `entry ${entry}`).toBe("");
      expect(r.code).toBe(0);
      expect(r.out).toContain(
        `ledger entry ${entry}: verified — included in test.example/ledger at size 600, signed by test.example/ledger+`,
      );
      expect(r.out.trim().split("\n").at(-1)).toBe(
        JSON.stringify({ seq: entry, type: "test.event", payload: { n: entry } }),
      );
    }
  });

  it("fails on a tampered entry, a tampered tile, a wrong key and an entry past the end", async () => {
    const tampered = join(tmp, "tampered-ledger");
    cpSync(ledgerDir, tampered, { recursive: true });
    const bundle = join(tampered, "tile", "entries", "001");
    const bytes = readFileSync(bundle);
    bytes[20] = bytes[20]! ^ 1;
    writeFileSync(bundle, bytes);
    const entry = await run("--ledger", tampered, "--entry", "256", "--key", ledgerKey);
    expect(entry.code).toBe(1);
    expect(entry.err).toMatch(
      /^FAIL tiles .*: the level-0 tile holds another hash for this entry.* \[leaf-mismatch\]$/m,
    );

    const tile = join(tampered, "tile", "0", "000");
    const hashes = readFileSync(tile);
    hashes[32 * 7] = hashes[32 * 7]! ^ 1;
    writeFileSync(tile, hashes);
    const proof = await run("--ledger", tampered, "--entry", "6", "--key", ledgerKey);
    expect(proof.code).toBe(1);
    expect(proof.err).toMatch(
      /^FAIL inclusion entry 6: the proof does not lead to the signed root.* \[inclusion-failed\]$/m,
    );

    const wrongKey = await run("--ledger", ledgerDir, "--entry", "3", "--key", TEST_DATASET_VKEY);
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.err).toMatch(/\[checkpoint-untrusted\]$/m);
    const past = await run("--ledger", ledgerDir, "--entry", "600", "--key", ledgerKey);
    expect(past.code).toBe(1);
    expect(past.err).toMatch(/holds entries 0 to 599 \[entry-out-of-range\]$/m);
    expect((await run("--ledger", ledgerDir, "--entry", "-1")).code).toBe(2);
  });
});

describe("integrity-verify --ledger and the checkpoint's origin", () => {
  it("refuses a checkpoint the pinned key signed for another log, unless --origin names that log", async () => {
    const other = join(tmp, "other-origin-ledger");
    writeTlog(other, tlogFiles(sampleEntries(10), LEDGER_SIGNER, "some-other-log.example/xyz"));
    const r = await run("--ledger", other, "--entry", "3", "--key", ledgerKey);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /^FAIL checkpoint .*: the checkpoint is for the log "some-other-log\.example\/xyz", not the signing key's \("test\.example\/ledger"\) \[checkpoint-other-origin\]$/m,
    );
    expect(r.out).not.toMatch(/verified/);
    const named = await run(
      "--ledger",
      other,
      "--entry",
      "3",
      "--key",
      ledgerKey,
      "--origin",
      "some-other-log.example/xyz",
    );
    expect(named.code).toBe(0);
    expect(named.out).toMatch(/^ledger entry 3: verified — included in some-other-log\.example\/xyz at size 10/m);
    const wrong = await run(
      "--ledger",
      ledgerDir,
      "--entry",
      "3",
      "--key",
      ledgerKey,
      "--origin",
      "some-other-log.example/xyz",
    );
    expect(wrong.code).toBe(1);
    expect(wrong.err).toMatch(/\[checkpoint-other-origin\]$/m);
    expect((await run(copyArea("origin-usage"), "--origin", "x")).code).toBe(2);
  });
});

describe("integrity-verify --ledger on envelope bundles (the portal's ledger)", () => {
  let envelopeDir: string;
  beforeAll(() => {
    const { leaves, envelopes } = ledgerEntries(300);
    envelopeDir = join(tmp, "envelope-ledger");
    writeTlog(envelopeDir, tlogFiles(leaves, LEDGER_SIGNER, LEDGER_SIGNER.name, envelopes));
  });

  it("verifies the leaf hash's inclusion and says, in the summary and the printed entry, that the envelope is NOT verified", async () => {
    const r = await run("--ledger", envelopeDir, "--entry", "42", "--key", ledgerKey, "--print-entry");
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    const [summary, printed] = r.out.trim().split("\n").slice(-2);
    expect(summary).toMatch(
      /^ledger entry 42: verified — its leaf hash is included in test\.example\/ledger at size 300, signed by .*; its envelope .* is NOT verified/,
    );
    expect(printed).toMatch(
      /^NOT verified \(the published envelope, not bound to the signed leaf\): \{"hash":"sha256:[0-9a-f]{64}",.*"seq":42,/,
    );
  });

  it("never shows a changed envelope under an unqualified verified verdict", async () => {
    const tampered = join(tmp, "envelope-tampered");
    cpSync(envelopeDir, tampered, { recursive: true });
    const bundle = join(tampered, "envelopes", "000");
    // Same length, other ts and type: the bundle still parses, the tiles are untouched.
    const text = readFileSync(bundle, "latin1").replace(
      '"seq":42,"ts":"2026-02-01T10:00:42.000Z","type":"mic_mint"',
      '"seq":42,"ts":"2026-02-01T10:00:43.000Z","type":"mic_burn"',
    );
    expect(text).not.toBe(readFileSync(bundle, "latin1"));
    writeFileSync(bundle, Buffer.from(text, "latin1"));
    const r = await run("--ledger", tampered, "--entry", "42", "--key", ledgerKey, "--print-entry");
    expect(r.out).not.toMatch(/^ledger entry 42: verified — included in/m);
    expect(r.out).toMatch(/^ledger entry 42: verified — its leaf hash is included .* NOT verified/m);
    expect(r.out).toMatch(/^NOT verified .*"type":"mic_burn"/m);
    expect(r.out).not.toMatch(/^\{/m);
  });

  it("reads the envelopes at envelopes/, and the leaf data at the C2SP URL tile/entries/ first when the log serves both", async () => {
    expect(existsSync(join(envelopeDir, "tile", "entries"))).toBe(false);
    const both = join(tmp, "envelope-and-leaf-ledger");
    cpSync(envelopeDir, both, { recursive: true });
    writeTlog(
      both,
      new Map([...tlogFiles(ledgerEntries(300).leaves, LEDGER_SIGNER)].filter(([p]) => p.startsWith("tile/entries/"))),
    );
    const r = await run("--ledger", both, "--entry", "42", "--key", ledgerKey, "--print-entry");
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^ledger entry 42: verified — included in test\.example\/ledger at size 300/m);
    expect(r.out).toMatch(/^\{"hash":"sha256:[0-9a-f]{64}","payload":\{"n":42\},/m);
  });

  it("refuses envelopes served at the C2SP entry bundle URL: there they are leaf data, and do not hash to the leaf", async () => {
    const { leaves, envelopes } = ledgerEntries(300);
    const misplaced = join(tmp, "envelopes-at-c2sp-url");
    writeTlog(misplaced, tlogFiles(leaves, LEDGER_SIGNER, LEDGER_SIGNER.name, envelopes, "tile/entries"));
    const r = await run("--ledger", misplaced, "--entry", "42", "--key", ledgerKey);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/\[leaf-mismatch\]$/m);
  });

  it("names both places when the entry's bundle is at neither, and refuses an envelope bundle whose entry is another's", async () => {
    const gone = join(tmp, "envelopes-gone");
    cpSync(envelopeDir, gone, { recursive: true });
    rmSync(join(gone, "envelopes", "001.p"), { recursive: true });
    const missing = await run("--ledger", gone, "--entry", "260", "--key", ledgerKey);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(
      /tile\/entries\/001\.p\/44: missing, and no envelope bundle either \(.*envelopes\/001\.p\/44: missing\) \[missing\]$/m,
    );
    const shifted = join(tmp, "envelopes-shifted");
    cpSync(envelopeDir, shifted, { recursive: true });
    const bundle = join(shifted, "envelopes", "000");
    writeFileSync(bundle, Buffer.from(readFileSync(bundle, "latin1").replace('"seq":42,', '"seq":43,'), "latin1"));
    const other = await run("--ledger", shifted, "--entry", "42", "--key", ledgerKey);
    expect(other.code).toBe(1);
    expect(other.err).toMatch(/is not that entry's envelope .* \[tile-malformed\]$/m);
  });
});

describe("integrity-verify --ledger --since: the log extends the checkpoint you saw", () => {
  /** Writes the signed checkpoint of the first `size` of `entries` (as the log published it then) to a file. */
  function seen(name: string, entries: Uint8Array[], size: number, signer = LEDGER_SIGNER): string {
    const file = join(tmp, `${name}.checkpoint`);
    writeFileSync(
      file,
      signCheckpoint(
        { origin: LEDGER_SIGNER.name, size, rootHash: rootHash(entries.slice(0, size).map((e) => leafHash(e))) },
        signer,
      ),
    );
    return file;
  }

  it("checks the checkpoint pair alone, with an entry, and from stdin", async () => {
    const entries = sampleEntries(600);
    const r = await run("--ledger", ledgerDir, "--since", seen("at-256", entries, 256), "--key", ledgerKey);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toMatch(
      /^checkpoint: consistent with the one you saw at size 256 \(root [A-Za-z0-9+/]{43}=\); the log is now at size 600$/m,
    );
    expect(r.out.trim().split("\n").at(-1)).toMatch(
      /^ledger checkpoint: verified — test\.example\/ledger at size 600 \(root .*\), signed by test\.example\/ledger\+[0-9a-f]{8}$/,
    );
    const same = await run(
      "--ledger",
      ledgerDir,
      "--since",
      join(ledgerDir, "checkpoint"),
      "--key",
      ledgerKey,
      "--entry",
      "599",
    );
    expect(same.code).toBe(0);
    expect(same.out).toMatch(/^checkpoint: consistent with the one you saw at size 600 /m);
    expect(same.out).toMatch(/^ledger entry 599: verified — included in test\.example\/ledger at size 600/m);
    const stdin = await runWithInput(
      readFileSync(seen("at-5", entries, 5)),
      "--ledger",
      ledgerDir,
      "--since",
      "-",
      "--key",
      ledgerKey,
      "--verbose",
    );
    expect(stdin.code).toBe(0);
    expect(stdin.out).toMatch(/^ok {3}since \(stdin\): test\.example\/ledger, 5 entries/m);
    expect(stdin.out).toMatch(/^checkpoint: consistent with the one you saw at size 5 /m);
  });

  it("refuses a rolled-back log, a forked log and an earlier checkpoint signed by another key, with exit status 1", async () => {
    const entries = sampleEntries(600);
    const older = join(tmp, "rolled-back-ledger");
    writeTlog(older, tlogFiles(entries.slice(0, 200), LEDGER_SIGNER));
    const rolledBack = await run(
      "--ledger",
      older,
      "--entry",
      "3",
      "--since",
      join(ledgerDir, "checkpoint"),
      "--key",
      ledgerKey,
    );
    expect(rolledBack.code).toBe(1);
    expect(rolledBack.err).toMatch(
      /^FAIL consistency .*checkpoint: the log's checkpoint \(size 200\) is older than the one you saw \(size 600\).* \[checkpoint-rolled-back\]$/m,
    );
    expect(rolledBack.out).not.toMatch(/verified|consistent/);

    const forked = join(tmp, "forked-ledger");
    writeTlog(
      forked,
      tlogFiles(
        entries.map((e, i) => (i === 7 ? Buffer.from("{}") : e)),
        LEDGER_SIGNER,
      ),
    );
    const fork = await run("--ledger", forked, "--since", seen("fork-at-300", entries, 300), "--key", ledgerKey);
    expect(fork.code).toBe(1);
    expect(fork.err).toMatch(/does not extend the one you saw at size 300.* \[checkpoint-inconsistent\]$/m);
    expect(fork.out).toMatch(/^ledger checkpoint: FAILED \(1 failed check\)$/m);

    const foreign = await run(
      "--ledger",
      ledgerDir,
      "--since",
      seen("foreign", entries, 300, { name: LEDGER_SIGNER.name, secretKeyHex: "3c".repeat(32) }),
      "--key",
      ledgerKey,
    );
    expect(foreign.code).toBe(1);
    expect(foreign.err).toMatch(
      /^FAIL since .*foreign\.checkpoint: no trusted key signed it .*\[checkpoint-untrusted\]$/m,
    );
  });

  it("exits 2 on an unreadable earlier checkpoint and on --since without --ledger; --ledger needs --entry or --since", async () => {
    const missing = await run("--ledger", ledgerDir, "--since", join(tmp, "no-such.checkpoint"), "--key", ledgerKey);
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/^FAIL fetch-failed: --since /m);
    expect((await run(copyArea("since-usage"), "--since", join(ledgerDir, "checkpoint"))).code).toBe(2);
    expect((await run("--ledger", ledgerDir, "--key", ledgerKey)).code).toBe(2);
    expect(
      (await run("--ledger", ledgerDir, "--since", join(ledgerDir, "checkpoint"), "--print-entry", "--key", ledgerKey))
        .code,
    ).toBe(2);
  });
});
