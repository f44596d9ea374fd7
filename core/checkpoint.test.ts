import { describe, it, expect } from "vitest";
import { sha256 } from "@noble/hashes/sha2.js";
import {
  formatCheckpoint,
  keyId,
  NoteError,
  openNote,
  parseCheckpoint,
  parseVerifierKey,
  signCheckpoint,
  signNote,
  verifierKey,
  verifyCheckpoint,
  type Checkpoint,
  type NoteSigner,
  type NoteVerifier,
} from "./checkpoint.ts";
import { generateKeyPair, publicKeyFromSecret } from "./signature.ts";

const b64 = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, "base64"));
const toB64 = (b: Uint8Array): string => Buffer.from(b).toString("base64");
const toHex = (b: Uint8Array): string => Buffer.from(b).toString("hex");

function party(name: string): { signer: NoteSigner; verifier: NoteVerifier } {
  const { secretKey, publicKey } = generateKeyPair("ed25519");
  return { signer: { name, secretKeyHex: secretKey }, verifier: { name, publicKeyHex: publicKey } };
}

function rootOf(label: string): Uint8Array {
  return sha256(new TextEncoder().encode(label));
}

const BASE64_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
/** The base64 digit that differs only in its lowest bit: a trailing (padding) bit when before "=". */
const sibling = (digit: string): string => BASE64_ALPHABET[BASE64_ALPHABET.indexOf(digit) ^ 1]!;

/** The signature lines of a signed note, each with its newline. */
function sigLines(note: string): string[] {
  return note.slice(note.lastIndexOf("\n\n") + 2).match(/[^\n]*\n/g) ?? [];
}

// ---------------------------------------------------------------------------------------------
// External vectors: golang.org/x/mod/sumdb/note (note.go doc comment and note_test.go).

const PETER_SKEY = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz";
const PETER_VKEY = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW";
const ENOCH_VKEY = "EnochRoot+af0cfe78+ATtqJ7zOtqQtYqOo0CpvDXNlMhV3HeJDpjrASKGLWdop";
const TEXT = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
const PETER_SIG =
  "— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n";
const ENOCH_SIG =
  "— EnochRoot rwz+eBzmZa0SO3NbfRGzPCpDckykFXSdeX+MNtCOXm2/5n2tiOHp+vAF1aGrQ5ovTG01oOTGwnWLox33WWd1RvMc+QQ=\n";

/** Go's signer key: PRIVATE+KEY+<name>+<id>+base64(0x01 ‖ seed). */
function goSigner(skey: string): NoteSigner {
  const parts = skey.split("+");
  expect(parts.slice(0, 2)).toEqual(["PRIVATE", "KEY"]);
  const raw = b64(parts.slice(4).join("+")); // the base64 may itself contain '+'
  expect(raw[0]).toBe(0x01);
  return { name: parts[2]!, secretKeyHex: toHex(raw.subarray(1)) };
}

// Real checkpoints of the Go checksum database (origin "go.sum database tree"), with its public
// verifier key from cmd/go/internal/modfetch/key.go.
const SUMDB_VKEY = "sum.golang.org+033de0ae+Ac4zctda0e5eza+HJyk9SxEdh+s3Ux18htTTAD8OuAn8";
const SUMDB_CHECKPOINTS = [
  // sum.golang.org/latest on 2024-09-23 (as quoted in sigsum-go's checkpoint tests)
  "go.sum database tree\n30055305\nmXfgRcJ0bG0j3CPdKwgGWtUzBUbX67saZGRmFuJGGsM=\n\n" +
    "— sum.golang.org Az3grpgEild5qw7+5dtV13Kf1C2Xurm8q4fhdxvcsDHnqNTaxL2AFjBY+2TyGKevucFcAAlWFJJYle3EJlDCrQ+y3A8=\n",
  // a later tree head returned by a Go lookup of golang.org/x/sync@v0.1.0
  "go.sum database tree\n65209736\n5+uGFjx6xBZG8ip1+wi77v+grwbhhukIrxEUS8PXvRo=\n\n" +
    "— sum.golang.org Az3grnbssgK7ubgFX36gVETtNv0U23qxyAhAMai2QUfeGa3nB/akvkMdlUErfcZz7l/R3cVtYspg3dxXABkGZZKdsQ8=\n",
];

