import { describe, it, expect } from "vitest";
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { vectorsPath } from "../test/support/vectors.ts";
import { ed25519 } from "@noble/curves/ed25519.js";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { sha256, sha512 } from "@noble/hashes/sha2.js";
import {
  generateKeyPair,
  isValidPublicKey,
  publicKeyFromSecret,
  sign,
  verify,
  type SignatureAlgorithm,
} from "./signature.ts";

// Wycheproof vectors: the verbatim copy in vendor/vectors (see its README and PROVENANCE.tsv).
const WYCHEPROOF = pathToFileURL(vectorsPath("wycheproof") + "/");

type Result = "valid" | "invalid" | "acceptable";
interface WycheproofTest {
  tcId: number;
  comment: string;
  flags: string[];
  msg: string;
  sig: string;
  result: Result;
}
interface WycheproofFile {
  algorithm: string;
  numberOfTests: number;
  testGroups: { publicKey: { pk?: string; uncompressed?: string }; tests: WycheproofTest[] }[];
}

function load(name: string): WycheproofFile {
  return JSON.parse(readFileSync(new URL(name, WYCHEPROOF), "utf8")) as WycheproofFile;
}

const hexBytes = (hex: string): Uint8Array => new Uint8Array(Buffer.from(hex, "hex"));
const toHex = (b: Uint8Array): string => Buffer.from(b).toString("hex");
const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

/** "<result>:<accepted|rejected>" → count, so a summary shows every class at a glance. */
type Tally = Record<string, number>;
function bump(t: Tally, key: string): void {
  t[key] = (t[key] ?? 0) + 1;
}
function expectedTally(file: WycheproofFile): Tally {
  const t: Tally = {};
  for (const g of file.testGroups) for (const c of g.tests) bump(t, c.result);
  return t;
}

// ---------------------------------------------------------------------------------------------
// secp256k1 helpers

const N = secp256k1.Point.Fn.ORDER;
const HALF_N = N >> 1n;

function compress(uncompressedHex: string): string {
  return secp256k1.Point.fromHex(uncompressedHex).toHex(true);
}

/** s of a 64-byte r‖s signature (hex). */
function sOf(compactHex: string): bigint {
  return BigInt("0x" + compactHex.slice(64, 128));
}

/**
 * Strict DER ECDSA-Sig-Value → 64-byte r‖s, or null for anything that is not the one DER spelling:
 * short-form lengths only (a secp256k1 signature is at most 72 bytes), no trailing bytes, positive
 * minimal INTEGERs that fit in 32 bytes. A null counts as a rejected signature.
 */
function derToCompact(der: Uint8Array): string | null {
  if (der.length < 2 || der[0] !== 0x30 || der[1]! >= 0x80 || der[1] !== der.length - 2) return null;
  const out = new Uint8Array(64);
  let pos = 2;
  for (const offset of [0, 32]) {
    if (der[pos] !== 0x02) return null;
    const len = der[pos + 1];
    if (len === undefined || len === 0 || len >= 0x80 || pos + 2 + len > der.length) return null;
    const v = der.subarray(pos + 2, pos + 2 + len);
    if (v[0]! & 0x80) return null; // negative
    if (len > 1 && v[0] === 0 && !(v[1]! & 0x80)) return null; // superfluous leading zero
    const magnitude = len > 1 && v[0] === 0 ? v.subarray(1) : v;
    if (magnitude.length > 32) return null;
    out.set(magnitude, offset + 32 - magnitude.length);
    pos += 2 + len;
  }
  return pos === der.length ? toHex(out) : null;
}

interface SecpCase {
  tcId: number;
  result: Result;
  publicKey: string; // compressed hex
  msg: Uint8Array;
  signature: string | null; // compact hex; null when the DER was malformed
}

function secpCases(file: WycheproofFile, encoding: "der" | "p1363"): SecpCase[] {
  const cases: SecpCase[] = [];
  for (const g of file.testGroups) {
    const publicKey = compress(g.publicKey.uncompressed!);
    for (const t of g.tests) {
      const signature = encoding === "der" ? derToCompact(hexBytes(t.sig)) : t.sig;
      cases.push({ tcId: t.tcId, result: t.result, publicKey, msg: hexBytes(t.msg), signature });
    }
  }
  return cases;
}

const verifySecp = (c: SecpCase): boolean =>
  c.signature !== null && verify("secp256k1", c.publicKey, c.msg, c.signature);

// ---------------------------------------------------------------------------------------------

