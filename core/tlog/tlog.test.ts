/**
 * core/tlog/ is run two ways: synchronously over node:crypto (core/merkle.ts, core/checkpoint.ts,
 * whose own tests hold it to transparency-dev's and Go's vectors) and asynchronously over WebCrypto
 * (the published verifier, the portal). The two runners must give the same verdicts: every
 * transparency-dev vector, signed notes opened, refused and tampered with, leaf hashes, witness
 * policies read and cosigned checkpoints checked under them.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { vectorsPath } from "../../test/support/vectors.ts";
import { signCheckpoint, signNote, verifierKey } from "../checkpoint.ts";
import { cosign, cosignerVkey, splitNote } from "../witness/cosignature.ts";
import { leafHash as nodeLeafHash, nodeCrypto } from "../merkle.ts";
import { generateKeyPair, publicKeyFromSecret } from "../signature.ts";
import { runAsync, runSync, webCrypto, type Check } from "./crypto.js";
import { consistencyCheck, inclusionCheck, leafHash } from "./merkle.js";
import { NoteError, openNote, parseVerifierKey } from "./note.js";
import { checkWitnessed, parsePolicy } from "./policy.js";

const vectors = vectorsPath("merkle");
const jsonFiles = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? jsonFiles(path) : name.endsWith(".json") ? [path] : [];
  });
const b64 = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, "base64"));

/** The verdict of a check under each runner: its value, or the code of what it threw. */
async function bothWays<T>(make: () => Check<T>): Promise<[unknown, unknown]> {
  const outcome = (run: () => unknown) => {
    try {
      return run();
    } catch (error) {
      return `refused ${(error as NoteError).code}`;
    }
  };
  const sync = outcome(() => runSync(make(), nodeCrypto));
  let async: unknown;
  try {
    async = await runAsync(make(), webCrypto);
  } catch (error) {
    async = `refused ${(error as NoteError).code}`;
  }
  return [sync, async];
}