describe("golang.org/x/mod/sumdb/note vectors", () => {
  const peter = parseVerifierKey(PETER_VKEY);
  const enoch = parseVerifierKey(ENOCH_VKEY);

  it("parses the verifier keys and formats them back byte for byte", () => {
    expect(peter.name).toBe("PeterNeumann");
    expect(peter.publicKeyHex).toMatch(/^[0-9a-f]{64}$/);
    expect(verifierKey(peter.name, peter.publicKeyHex)).toBe(PETER_VKEY);
    expect(verifierKey(enoch.name, enoch.publicKeyHex)).toBe(ENOCH_VKEY);
    expect(toHex(keyId(peter.name, peter.publicKeyHex))).toBe(PETER_VKEY.split("+")[1]);
  });

  it("signs exactly as Go does (Ed25519 is deterministic)", () => {
    const signer = goSigner(PETER_SKEY);
    expect(publicKeyFromSecret("ed25519", signer.secretKeyHex)).toBe(peter.publicKeyHex);
    expect(signNote(TEXT, [signer])).toBe(TEXT + "\n" + PETER_SIG);
  });

  it("opens: one known + one unknown key, both known, none known", () => {
    const note = TEXT + "\n" + PETER_SIG + ENOCH_SIG;
    expect(openNote(note, [peter])).toEqual({ text: TEXT, verifiedBy: ["PeterNeumann"] });
    expect(openNote(note, [peter, enoch])).toEqual({ text: TEXT, verifiedBy: ["PeterNeumann", "EnochRoot"] });
    expect(() => openNote(note, [])).toThrow(/no verifiable signatures/);
    // The same key listed twice is not ambiguous.
    expect(openNote(TEXT + "\n" + ENOCH_SIG, [enoch, peter, enoch]).verifiedBy).toEqual(["EnochRoot"]);
  });

  it("refuses more than 100 signatures, before verifying any", () => {
    expect(() => openNote(TEXT + "\n" + PETER_SIG.repeat(101), [peter])).toThrow(/malformed note: more than 100/);
    expect(() => openNote(TEXT + "\n" + PETER_SIG.repeat(101), [])).toThrow(/malformed note: more than 100/);
    expect(openNote(TEXT + "\n" + PETER_SIG.repeat(100), [peter]).verifiedBy).toEqual(["PeterNeumann"]);
  });

  it("fails on a bad signature from a known key; ignores a bad one from an unknown key", () => {
    const at = PETER_SIG.indexOf(" x08g") + 1 + 44; // inside the base64, after the key ID
    const bad = PETER_SIG.slice(0, at) + "ABCD" + PETER_SIG.slice(at);
    expect(() => openNote(TEXT + "\n" + bad, [peter])).toThrow(/invalid signature for key PeterNeumann\+c74f20a3/);
    const at2 = ENOCH_SIG.indexOf(" rwz+") + 1 + 44;
    const enochBad = ENOCH_SIG.slice(0, at2) + "ABCD" + ENOCH_SIG.slice(at2);
    const note = TEXT + "\n" + PETER_SIG + PETER_SIG + ENOCH_SIG + ENOCH_SIG + enochBad;
    expect(openNote(note, [peter]).verifiedBy).toEqual(["PeterNeumann"]);
    expect(() => openNote(note, [peter, enoch])).toThrow(/invalid signature for key EnochRoot\+af0cfe78/);
  });

  it("rejects Go's malformed messages", () => {
    const bad = [
      TEXT,
      TEXT + "\n",
      TEXT + "\n" + PETER_SIG.slice(0, -1),
      "\x01" + TEXT + "\n" + PETER_SIG,
      "\ud800" + TEXT + "\n" + PETER_SIG, // a JS string's analogue of Go's invalid UTF-8 "\xff"
      TEXT +
        "\n" +
        "— Bad Name x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=",
      TEXT + "\n" + PETER_SIG + "Unexpected line.\n",
    ];
    for (const msg of bad) expect(() => openNote(msg, [peter]), JSON.stringify(msg)).toThrow(/malformed note/);
  });

  it("treats a signature under another name or key ID as unknown", () => {
    const misnamed = PETER_SIG.replace("PeterNeumann", "CarmenSandiego");
    expect(() => openNote(TEXT + "\n" + misnamed, [peter])).toThrow(/no verifiable signatures/);
    const wrongId = PETER_SIG.replace("x08g", "xxxx");
    expect(() => openNote(TEXT + "\n" + wrongId, [peter])).toThrow(/no verifiable signatures/);
  });

  it("rejects every mangling of a verifier key (Go's TestNewVerifier)", () => {
    const accepted: string[] = [];
    const tryKey = (k: string): void => {
      try {
        parseVerifierKey(k);
        accepted.push(k);
      } catch {
        // expected
      }
    };
    for (let i = 0; i <= PETER_VKEY.length; i++) {
      for (let j = i + 1; j <= PETER_VKEY.length; j++)
        if (i !== 0 || j !== PETER_VKEY.length) tryKey(PETER_VKEY.slice(i, j));
    }
    for (let i = 0; i < PETER_VKEY.length; i++) {
      tryKey(PETER_VKEY.slice(0, i) + String.fromCharCode(PETER_VKEY.charCodeAt(i) + 1) + PETER_VKEY.slice(i + 1));
    }
    expect(accepted).toEqual([]);
    // Go's own: wrong key length and unknown algorithm, each with a matching key ID. (The first
    // also has non-canonical base64 — "Y==" leaves bits set — so it fails here even earlier.)
    expect(() =>
      parseVerifierKey("PeterNeumann+cc469956+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TWBADKEY=="),
    ).toThrow();
    expect(() => parseVerifierKey("PeterNeumann+173116ae+ZRpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW")).toThrow(
      /unknown algorithm/,
    );
    // The same two faults in canonical base64, key IDs computed independently of the module.
    const pk = Buffer.from(peter.publicKeyHex, "hex");
    const vkeyOf = (name: string, key: Uint8Array): string => {
      const id = sha256(new Uint8Array([...new TextEncoder().encode(name), 0x0a, ...key])).subarray(0, 4);
      return `${name}+${toHex(id)}+${toB64(key)}`;
    };
    expect(() => parseVerifierKey(vkeyOf("PeterNeumann", new Uint8Array([0x01, ...pk, 0x00])))).toThrow(/32 bytes/);
    expect(() => parseVerifierKey(vkeyOf("PeterNeumann", new Uint8Array([0x01, ...pk.subarray(1)])))).toThrow(
      /32 bytes/,
    );
    expect(() => parseVerifierKey(vkeyOf("PeterNeumann", new Uint8Array([0x02, ...pk])))).toThrow(/unknown algorithm/);
    expect(vkeyOf("PeterNeumann", new Uint8Array([0x01, ...pk]))).toBe(PETER_VKEY);
    expect(() => parseVerifierKey("PeterNeumann+c74f20a4+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW")).toThrow(
      /key ID does not match/,
    );
  });
});