describe("Wycheproof ed25519_test.json", () => {
  const file = load("ed25519_test.json");

  it("verifies every valid case and rejects every invalid one", () => {
    const tally: Tally = {};
    const wrong: string[] = [];
    for (const g of file.testGroups) {
      for (const t of g.tests) {
        const accepted = verify("ed25519", g.publicKey.pk!, hexBytes(t.msg), t.sig);
        bump(tally, `${t.result}:${accepted ? "accepted" : "rejected"}`);
        // Project rule for any `acceptable` case: strict, so rejected.
        if (accepted !== (t.result === "valid")) wrong.push(`tc ${t.tcId} (${t.result}, ${t.flags.join(",")})`);
      }
    }
    console.log("ed25519_test.json", tally);
    expect(wrong).toEqual([]);
    const want = expectedTally(file);
    expect(tally).toEqual({
      ...(want.valid ? { "valid:accepted": want.valid } : {}),
      ...(want.invalid ? { "invalid:rejected": want.invalid } : {}),
      ...(want.acceptable ? { "acceptable:rejected": want.acceptable } : {}),
    });
    expect((want.valid ?? 0) + (want.invalid ?? 0) + (want.acceptable ?? 0)).toBe(file.numberOfTests);
  });
});

describe("Wycheproof ecdsa_secp256k1_sha256_bitcoin_test.json (the conformance set)", () => {
  const file = load("ecdsa_secp256k1_sha256_bitcoin_test.json");
  const cases = secpCases(file, "der");

  it("verifies every valid case and rejects every invalid one", () => {
    const tally: Tally = {};
    const wrong: number[] = [];
    for (const c of cases) {
      const accepted = verifySecp(c);
      bump(
        tally,
        `${c.result}:${accepted ? "accepted" : c.signature === null ? "rejected (malformed DER)" : "rejected"}`,
      );
      if (accepted !== (c.result === "valid")) wrong.push(c.tcId);
    }
    console.log("ecdsa_secp256k1_sha256_bitcoin_test.json", tally);
    expect(wrong).toEqual([]);
    expect(cases.length).toBe(file.numberOfTests);
    expect(tally["valid:accepted"]).toBe(expectedTally(file).valid);
  });

  it("every valid case is already low-S, so the bitcoin rule and ours agree", () => {
    const valid = cases.filter((c) => c.result === "valid");
    expect(valid.length).toBeGreaterThan(0);
    expect(valid.every((c) => c.signature !== null && sOf(c.signature) <= HALF_N)).toBe(true);
  });
});

describe.each([
  ["ecdsa_secp256k1_sha256_p1363_test.json", "p1363"],
  ["ecdsa_secp256k1_sha256_test.json", "der"],
] as const)("Wycheproof %s", (name, encoding) => {
  const file = load(name);
  const cases = secpCases(file, encoding);
  const invalid = cases.filter((c) => c.result === "invalid");
  const validLowS = cases.filter((c) => c.result === "valid" && sOf(c.signature!) <= HALF_N);
  const validHighS = cases.filter((c) => c.result === "valid" && sOf(c.signature!) > HALF_N);

  it("rejects every invalid case", () => {
    expect(invalid.filter(verifySecp).map((c) => c.tcId)).toEqual([]);
  });

  it("verifies every valid case with S <= n/2", () => {
    expect(validLowS.filter((c) => !verifySecp(c)).map((c) => c.tcId)).toEqual([]);
  });

  it("REJECTS every valid case with S > n/2 (low-S rule), while its low-S twin (r, n - s) verifies", () => {
    expect(validHighS.length).toBeGreaterThan(0);
    expect(validHighS.filter(verifySecp).map((c) => c.tcId)).toEqual([]);
    for (const c of validHighS) {
      const twin = c.signature!.slice(0, 64) + (N - sOf(c.signature!)).toString(16).padStart(64, "0");
      expect(verify("secp256k1", c.publicKey, c.msg, twin), `tc ${c.tcId} twin`).toBe(true);
    }
    const counts = {
      "valid (S <= n/2): accepted": validLowS.length,
      "valid (S > n/2): rejected by the low-S rule": validHighS.length,
      "invalid: rejected": invalid.length,
    };
    console.log(name, counts);
    expect(validLowS.length + validHighS.length + invalid.length).toBe(file.numberOfTests);
    expect(validLowS.length + validHighS.length).toBe(expectedTally(file).valid);
  });
});

// ---------------------------------------------------------------------------------------------

