/**
 * Signatures: Ed25519 (RFC 8032, strict: no ZIP-215 leniency, small-order keys refused; on
 * node:crypto with imported keys cached) and ECDSA over secp256k1 with SHA-256 (low S only,
 * compressed keys, RFC 6979). Keys and signatures are lowercase hex, one spelling per value.
 * `verify` never throws — anything malformed is not a valid signature; `sign` and
 * `publicKeyFromSecret` throw on a bad secret key. The rules: README "The integrity primitives".
 */
import {
  createPrivateKey,
  createPublicKey,
  randomBytes,
  sign as cryptoSign,
  verify as cryptoVerify,
  type KeyObject,
} from "node:crypto";
import { ed25519 } from "@noble/curves/ed25519.js";
import { secp256k1 } from "@noble/curves/secp256k1.js";

export type SignatureAlgorithm = "ed25519" | "secp256k1";

const HEX = /^[0-9a-f]*$/;

// Fixed DER headers: wrapping the raw 32 bytes is cheaper than a JWK (no base64url round trip).
const ED25519_SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex"); // SubjectPublicKeyInfo
const ED25519_PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex"); // PrivateKeyInfo

const SECP_SIGN_OPTS = { prehash: true, lowS: true, format: "compact", extraEntropy: false } as const;
const SECP_VERIFY_OPTS = { prehash: true, lowS: true, format: "compact" } as const;

/** A fresh key pair from the OS CSPRNG: the one function here that reads randomness. */
export function generateKeyPair(alg: SignatureAlgorithm): { publicKey: string; secretKey: string } {
  const secretKey =
    alg === "ed25519"
      ? randomBytes(32).toString("hex")
      : alg === "secp256k1"
        ? hex(secp256k1.utils.randomSecretKey())
        : unknownAlgorithm(alg);
  return { publicKey: publicKeyFromSecret(alg, secretKey), secretKey };
}

/** The public key (hex) of a secret key: Ed25519 32 bytes, secp256k1 33 bytes compressed. */
export function publicKeyFromSecret(alg: SignatureAlgorithm, secretKeyHex: string): string {
  if (alg === "ed25519") return ed25519Secret(secretKeyHex).publicKeyHex;
  if (alg === "secp256k1") return hex(secp256k1.getPublicKey(secp256k1SecretKey(secretKeyHex), true));
  return unknownAlgorithm(alg);
}

/** Signs `message`; returns the 64-byte signature as hex. Deterministic for both algorithms. */
export function sign(alg: SignatureAlgorithm, secretKeyHex: string, message: Uint8Array): string {
  if (!(message instanceof Uint8Array)) throw new Error("message must be a Uint8Array");
  if (alg === "ed25519") return cryptoSign(null, message, ed25519Secret(secretKeyHex).key).toString("hex");
  if (alg === "secp256k1") return hex(secp256k1.sign(message, secp256k1SecretKey(secretKeyHex), SECP_SIGN_OPTS));
  return unknownAlgorithm(alg);
}

/** True only for a valid signature under the rules above; false (never a throw) for anything else. */
export function verify(
  alg: SignatureAlgorithm,
  publicKeyHex: string,
  message: Uint8Array,
  signatureHex: string,
): boolean {
  try {
    if (!(message instanceof Uint8Array) || typeof signatureHex !== "string") return false;
    if (signatureHex.length !== 128 || !HEX.test(signatureHex)) return false;
    if (alg === "ed25519") {
      const key = ed25519PublicKey(publicKeyHex);
      return key !== undefined && cryptoVerify(null, message, key, Buffer.from(signatureHex, "hex"));
    }
    if (alg === "secp256k1") return verifySecp256k1(publicKeyHex, message, signatureHex);
    return false;
  } catch {
    return false;
  }
}

/**
 * True when `publicKeyHex` is a key `verify` can accept signatures under: Ed25519, a canonical
 * encoding of a curve point that is not of small order; secp256k1, a compressed point on the curve.
 * For registering keys: OpenSSL imports an Ed25519 key without decoding the point.
 */
export function isValidPublicKey(alg: SignatureAlgorithm, publicKeyHex: string): boolean {
  try {
    if (typeof publicKeyHex !== "string" || !HEX.test(publicKeyHex)) return false;
    if (alg === "ed25519") {
      if (publicKeyHex.length !== 64) return false;
      const pk = bytes(publicKeyHex);
      if (!isCanonicalY(pk) || isSmallOrderY(pk)) return false;
      ed25519.Point.fromHex(publicKeyHex, false);
      return true;
    }
    if (alg === "secp256k1") {
      if (publicKeyHex.length !== 66 || publicKeyHex[0] !== "0" || (publicKeyHex[1] !== "2" && publicKeyHex[1] !== "3"))
        return false;
      secp256k1.Point.fromHex(publicKeyHex);
      return true;
    }
    return false;
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Ed25519

// Bounded LRU of imported public keys (Map iteration order = insertion order, oldest first).
const KEY_CACHE_MAX = 1024;
const keyCache = new Map<string, KeyObject>();
// The last key used: the common case (one log key, many verifies) skips the LRU bookkeeping.
let lastKeyHex = "";
let lastKey: KeyObject | undefined;

function ed25519PublicKey(publicKeyHex: string): KeyObject | undefined {
  if (publicKeyHex === lastKeyHex) return lastKey;
  let key = keyCache.get(publicKeyHex);
  if (key !== undefined) {
    keyCache.delete(publicKeyHex); // move to the young end
  } else {
    key = importEd25519PublicKey(publicKeyHex);
    if (key === undefined) return undefined; // invalid keys are not cached: nothing to gain
    if (keyCache.size >= KEY_CACHE_MAX) {
      const oldest = keyCache.keys().next();
      if (!oldest.done) keyCache.delete(oldest.value);
    }
  }
  keyCache.set(publicKeyHex, key);
  lastKeyHex = publicKeyHex;
  lastKey = key;
  return key;
}

function importEd25519PublicKey(publicKeyHex: string): KeyObject | undefined {
  if (typeof publicKeyHex !== "string" || publicKeyHex.length !== 64 || !HEX.test(publicKeyHex)) return undefined;
  const pk = Buffer.from(publicKeyHex, "hex");
  if (!isCanonicalY(pk) || isSmallOrderY(pk)) return undefined;
  return createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, pk]), format: "der", type: "spki" });
}