describe("real sum.golang.org checkpoints", () => {
  const sumdb = parseVerifierKey(SUMDB_VKEY);

  it("parses the verifier key (its base64 holds '+')", () => {
    expect(sumdb.name).toBe("sum.golang.org");
    expect(verifierKey(sumdb.name, sumdb.publicKeyHex)).toBe(SUMDB_VKEY);
  });

  it.each(SUMDB_CHECKPOINTS)("verifies, parses and re-formats byte for byte: %#", (note) => {
    const text = note.slice(0, note.lastIndexOf("\n\n") + 1);
    const [, size, root] = text.split("\n");
    const c = verifyCheckpoint(note, [sumdb]);
    expect(c).toEqual({ origin: "go.sum database tree", size: Number(size), rootHash: b64(root!) });
    expect(formatCheckpoint(c)).toBe(text);
    expect(openNote(note, [sumdb]).verifiedBy).toEqual(["sum.golang.org"]);
    // One more leaf in the claimed size breaks the signature.
    const forged = note.replace(`\n${size}\n`, `\n${Number(size) + 1}\n`);
    expect(() => verifyCheckpoint(forged, [sumdb])).toThrow(/invalid signature for key sum\.golang\.org\+033de0ae/);
  });
});

// ---------------------------------------------------------------------------------------------