describe("Ed25519 strictness beyond the vectors", () => {
  const P = ed25519.Point;
  const L = P.Fn.ORDER;
  const le = (b: Uint8Array): bigint => BigInt("0x" + toHex(Uint8Array.from(b).reverse()));
  const scalarHex = (n: bigint): string => toHex(hexBytes(n.toString(16).padStart(64, "0")).reverse());
  const challenge = (R: Uint8Array, A: Uint8Array, msg: Uint8Array): bigint =>
    le(sha512(new Uint8Array([...R, ...A, ...msg]))) % L;

  // An order-8 point; its multiples are all 8 torsion points.
  const T8 = P.fromHex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05");
  const torsion = Array.from({ length: 8 }, (_, i) => T8.multiplyUnsafe(BigInt(i)));

  it("RFC 8032 §7.1 TEST 1: seed → public key → signature", () => {
    const seed = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";
    const pk = publicKeyFromSecret("ed25519", seed);
    expect(pk).toBe("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a");
    const sig = sign("ed25519", seed, new Uint8Array(0));
    expect(sig).toBe(
      "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
    );
    expect(verify("ed25519", pk, new Uint8Array(0), sig)).toBe(true);
  });

  it("rejects a non-canonical S (S + L) of a valid signature", () => {
    const { secretKey, publicKey } = generateKeyPair("ed25519");
    const msg = utf8("malleable?");
    const sig = sign("ed25519", secretKey, msg);
    const S = le(hexBytes(sig.slice(64)));
    expect(S + L < 1n << 256n).toBe(true);
    expect(verify("ed25519", publicKey, msg, sig.slice(0, 64) + scalarHex(S + L))).toBe(false);
  });

  it("rejects small-order public keys even when the cofactorless equation holds", () => {
    // R = B, S = 1 gives [S]B = R + [k]A whenever [k]A is the identity: search a message for that.
    const R = P.BASE.toBytes();
    const sig = toHex(R) + scalarHex(1n);
    for (const A of torsion) {
      const pk = A.toBytes();
      let msg = utf8("m0");
      for (let i = 1; !A.multiplyUnsafe(challenge(R, pk, msg)).is0(); i++) msg = utf8(`m${i}`);
      // The signature satisfies the RFC 8032 equation (noble's cofactored ZIP-215 check agrees)…
      expect(ed25519.verify(hexBytes(sig), msg, pk, { zip215: true })).toBe(true);
      // …and is refused only because the key is small-order.
      expect(verify("ed25519", toHex(pk), msg, sig)).toBe(false);
    }
  });

  it("rejects non-canonical public-key encodings (y >= p, or x = 0 with the sign bit set)", () => {
    const R = P.BASE.toBytes();
    const sig = toHex(R) + scalarHex(1n);
    const nonCanonical = [
      "ee" + "ff".repeat(30) + "7f", // y = p + 1: the identity again
      "ed" + "ff".repeat(30) + "7f", // y = p: an order-4 point
      "ed" + "ff".repeat(30) + "ff", // same, sign bit set
      "01" + "00".repeat(30) + "80", // y = 1, x = 0 with sign bit 1
      "ec" + "ff".repeat(30) + "ff", // y = p - 1, x = 0 with sign bit 1
    ];
    for (const pk of nonCanonical) {
      expect(verify("ed25519", pk, utf8("m"), sig), pk).toBe(false);
      expect(verify("ed25519", pk, new Uint8Array(0), sig), pk).toBe(false);
    }
  });

  it("is cofactorless: a mixed-order key verifies only when [k]T is the identity (ZIP-215 would accept all)", () => {
    const a = 0x1234567890abcdefn;
    const r = 0xfedcba0987654321n;
    const A = P.BASE.multiply(a).add(T8).toBytes();
    const R = P.BASE.multiply(r).toBytes();
    const seen = { accepted: 0, rejected: 0 };
    for (let i = 0; i < 64; i++) {
      const msg = utf8(`mixed ${i}`);
      const k = challenge(R, A, msg);
      const sig = toHex(R) + scalarHex((r + k * a) % L);
      expect(ed25519.verify(hexBytes(sig), msg, A, { zip215: true })).toBe(true);
      const ours = verify("ed25519", toHex(A), msg, sig);
      expect(ours).toBe(k % 8n === 0n);
      seen[ours ? "accepted" : "rejected"]++;
    }
    expect(seen.accepted).toBeGreaterThan(0);
    expect(seen.rejected).toBeGreaterThan(0);
  });
});