// What OpenSSL already enforces, measured against the Wycheproof vectors and hand-made cases
// (core/signature.test.ts): S < L, and a non-canonical R never verifies (it compares the canonical
// encoding of the computed R with the R bytes). Two checks below are added on the public key.

/**
 * RFC 8032 §5.1.3: decoding fails when y >= p. OpenSSL's decoder reduces y mod p instead, so it
 * would accept the 19 non-canonical spellings y + p (y < 19). Checked here, once per cached key.
 */
function isCanonicalY(pk: Uint8Array): boolean {
  // p = 2^255 - 19: little-endian ed ff … ff 7f. y >= p iff bytes 1..31 are maximal and byte 0 >= 0xed.
  if ((pk[31]! & 0x7f) !== 0x7f) return true;
  for (let i = 30; i >= 1; i--) if (pk[i] !== 0xff) return true;
  return pk[0]! < 0xed;
}

// y of every point of order 1, 2, 4 and 8 (little-endian, sign bit clear): identity y = 1,
// (0, -1) y = p - 1, (±√-1, 0) y = 0, and the four order-8 points y = ±y8.
const SMALL_ORDER_Y = new Set([
  "0000000000000000000000000000000000000000000000000000000000000000",
  "0100000000000000000000000000000000000000000000000000000000000000",
  "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
  "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
  "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
]);

/**
 * A small-order public key is the identity up to torsion: a signature under it says nothing about
 * who signed. RFC 8032 does not forbid it, but OpenSSL 3.5 (Node 24) already refuses these keys;
 * the explicit check keeps the rule independent of the OpenSSL build. Comparing y with the sign bit
 * masked also covers the invalid "x = 0 with sign bit 1" spellings of y = ±1.
 */
function isSmallOrderY(pk: Uint8Array): boolean {
  const y = Buffer.from(pk);
  y[31] = pk[31]! & 0x7f;
  return SMALL_ORDER_Y.has(y.toString("hex"));
}

// The last secret key used, imported: a signer (the ledger's checkpoint key) signs with one key many times.
let lastSecretHex = "";
let lastSecret: { key: KeyObject; publicKeyHex: string } | undefined;

function ed25519Secret(secretKeyHex: string): { key: KeyObject; publicKeyHex: string } {
  if (secretKeyHex === lastSecretHex && lastSecret) return lastSecret;
  const seed = secretBytes(secretKeyHex, "ed25519");
  const key = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: "der", type: "pkcs8" });
  const spki = createPublicKey(key).export({ type: "spki", format: "der" });
  lastSecret = { key, publicKeyHex: spki.subarray(ED25519_SPKI_PREFIX.length).toString("hex") };
  lastSecretHex = secretKeyHex;
  return lastSecret;
}

// ---------------------------------------------------------------------------------------------
// secp256k1

function verifySecp256k1(publicKeyHex: string, message: Uint8Array, signatureHex: string): boolean {
  // Compressed only: 02/03 prefix, 33 bytes. Uncompressed or hybrid keys are a second spelling.
  if (typeof publicKeyHex !== "string" || publicKeyHex.length !== 66 || !HEX.test(publicKeyHex)) return false;
  if (publicKeyHex[0] !== "0" || (publicKeyHex[1] !== "2" && publicKeyHex[1] !== "3")) return false;
  // lowS: s > n/2 is refused (n is odd: s > floor(n/2)); set explicitly, not left to noble's default.
  return secp256k1.verify(bytes(signatureHex), message, bytes(publicKeyHex), SECP_VERIFY_OPTS);
}

function secp256k1SecretKey(secretKeyHex: string): Uint8Array {
  const d = secretBytes(secretKeyHex, "secp256k1");
  if (!secp256k1.utils.isValidSecretKey(d)) throw new Error("secp256k1 secret key must be in [1, n-1]");
  return d;
}

// ---------------------------------------------------------------------------------------------
// helpers

function secretBytes(secretKeyHex: string, alg: SignatureAlgorithm): Uint8Array {
  if (typeof secretKeyHex !== "string" || secretKeyHex.length !== 64 || !HEX.test(secretKeyHex)) {
    throw new Error(`${alg} secret key must be 64 lowercase hex characters (32 bytes)`);
  }
  return bytes(secretKeyHex);
}

/** Hex already validated by the caller. A plain Uint8Array view of a Buffer: no copy. */
function bytes(validHex: string): Uint8Array {
  const b = Buffer.from(validHex, "hex");
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}

function hex(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex");
}

function unknownAlgorithm(alg: never): never {
  throw new Error(`unknown signature algorithm ${JSON.stringify(alg)}`);
}