describe("keyId and verifier keys", () => {
  it("is SHA-256(name ‖ 0x0A ‖ 0x01 ‖ public key)[:4], name in UTF-8", () => {
    const { publicKey } = generateKeyPair("ed25519");
    for (const name of ["example.com/log", "exämple.org/ログ"]) {
      const input = new Uint8Array([...new TextEncoder().encode(name), 0x0a, 0x01, ...Buffer.from(publicKey, "hex")]);
      expect(toHex(keyId(name, publicKey))).toBe(toHex(sha256(input).subarray(0, 4)));
      expect(keyId(name, publicKey)).toHaveLength(4);
    }
  });

  it("round-trips verifierKey / parseVerifierKey", () => {
    const { verifier } = party("example.com/log42");
    const vkey = verifierKey(verifier.name, verifier.publicKeyHex);
    expect(vkey).toMatch(/^example\.com\/log42\+[0-9a-f]{8}\+[A-Za-z0-9+/]{44}$/);
    expect(parseVerifierKey(vkey)).toEqual(verifier);
  });

  it("refuses invalid names and keys", () => {
    const { publicKey } = generateKeyPair("ed25519");
    for (const name of ["", "a b", "a+b", "tab\there", "nbsp\u00a0", "ideographic\u3000space", "line\nbreak"]) {
      expect(() => keyId(name, publicKey), JSON.stringify(name)).toThrow(/invalid key name/);
      expect(() => verifierKey(name, publicKey)).toThrow(/invalid key name/);
    }
    expect(() => keyId("ok", publicKey.slice(2))).toThrow(/32 bytes/);
    expect(() => keyId("ok", publicKey.toUpperCase())).toThrow(/invalid hex/);
    const vkey = verifierKey("ok", publicKey);
    expect(() => parseVerifierKey(vkey + "=")).toThrow(/malformed verifier key/);
    expect(() => parseVerifierKey(vkey.replace("+", "+ "))).toThrow(/malformed verifier key/);
    expect(() => parseVerifierKey("ok++" + vkey.split("+").slice(2).join("+"))).toThrow(/malformed verifier key/);
  });
});

describe("checkpoint body", () => {
  const c: Checkpoint = { origin: "example.com/behind-the-sofa", size: 20852163, rootHash: rootOf("root") };

  it("formats the C2SP layout and parses it back", () => {
    const text = formatCheckpoint(c);
    expect(text).toBe(`example.com/behind-the-sofa\n20852163\n${toB64(c.rootHash)}\n`);
    expect(parseCheckpoint(text)).toEqual(c);
    const withExt = { ...c, extensions: ["ext one", "ext two"] };
    expect(formatCheckpoint(withExt)).toBe(text + "ext one\next two\n");
    expect(parseCheckpoint(formatCheckpoint(withExt))).toEqual(withExt);
    expect(parseCheckpoint(formatCheckpoint({ ...c, extensions: [] }))).toEqual(c);
    expect(parseCheckpoint(formatCheckpoint({ ...c, size: 0 })).size).toBe(0);
    expect(parseCheckpoint(formatCheckpoint({ ...c, size: Number.MAX_SAFE_INTEGER })).size).toBe(
      Number.MAX_SAFE_INTEGER,
    );
  });

  it("refuses sizes that are not canonical decimal safe integers", () => {
    const root = toB64(c.rootHash);
    for (const size of [
      "",
      "01",
      "00",
      "-1",
      "+1",
      " 1",
      "1 ",
      "1.0",
      "1e3",
      "0x10",
      "١٢",
      "9007199254740992",
      "99999999999999999999",
    ]) {
      expect(() => parseCheckpoint(`o\n${size}\n${root}\n`), JSON.stringify(size)).toThrow(/malformed checkpoint/);
    }
  });

  it("refuses malformed bodies", () => {
    const root = toB64(c.rootHash);
    const bad = [
      `o\n1\n${root}`, // no final newline
      `o\n1\n`, // two lines
      `\n1\n${root}\n`, // empty origin
      `o\n1\n${toB64(c.rootHash.subarray(1))}\n`, // 31-byte root
      `o\n1\n${toB64(new Uint8Array(33))}\n`, // 33-byte root
      `o\n1\n${root.slice(0, -1)}\n`, // unpadded base64
      `o\n1\n${root.replace(/[A-Za-z]/, "*")}\n`, // not base64
      `o\n1\n${root}\n\n`, // empty extension line
      `o\n1\n${root}\next\n\n`,
      `o\n1\n${root}\r\n`, // carriage return
    ];
    for (const text of bad) expect(() => parseCheckpoint(text), JSON.stringify(text)).toThrow(/malformed checkpoint/);
  });

  it("refuses to format what could not be parsed back", () => {
    const bad: [string, Checkpoint][] = [
      ["negative size", { ...c, size: -1 }],
      ["fractional size", { ...c, size: 1.5 }],
      ["unsafe size", { ...c, size: 2 ** 53 }],
      ["NaN size", { ...c, size: Number.NaN }],
      ["short root", { ...c, rootHash: new Uint8Array(31) }],
      ["empty origin", { ...c, origin: "" }],
      ["two-line origin", { ...c, origin: "a\nb" }],
      ["empty extension", { ...c, extensions: [""] }],
      ["two-line extension", { ...c, extensions: ["a\nb"] }],
      ["control character", { ...c, extensions: ["a\tb"] }],
    ];
    for (const [label, cp] of bad) expect(() => formatCheckpoint(cp), label).toThrow(/checkpoint/);
  });
});