describe("secp256k1 rules beyond the vectors", () => {
  it("signs low-S only, and the high-S twin of our own signature is rejected", () => {
    const { secretKey, publicKey } = generateKeyPair("secp256k1");
    for (let i = 0; i < 64; i++) {
      const msg = utf8(`low-s ${i}`);
      const sig = sign("secp256k1", secretKey, msg);
      expect(sOf(sig) <= HALF_N).toBe(true);
      expect(verify("secp256k1", publicKey, msg, sig)).toBe(true);
      const highS = sig.slice(0, 64) + (N - sOf(sig)).toString(16).padStart(64, "0");
      expect(verify("secp256k1", publicKey, msg, highS)).toBe(false);
    }
  });

  it("accepts compressed public keys only", () => {
    const { secretKey, publicKey } = generateKeyPair("secp256k1");
    const msg = utf8("compressed only");
    const sig = sign("secp256k1", secretKey, msg);
    const uncompressed = secp256k1.Point.fromHex(publicKey).toHex(false);
    expect(uncompressed).toHaveLength(130);
    expect(verify("secp256k1", publicKey, msg, sig)).toBe(true);
    expect(verify("secp256k1", uncompressed, msg, sig)).toBe(false);
    // Hybrid encoding (06/07 prefix) and a 04-prefixed key cut to 33 bytes.
    expect(verify("secp256k1", "06" + uncompressed.slice(2), msg, sig)).toBe(false);
    expect(verify("secp256k1", "04" + publicKey.slice(2), msg, sig)).toBe(false);
  });

  it("verifies ECDSA over SHA-256 of the message (not the raw message)", () => {
    const { secretKey } = generateKeyPair("secp256k1");
    const msg = utf8("hash me");
    const sig = sign("secp256k1", secretKey, msg);
    const noble = secp256k1.sign(sha256(msg), hexBytes(secretKey), { prehash: false, lowS: true });
    expect(toHex(noble)).toBe(sig);
  });

  it("refuses secret keys outside [1, n-1]", () => {
    expect(() => sign("secp256k1", "00".repeat(32), utf8("x"))).toThrow(/secret key/);
    expect(() => sign("secp256k1", N.toString(16), utf8("x"))).toThrow(/secret key/);
    expect(() => publicKeyFromSecret("secp256k1", "ff".repeat(32))).toThrow(/secret key/);
  });
});

