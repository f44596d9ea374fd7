/**
 * The signed-message forms of authority verification. They are fixed so that any client can sign:
 *
 * - Attestation hash `A` = `sha256:` + hex of the JCS of the whole `companion_attestation` as sent
 *   (its signature and co-signature included).
 * - Wallet message: the UTF-8 bytes of the JCS of
 *   `{"attestation_hash": A, "ledger_id": L, "requested_scopes": S}`, S exactly as sent; signed by
 *   the identity's registered key (Ed25519, or secp256k1 with 64-byte r‖s and low S).
 * - Companion signature: over the JCS of the attestation without `signature`.
 * - Co-signature (the additional attestation): over the JCS of the attestation without `signature`
 *   and without `cosignature`; the companion signs after it, so its signature covers it.
 *
 * The `sign…` helpers are what a wallet or companion does; the seed and the tests use them.
 */
import { canonicalBytes } from "../canonical.ts";
import { digestOf } from "../digest.ts";
import type { CompanionAttestation, CompanionCosignature } from "../schemas/avm.ts";
import { publicKeyFromSecret, sign, type SignatureAlgorithm } from "../signature.ts";

/** A: the attestation hash the wallet signs and the grant records. */
export function attestationHash(attestation: unknown): string {
  return digestOf(attestation);
}

/** The bytes the identity's key signs for POST /avm/verify. */
export function walletMessage(
  attestationHashA: string,
  ledgerId: string,
  requestedScopes: readonly string[],
): Uint8Array {
  return canonicalBytes({ attestation_hash: attestationHashA, ledger_id: ledgerId, requested_scopes: requestedScopes });
}

/** The bytes the issuing companion signs: the attestation without `signature`. */
export function attestationSigningBytes(attestation: Readonly<Record<string, unknown>>): Uint8Array {
  const { signature: _signature, ...body } = attestation;
  return canonicalBytes(body);
}

/** The bytes a co-signing companion signs: the attestation without `signature` and `cosignature`. */
export function cosignatureSigningBytes(attestation: Readonly<Record<string, unknown>>): Uint8Array {
  const { signature: _signature, cosignature: _cosignature, ...body } = attestation;
  return canonicalBytes(body);
}

/** What a verify request's signatures cover, derived from the request alone. */
export interface SignedForms {
  /** A, the attestation hash. */
  attestationHash: string;
  /** What the wallet signs. */
  wallet: Uint8Array;
  /** What the issuing companion signs. */
  attestation: Uint8Array;
  /** What the co-signer signs, when the attestation has a `cosignature`. */
  cosignature: Uint8Array | null;
}

/** The signed forms of a request whose attestation RFC 8785 can encode (computed once, shared by every check). */
export function signedForms(request: {
  ledger_id: string;
  requested_scopes: readonly string[];
  companion_attestation: Readonly<Record<string, unknown>>;
}): SignedForms {
  const att = request.companion_attestation;
  const A = attestationHash(att);
  return {
    attestationHash: A,
    wallet: walletMessage(A, request.ledger_id, request.requested_scopes),
    attestation: attestationSigningBytes(att),
    cosignature: "cosignature" in att ? cosignatureSigningBytes(att) : null,
  };
}

export interface Signer {
  algorithm: SignatureAlgorithm;
  secretKeyHex: string;
}

/** What a companion attests before signing. */
export type AttestationFields = Omit<CompanionAttestation, "algorithm" | "public_key" | "signature" | "cosignature">;

/**
 * A signed attestation: `companion` signs; with `cosigner`, a second companion co-signs first
 * (the additional attestation an admin grant needs).
 */
export function signAttestation(
  fields: AttestationFields,
  companion: Signer,
  cosigner?: Signer & { companion_id: string },
): CompanionAttestation {
  const unsigned: Omit<CompanionAttestation, "signature"> = {
    ...fields,
    algorithm: companion.algorithm,
    public_key: publicKeyFromSecret(companion.algorithm, companion.secretKeyHex),
  };
  if (cosigner) {
    const cosignature: CompanionCosignature = {
      companion_id: cosigner.companion_id,
      algorithm: cosigner.algorithm,
      public_key: publicKeyFromSecret(cosigner.algorithm, cosigner.secretKeyHex),
      signature: sign(cosigner.algorithm, cosigner.secretKeyHex, cosignatureSigningBytes(unsigned)),
    };
    unsigned.cosignature = cosignature;
  }
  return {
    ...unsigned,
    signature: sign(companion.algorithm, companion.secretKeyHex, attestationSigningBytes(unsigned)),
  };
}

/** The wallet signature of a verify request. */
export function signWalletMessage(
  wallet: Signer,
  ledgerId: string,
  attestation: unknown,
  requestedScopes: readonly string[],
): string {
  return sign(
    wallet.algorithm,
    wallet.secretKeyHex,
    walletMessage(attestationHash(attestation), ledgerId, requestedScopes),
  );
}