describe("signed checkpoints", () => {
  const log = party("example.com/log");
  const witness = party("witness.example/w1");
  const c: Checkpoint = { origin: "example.com/log", size: 42, rootHash: rootOf("forty-two") };

  it("round-trips and writes the signature line as `— <name> base64(keyID ‖ sig)`", () => {
    const note = signCheckpoint(c, log.signer);
    expect(note.startsWith(formatCheckpoint(c) + "\n")).toBe(true);
    const [line, ...rest] = sigLines(note);
    expect(rest).toEqual([]);
    expect(line).toMatch(/^\u2014 example\.com\/log [A-Za-z0-9+/]{91}=\n$/);
    const raw = b64(line!.slice(line!.lastIndexOf(" ") + 1, -1));
    expect(raw).toHaveLength(68);
    expect(toHex(raw.subarray(0, 4))).toBe(toHex(keyId(log.verifier.name, log.verifier.publicKeyHex)));
    expect(verifyCheckpoint(note, [log.verifier])).toEqual(c);
    expect(signCheckpoint(c, log.signer)).toBe(note); // deterministic
    const ext = { ...c, extensions: ["note: sample data"] };
    expect(verifyCheckpoint(signCheckpoint(ext, log.signer), [log.verifier])).toEqual(ext);
  });

  it("fails on tampered origin, size, root, extension or signature", () => {
    const note = signCheckpoint(c, log.signer);
    const root = toB64(c.rootHash);
    const tampered = [
      note.replace("example.com/log\n42", "example.com/log2\n42"),
      note.replace("\n42\n", "\n43\n"),
      note.replace(root, toB64(rootOf("forty-three"))),
      note.replace(`${root}\n`, `${root}\nextra\n`),
    ];
    for (const t of tampered) expect(() => verifyCheckpoint(t, [log.verifier])).toThrow(/invalid signature for key/);
    // A flipped bit in the signature itself (past the 6 base64 characters of the key ID).
    const line = sigLines(note)[0]!;
    const sigStart = line.lastIndexOf(" ") + 1;
    const raw = b64(line.slice(sigStart, -1));
    raw[40]! ^= 0x01;
    const flipped = note.replace(line, line.slice(0, sigStart) + toB64(raw) + "\n");
    expect(() => verifyCheckpoint(flipped, [log.verifier])).toThrow(/invalid signature for key/);
    // A flipped bit in the key ID: the signature now claims an unknown key.
    raw[40]! ^= 0x01;
    raw[0]! ^= 0x01;
    const otherId = note.replace(line, line.slice(0, sigStart) + toB64(raw) + "\n");
    expect(() => verifyCheckpoint(otherId, [log.verifier])).toThrow(/no verifiable signatures/);
  });

  it("ignores unknown signers but fails when no known key signed", () => {
    const stranger = party("stranger.example");
    const note = signNote(formatCheckpoint(c), [stranger.signer, log.signer]);
    expect(openNote(note, [log.verifier]).verifiedBy).toEqual([log.verifier.name]);
    expect(() => verifyCheckpoint(signCheckpoint(c, stranger.signer), [log.verifier])).toThrow(
      /no verifiable signatures/,
    );
    expect(() => verifyCheckpoint(signCheckpoint(c, log.signer), [])).toThrow(/no verifiable signatures/);
    // Same name, other key (e.g. after a rotation): a different key ID, so unknown, not invalid.
    const rotated = { name: log.verifier.name, publicKeyHex: party("x").verifier.publicKeyHex };
    expect(() => verifyCheckpoint(signCheckpoint(c, log.signer), [rotated])).toThrow(/no verifiable signatures/);
    expect(verifyCheckpoint(signCheckpoint(c, log.signer), [rotated, log.verifier])).toEqual(c);
  });

  it("carries two signers, and a bad signature from a known key fails the note", () => {
    const note = signNote(formatCheckpoint(c), [log.signer, witness.signer]);
    expect(sigLines(note)).toHaveLength(2);
    expect(openNote(note, [witness.verifier, log.verifier]).verifiedBy).toEqual([log.signer.name, witness.signer.name]);
    expect(openNote(note, [witness.verifier]).verifiedBy).toEqual([witness.signer.name]);
    // The witness line carries the log's signature bytes: known key, wrong signature.
    const [logLine, witnessLine] = sigLines(note) as [string, string];
    const logRaw = b64(logLine.slice(logLine.lastIndexOf(" ") + 1, -1));
    const witnessRaw = b64(witnessLine.slice(witnessLine.lastIndexOf(" ") + 1, -1));
    witnessRaw.set(logRaw.subarray(4), 4);
    const swapped = note.replace(witnessLine, `— ${witness.signer.name} ${toB64(witnessRaw)}\n`);
    expect(() => openNote(swapped, [log.verifier, witness.verifier])).toThrow(
      /invalid signature for key witness\.example\/w1/,
    );
    expect(openNote(swapped, [log.verifier]).verifiedBy).toEqual([log.signer.name]);
  });

  it("accepts at least 16 signatures (C2SP) and up to 100 (Go)", () => {
    const signers = Array.from({ length: 100 }, (_, i) => party(`w${i}.example`));
    const note = signNote(formatCheckpoint(c), [log.signer, ...signers.slice(0, 99).map((p) => p.signer)]);
    expect(sigLines(note)).toHaveLength(100);
    expect(openNote(note, [log.verifier, signers[15]!.verifier]).verifiedBy).toEqual([log.signer.name, "w15.example"]);
    expect(() => signNote(formatCheckpoint(c), [log.signer, ...signers.map((p) => p.signer)])).toThrow(/at most 100/);
  });

  it("keeps blank lines inside the text: the last blank line separates the signatures", () => {
    const text = "first paragraph\n\nsecond paragraph\n";
    const note = signNote(text, [log.signer]);
    expect(openNote(note, [log.verifier])).toEqual({ text, verifiedBy: [log.signer.name] });
    expect(() => verifyCheckpoint(note, [log.verifier])).toThrow(/malformed checkpoint/);
  });

  it("verifyCheckpoint refuses a validly signed note whose body is not a checkpoint", () => {
    const note = signNote("just some text\n", [log.signer]);
    expect(openNote(note, [log.verifier]).text).toBe("just some text\n");
    expect(() => verifyCheckpoint(note, [log.verifier])).toThrow(/malformed checkpoint/);
  });
});