describe.each(["ed25519", "secp256k1"] as const)("%s", (alg: SignatureAlgorithm) => {
  const pkLen = alg === "ed25519" ? 64 : 66;

  it("generates lowercase hex keys that round-trip through publicKeyFromSecret", () => {
    const { publicKey, secretKey } = generateKeyPair(alg);
    expect(secretKey).toMatch(/^[0-9a-f]{64}$/);
    expect(publicKey).toMatch(new RegExp(`^[0-9a-f]{${pkLen}}$`));
    expect(publicKeyFromSecret(alg, secretKey)).toBe(publicKey);
    expect(generateKeyPair(alg).secretKey).not.toBe(secretKey);
  });

  it("round-trips and is deterministic (same key + message → same signature)", () => {
    const { publicKey, secretKey } = generateKeyPair(alg);
    for (const msg of [new Uint8Array(0), utf8("hello"), new Uint8Array(10_000).fill(7)]) {
      const sig = sign(alg, secretKey, msg);
      expect(sig).toMatch(/^[0-9a-f]{128}$/);
      expect(sign(alg, secretKey, msg)).toBe(sig);
      expect(verify(alg, publicKey, msg, sig)).toBe(true);
    }
    expect(sign(alg, secretKey, utf8("a"))).not.toBe(sign(alg, secretKey, utf8("b")));
  });

  it("fails on any flipped bit in message, signature or public key", () => {
    const { publicKey, secretKey } = generateKeyPair(alg);
    const msg = utf8("flip me");
    const sig = sign(alg, secretKey, msg);
    const flip = (hex: string, bit: number): string => {
      const b = hexBytes(hex);
      b[bit >> 3]! ^= 1 << (bit & 7);
      return toHex(b);
    };
    for (let bit = 0; bit < msg.length * 8; bit++) {
      expect(verify(alg, publicKey, hexBytes(flip(toHex(msg), bit)), sig)).toBe(false);
    }
    for (let bit = 0; bit < 512; bit++) expect(verify(alg, publicKey, msg, flip(sig, bit))).toBe(false);
    for (let bit = 0; bit < (pkLen / 2) * 8; bit++) expect(verify(alg, flip(publicKey, bit), msg, sig)).toBe(false);
    expect(verify(alg, publicKey, msg, sig)).toBe(true);
  });

  it("returns false without throwing on malformed hex, lengths and types", () => {
    const { publicKey, secretKey } = generateKeyPair(alg);
    const msg = utf8("malformed");
    const sig = sign(alg, secretKey, msg);
    const bad: [string, unknown, unknown, unknown][] = [
      ["uppercase signature", publicKey, msg, sig.toUpperCase()],
      ["uppercase key", publicKey.toUpperCase(), msg, sig],
      ["odd-length signature", publicKey, msg, sig.slice(0, 127)],
      ["odd-length key", publicKey.slice(0, -1), msg, sig],
      ["short signature", publicKey, msg, sig.slice(0, 126)],
      ["long signature", publicKey, msg, sig + "00"],
      ["short key", publicKey.slice(0, -2), msg, sig],
      ["long key", publicKey + "00", msg, sig],
      ["non-hex signature", publicKey, msg, "zz" + sig.slice(2)],
      ["non-hex key", "g" + publicKey.slice(1), msg, sig],
      ["0x prefix", "0x" + publicKey.slice(2), msg, sig],
      ["empty", "", msg, ""],
      ["number key", 42, msg, sig],
      ["undefined signature", publicKey, msg, undefined],
      ["string message", publicKey, "malformed", sig],
      ["null message", publicKey, null, sig],
    ];
    for (const [label, pk, m, s] of bad) {
      expect(() => verify(alg, pk as string, m as Uint8Array, s as string), label).not.toThrow();
      expect(verify(alg, pk as string, m as Uint8Array, s as string), label).toBe(false);
    }
    expect(verify("rsa" as SignatureAlgorithm, publicKey, msg, sig)).toBe(false);
    expect(verify(alg, publicKey, msg, sig)).toBe(true);
  });

  it("throws a clear Error on a bad secret key", () => {
    const msg = utf8("x");
    for (const sk of ["", "00", "ab".repeat(31), "AB".repeat(32), "xy".repeat(32), "ab".repeat(33)]) {
      expect(() => sign(alg, sk, msg)).toThrow(/secret key must be 64 lowercase hex/);
      expect(() => publicKeyFromSecret(alg, sk)).toThrow(/secret key must be 64 lowercase hex/);
    }
    expect(() => sign("rsa" as SignatureAlgorithm, "ab".repeat(32), msg)).toThrow(/unknown signature algorithm/);
  });

  it("keeps verifying correctly when the key cache churns (more keys than it holds)", () => {
    const keys = Array.from({ length: alg === "ed25519" ? 1100 : 4 }, () => generateKeyPair(alg));
    const msg = utf8("churn");
    const sigs = keys.map((k) => sign(alg, k.secretKey, msg));
    for (let round = 0; round < 2; round++) {
      keys.forEach((k, i) => {
        expect(verify(alg, k.publicKey, msg, sigs[i]!)).toBe(true);
        expect(verify(alg, k.publicKey, msg, sigs[(i + 1) % keys.length]!)).toBe(false);
      });
    }
  });
});

describe("isValidPublicKey (for registering keys)", () => {
  it("accepts generated keys of both algorithms, and only under their own algorithm", () => {
    for (const alg of ["ed25519", "secp256k1"] as const) {
      const { publicKey } = generateKeyPair(alg);
      expect(isValidPublicKey(alg, publicKey)).toBe(true);
      expect(isValidPublicKey(alg === "ed25519" ? "secp256k1" : "ed25519", publicKey)).toBe(false);
    }
  });

  it("refuses Ed25519 encodings that are off the curve, non-canonical or of small order", () => {
    expect(isValidPublicKey("ed25519", `02${"00".repeat(31)}`)).toBe(false); // y = 2: no x on the curve
    expect(isValidPublicKey("ed25519", `01${"00".repeat(31)}`)).toBe(false); // the identity
    expect(isValidPublicKey("ed25519", `ee${"ff".repeat(30)}7f`)).toBe(false); // y = p + 1 spelled out
    expect(isValidPublicKey("ed25519", "AB".repeat(32))).toBe(false);
    expect(isValidPublicKey("ed25519", "ab".repeat(31))).toBe(false);
  });

  it("refuses secp256k1 keys off the curve, uncompressed or mis-prefixed", () => {
    const { publicKey } = generateKeyPair("secp256k1");
    expect(isValidPublicKey("secp256k1", `02${"00".repeat(32)}`)).toBe(false);
    expect(isValidPublicKey("secp256k1", `04${publicKey.slice(2)}`)).toBe(false);
    const uncompressed = Buffer.from(secp256k1.Point.fromHex(publicKey).toBytes(false)).toString("hex");
    expect(isValidPublicKey("secp256k1", uncompressed)).toBe(false);
  });
});
