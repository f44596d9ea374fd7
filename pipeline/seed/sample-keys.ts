/**
 * SAMPLE KEYS. Every key the simulator signs with is derived from the public seed string:
 *
 *   secret seed = SHA-256("sample-key:" + seed + ":" + owner id)      (32 bytes, hex)
 *
 * where the owner id is a sentinel id (ATLAS, …), `identity:<k>` for the k-th AVM identity,
 * `companion:<id>` for an AVM companion or `stranger:<n>` for an unregistered wallet. Anyone who knows
 * the seed (it is recorded in the ledger's first event, `sample.generated`) can recompute these
 * secret keys, so a signature by them proves nothing about real activity: they exist so that the
 * sample ledger exercises the same verification code paths as a real one. Never reuse them.
 */
import { createPrivateKey, sign as cryptoSign, type KeyObject } from "node:crypto";
import { sampleSecretKey } from "../../core/sample-key.ts";
import { publicKeyFromSecret, sign, type SignatureAlgorithm } from "../../core/signature.ts";

// The derivation is core's: the API reference's examples sign with the same keys.
export { sampleSecretKey };

// RFC 8410 PrivateKeyInfo header for a raw Ed25519 seed (as in core/signature.ts).
const ED25519_PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

export interface SampleSigner {
  owner: string;
  algorithm: SignatureAlgorithm;
  publicKey: string;
  /** Signs the message bytes; lowercase hex, 64 bytes. */
  sign(message: Uint8Array): string;
}

/**
 * A signer for an owner's sample key. Ed25519 keeps its imported `KeyObject`, so repeated signing
 * skips the key import (the simulator signs hundreds of thousands of messages at --size 1000000);
 * the signature is the same RFC 8032 signature core/signature.ts makes, and tests verify it there.
 */
export function sampleSigner(seed: string, owner: string, algorithm: SignatureAlgorithm = "ed25519"): SampleSigner {
  const secret = sampleSecretKey(seed, owner);
  const publicKey = publicKeyFromSecret(algorithm, secret);
  if (algorithm === "ed25519") {
    const key: KeyObject = createPrivateKey({
      key: Buffer.concat([ED25519_PKCS8_PREFIX, Buffer.from(secret, "hex")]),
      format: "der",
      type: "pkcs8",
    });
    return { owner, algorithm, publicKey, sign: (message) => cryptoSign(null, message, key).toString("hex") };
  }
  return { owner, algorithm, publicKey, sign: (message) => sign(algorithm, secret, message) };
}