describe("malformed notes", () => {
  const log = party("example.com/log");
  const c: Checkpoint = { origin: "example.com/log", size: 7, rootHash: rootOf("seven") };
  const note = signCheckpoint(c, log.signer);
  const text = formatCheckpoint(c);
  const line = sigLines(note)[0]!;
  const sig = line.slice(line.lastIndexOf(" ") + 1, -1);

  it.each([
    ["missing blank line", text + line],
    ["no trailing newline", note.slice(0, -1)],
    ["empty signature block", text + "\n"],
    ["hyphen instead of em dash", text + "\n" + line.replace("\u2014", "-")],
    ["no space after the name", text + "\n" + `— example.com/log${sig}\n`],
    ["bad base64", text + "\n" + `— example.com/log ${sig.replace(/.$/, "*")}\n`],
    ["unpadded base64", text + "\n" + `— example.com/log ${sig.replace(/=+$/, "")}\n`],
    [
      "non-canonical base64 (trailing bits)",
      text + "\n" + `— example.com/log ${sig.slice(0, -2)}${sibling(sig.at(-2)!)}=\n`,
    ],
    ["empty base64", text + "\n" + "— example.com/log \n"],
    ["signature under 5 bytes", text + "\n" + `— example.com/log ${toB64(new Uint8Array(4))}\n`],
    ["'+' in the name", text + "\n" + `— example.com+log ${sig}\n`],
    ["space in the name", text + "\n" + `— example.com log ${sig}\n`],
    ["empty name", text + "\n" + `—  ${sig}\n`],
    ["unexpected line after the signatures", note + "trailing\n"],
    ["carriage return", note.replace(/\n$/, "\r\n")],
    ["tab in the text", "a\tb\n\n" + line],
    ["NUL in the text", "a\u0000b\n\n" + line],
    ["lone surrogate", "a\udc00b\n\n" + line],
    ["101 signatures", text + "\n" + line.repeat(101)],
  ])("%s", (_label, bad) => {
    expect(() => openNote(bad, [log.verifier])).toThrow(/malformed note/);
    expect(() => verifyCheckpoint(bad, [log.verifier])).toThrow(/malformed note/);
  });

  it("the well-formed original still opens", () => {
    expect(verifyCheckpoint(note, [log.verifier])).toEqual(c);
  });

  it("signNote refuses text without a final newline, bad names, bad keys, no signers", () => {
    expect(() => signNote("abc", [log.signer])).toThrow(/must end in a newline/);
    expect(() => signNote("a\u0001b\n", [log.signer])).toThrow(/control character/);
    expect(() => signNote("ok\n", [])).toThrow(/at least one signer/);
    for (const name of ["", "a b", "a+b"]) {
      expect(() => signNote("ok\n", [{ ...log.signer, name }])).toThrow(/invalid signer name/);
    }
    expect(() => signNote("ok\n", [{ ...log.signer, secretKeyHex: "00" }])).toThrow(/secret key/);
  });

  it("openNote refuses an invalid verifier rather than silently ignoring it", () => {
    expect(() => openNote(note, [{ name: "bad name", publicKeyHex: log.verifier.publicKeyHex }])).toThrow(
      /invalid key name/,
    );
    expect(() => openNote(note, [{ name: "ok", publicKeyHex: "abcd" }])).toThrow(/32 bytes/);
  });
});

