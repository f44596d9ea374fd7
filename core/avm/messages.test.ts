import { ed25519 } from "@noble/curves/ed25519.js";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { fromHex } from "../digest.ts";
import { publicKeyFromSecret } from "../signature.ts";
import {
  attestationHash,
  attestationSigningBytes,
  cosignatureSigningBytes,
  signAttestation,
  signWalletMessage,
  walletMessage,
} from "./messages.ts";

/**
 * Vectors of the signed-message forms: a fixed companion key (RFC 8032 test 1's seed), fixed wallet
 * keys, a fixed attestation → fixed bytes, hashes and signatures. The expected texts are written
 * out by hand (keys sorted, no spaces), the hashes are recomputed with node:crypto from those
 * texts, and the signatures are checked with noble as an independent verifier.
 */
const COMPANION_SEED = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";
const LEDGER_ID = "3f1c2a9e-5b7d-4c1e-9a2b-6d8e0f4a1b2c";
const SCOPES = ["api.read", "api.deploy.staging"];
const FIELDS = {
  companion_id: "companion-athena",
  subject: LEDGER_ID,
  scopes: SCOPES as ("api.read" | "api.deploy.staging")[],
  ej_hash: `sha256:${"a3".repeat(32)}`,
  risk_level: "medium" as const,
  issued_at: "2026-01-01T00:00:00Z",
  expires_at: "2026-03-01T00:00:00Z",
};

const VECTORS = {
  ed25519: {
    walletSeed: "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
    walletPublicKey: "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
    companionPublicKey: "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
    companionSignature:
      "12cd57d47b634dc02ac78fd7b357b30ebc25c9c3e436a6beaa7ccb5b68e5cb906b6e7a9163b925d71a5c1eafe2a004c8a4ce57d3350c10b771add3a9f5357601",
    A: "sha256:b6bdd2ba1df25b99708ca05887229c8747ecc0b56c764b304addb513e13f2456",
    walletSignature:
      "e0f1f61ba21307cdb13cabcacd770960fb6a485817c7c4b73e542502d47b0d79759c4861600642906bf03e8b6fcf47ee9e2789b62825e4e84e42dc33083c1f06",
  },
  secp256k1: {
    walletSeed: "c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721",
    walletPublicKey: "032c8c31fc9f990c6b55e3865a184a4ce50e09481f2eaeb3e60ec1cea13a6ae645",
    companionPublicKey: "028db55b05db86c0b1786ca49f095d76344c9e6056b2f02701a7e7f3c20aabfd91",
    companionSignature:
      "3ec4d656a22a51105fab3e13ca040b925bc1f0956e3c364b44fcb091486846a43d280d2cd3eb149ceffbe9a8cdfff1e6a01aa829c19f9c29549ecd412300d4e7",
    A: "sha256:dced91e2c3a52e5aa113d46121162c5667d76ac7fd62939893a9c5484e4c2afe",
    walletSignature:
      "3eaa117ed1f1b82c947515a444ccd102c93276da5bfc8befe1df4d8cc0221e2212522864eebc98f5fd268e33b0af4005c4bcf44f5964a5cc0f96854337bafef3",
  },
} as const;

const utf8 = (b: Uint8Array) => Buffer.from(b).toString("utf8");
const sha256 = (text: string) => `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`;

function independentVerify(
  alg: "ed25519" | "secp256k1",
  publicKey: string,
  message: string,
  signature: string,
): boolean {
  const msg = new TextEncoder().encode(message);
  return alg === "ed25519"
    ? ed25519.verify(fromHex(signature), msg, fromHex(publicKey))
    : secp256k1.verify(fromHex(signature), msg, fromHex(publicKey), { prehash: true, lowS: true, format: "compact" });
}

describe.each(["ed25519", "secp256k1"] as const)("signed-message vectors, %s", (alg) => {
  const v = VECTORS[alg];
  const attestation = signAttestation(FIELDS, { algorithm: alg, secretKeyHex: COMPANION_SEED });
  const companionMessage =
    `{"algorithm":"${alg}","companion_id":"companion-athena","ej_hash":"sha256:${"a3".repeat(32)}",` +
    `"expires_at":"2026-03-01T00:00:00Z","issued_at":"2026-01-01T00:00:00Z","public_key":"${v.companionPublicKey}",` +
    `"risk_level":"medium","scopes":["api.read","api.deploy.staging"],"subject":"${LEDGER_ID}"}`;
  // The whole attestation: JCS puts "signature" between "scopes" and "subject".
  const wholeAttestation = companionMessage.replace(`,"subject":`, `,"signature":"${v.companionSignature}","subject":`);
  const wallet = `{"attestation_hash":"${v.A}","ledger_id":"${LEDGER_ID}","requested_scopes":["api.read","api.deploy.staging"]}`;

  it("the companion signs the JCS of the attestation without `signature`", () => {
    expect(attestation.public_key).toBe(v.companionPublicKey);
    expect(utf8(attestationSigningBytes(attestation))).toBe(companionMessage);
    expect(attestation.signature).toBe(v.companionSignature);
    expect(independentVerify(alg, v.companionPublicKey, companionMessage, v.companionSignature)).toBe(true);
  });

  it("A is sha256 of the JCS of the whole attestation, signature included", () => {
    expect(attestationHash(attestation)).toBe(v.A);
    expect(sha256(wholeAttestation)).toBe(v.A);
  });

  it("the wallet signs the JCS of {attestation_hash, ledger_id, requested_scopes}", () => {
    expect(publicKeyFromSecret(alg, v.walletSeed)).toBe(v.walletPublicKey);
    expect(utf8(walletMessage(v.A, LEDGER_ID, SCOPES))).toBe(wallet);
    const signature = signWalletMessage({ algorithm: alg, secretKeyHex: v.walletSeed }, LEDGER_ID, attestation, SCOPES);
    expect(signature).toBe(v.walletSignature);
    expect(independentVerify(alg, v.walletPublicKey, wallet, signature)).toBe(true);
  });
});

describe("the co-signature (additional attestation)", () => {
  it("covers the attestation without `signature` and `cosignature`; the companion's signature covers the co-signature", () => {
    const cosigner = {
      algorithm: "secp256k1" as const,
      secretKeyHex: VECTORS.secp256k1.walletSeed,
      companion_id: "companion-hermes",
    };
    const companion = { algorithm: "ed25519" as const, secretKeyHex: COMPANION_SEED };
    const att = signAttestation(FIELDS, companion, cosigner);
    const plain = signAttestation(FIELDS, companion);
    const { signature: _s, ...unsignedPlain } = plain;
    expect(utf8(cosignatureSigningBytes(att))).toBe(utf8(attestationSigningBytes(unsignedPlain)));
    expect(
      independentVerify(
        "secp256k1",
        VECTORS.secp256k1.walletPublicKey,
        utf8(cosignatureSigningBytes(att)),
        att.cosignature!.signature,
      ),
    ).toBe(true);
    expect(utf8(attestationSigningBytes(att))).toContain(
      `"cosignature":{"algorithm":"secp256k1","companion_id":"companion-hermes"`,
    );
    expect(
      independentVerify(
        "ed25519",
        VECTORS.ed25519.companionPublicKey,
        utf8(attestationSigningBytes(att)),
        att.signature,
      ),
    ).toBe(true);
    expect(att.signature).not.toBe(plain.signature);
  });
});