describe("the synchronous and the WebCrypto runner", () => {
  it("agree on every transparency-dev inclusion and consistency vector", async () => {
    let checked = 0;
    for (const file of jsonFiles(join(vectors, "inclusion"))) {
      const v = JSON.parse(readFileSync(file, "utf8"));
      const proof = (v.proof ?? []).map(b64);
      const [sync, async] = await bothWays(() =>
        inclusionCheck(b64(v.leafHash), v.leafIdx, v.treeSize, proof, b64(v.root)),
      );
      expect([sync, async], v.desc).toEqual([!v.wantErr, !v.wantErr]);
      checked++;
    }
    for (const file of jsonFiles(join(vectors, "consistency"))) {
      const v = JSON.parse(readFileSync(file, "utf8"));
      const proof = (v.proof ?? []).map(b64);
      const [sync, async] = await bothWays(() => consistencyCheck(v.size1, v.size2, b64(v.root1), b64(v.root2), proof));
      expect(async, v.desc).toBe(sync);
      if (v.size1 > 0) expect(sync, v.desc).toBe(!v.wantErr);
      checked++;
    }
    expect(checked).toBe(196);
  });

  it("hash leaves alike", async () => {
    const data = new TextEncoder().encode('{"seq":0}');
    expect(await runAsync(leafHash(data), webCrypto)).toEqual(new Uint8Array(nodeLeafHash(data)));
  });

  it("open, ignore and refuse signed notes alike", async () => {
    const keys = [generateKeyPair("ed25519"), generateKeyPair("ed25519")];
    const signers = keys.map((k, i) => ({ name: `example.com/key${i}`, secretKeyHex: k.secretKey }));
    const known = await Promise.all(
      keys.map((k, i) => runAsync(parseVerifierKey(verifierKey(`example.com/key${i}`, k.publicKey)), webCrypto)),
    );
    const note = signNote("example.com/log\n7\n\n", signers);
    const names = (r: unknown) => (r as { signers: { name: string }[] }).signers.map((s) => s.name);
    const [sync, async] = await bothWays(() => openNote(note, known));
    expect(names(sync)).toEqual(["example.com/key0", "example.com/key1"]);
    expect(names(async)).toEqual(names(sync));
    // Only the second key known: the first signature is ignored.
    const [onlySecond] = await bothWays(() => openNote(note, known.slice(1)));
    expect(names(onlySecond)).toEqual(["example.com/key1"]);
    // A changed text: a known key's signature fails; no known key: refused; not a note: refused.
    expect(await bothWays(() => openNote(note.replace("\n7\n", "\n8\n"), known))).toEqual([
      "refused bad-signature",
      "refused bad-signature",
    ]);
    expect(await bothWays(() => openNote(note, []))).toEqual([
      "refused no-known-signature",
      "refused no-known-signature",
    ]);
    expect(await bothWays(() => openNote("no signatures\n", known))).toEqual([
      "refused malformed",
      "refused malformed",
    ]);
  });

  it("read witness policies and check cosigned checkpoints alike", async () => {
    const log = { name: "example.com/log", secretKeyHex: generateKeyPair("ed25519").secretKey };
    const logKey = verifierKey(log.name, publicKeyFromSecret("ed25519", log.secretKeyHex));
    const ws = [0, 1, 2].map((i) => ({ name: `w${i}.example`, secretKeyHex: generateKeyPair("ed25519").secretKey }));
    const policy = [
      `log ${logKey}`,
      ...ws.map(
        (w, i) =>
          `witness W${i} ${cosignerVkey({ name: w.name, publicKeyHex: publicKeyFromSecret("ed25519", w.secretKeyHex) })}`,
      ),
      "group two 2 W0 W1 W2",
      "quorum two",
      "",
    ].join("\n");
    const [p, q] = await bothWays(() => parsePolicy(policy));
    expect(q).toEqual(p);
    const note = signCheckpoint({ origin: log.name, size: 5, rootHash: new Uint8Array(32).fill(3) }, log);
    const body = splitNote(note).body;
    const one = note + cosign(body, ws[2]!.name, ws[2]!.secretKeyHex, 7);
    const two = one + cosign(body, ws[0]!.name, ws[0]!.secretKeyHex, 9);
    const verdict = (r: unknown) => {
      const { cosigned, met } = r as { cosigned: unknown; met: boolean };
      return { cosigned, met };
    };
    for (const [cosigned, want] of [
      [one, { cosigned: [{ id: "W2", timestamp: 7 }], met: false }],
      [
        two,
        {
          cosigned: [
            { id: "W2", timestamp: 7 },
            { id: "W0", timestamp: 9 },
          ],
          met: true,
        },
      ],
    ] as const) {
      const [sync, async] = await bothWays(() => checkWitnessed(cosigned, runSync(parsePolicy(policy), nodeCrypto)));
      expect(verdict(sync)).toEqual(want);
      expect(verdict(async)).toEqual(want);
    }
    // A policy witness's line that does not verify, a note no log of the policy signed, a bad policy.
    const forged = one + cosign(body.replace("\n5\n", "\n6\n"), ws[0]!.name, ws[0]!.secretKeyHex, 9);
    const parsed = runSync(parsePolicy(policy), nodeCrypto);
    expect(await bothWays(() => checkWitnessed(forged, parsed))).toEqual([
      "refused bad-signature",
      "refused bad-signature",
    ]);
    const other = signCheckpoint(
      { origin: "example.com/log", size: 5, rootHash: new Uint8Array(32) },
      {
        ...log,
        name: "example.com/other",
      },
    );
    expect(await bothWays(() => checkWitnessed(other, parsed))).toEqual([
      "refused no-known-signature",
      "refused no-known-signature",
    ]);
    expect(await bothWays(() => parsePolicy(policy.replace("quorum two", "quorum three")))).toEqual([
      "refused policy-malformed",
      "refused policy-malformed",
    ]);
  });
});