describe("every refusal carries a code", () => {
  const log = party("example.com/log");
  const other = party("example.com/log");
  const c: Checkpoint = { origin: "example.com/log", size: 7, rootHash: rootOf("seven") };
  const note = signCheckpoint(c, log.signer);
  const codeOf = (f: () => unknown): string | undefined => {
    try {
      f();
    } catch (error) {
      expect(error).toBeInstanceOf(NoteError);
      return (error as NoteError).code;
    }
    return undefined;
  };
  const line = sigLines(note)[0]!;

  it("names what was wrong with a note, a checkpoint or a key, never only in words", () => {
    expect(codeOf(() => openNote(note.slice(0, -1), [log.verifier]))).toBe("malformed");
    expect(codeOf(() => openNote(note, [other.verifier]))).toBe("no-known-signature");
    // One bit of the signature's S flipped in a low byte: still a well-formed signature, a wrong one.
    const sigStart = line.lastIndexOf(" ") + 1;
    const raw = b64(line.slice(sigStart, -1));
    raw[40]! ^= 0x01;
    const forged = note.replace(line, line.slice(0, sigStart) + toB64(raw) + "\n");
    expect(codeOf(() => openNote(forged, [log.verifier]))).toBe("bad-signature");
    expect(codeOf(() => verifyCheckpoint(signNote("just text\n", [log.signer]), [log.verifier]))).toBe(
      "checkpoint-malformed",
    );
    expect(codeOf(() => parseVerifierKey("no-plus-signs"))).toBe("key-malformed");
    const vkey = verifierKey(log.verifier.name, log.verifier.publicKeyHex);
    expect(codeOf(() => parseVerifierKey(vkey.replace(/\+[0-9a-f]{8}\+/, "+00000000+")))).toBe("key-malformed");
    expect(codeOf(() => signNote("no newline", [log.signer]))).toBe("invalid-input");
    expect(codeOf(() => formatCheckpoint({ ...c, size: -1 }))).toBe("invalid-input");
    expect(codeOf(() => keyId("ok", "zz"))).toBe("invalid-input");
  });

  it("an unknown algorithm is its own code", () => {
    const pk = Buffer.from(log.verifier.publicKeyHex, "hex");
    const typed = new Uint8Array([0x02, ...pk]);
    const id = sha256(new Uint8Array([...new TextEncoder().encode("n"), 0x0a, ...typed])).subarray(0, 4);
    expect(codeOf(() => parseVerifierKey(`n+${toHex(id)}+${toB64(typed)}`))).toBe("key-unsupported");
  });
});
