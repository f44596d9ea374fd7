/**
 * Shared by the AVM tests and benchmark: fixed keys from labels, and a scenario that writes AVM
 * events into a registry the way the ledger would (in order, one seq each) and builds signed
 * verify requests.
 */
import { sha256Hex } from "../../../../core/digest.ts";
import type { JsonObject, LedgerEntry } from "../../../../core/ledger/entry.ts";
import type { NewEvent } from "../../../../core/ledger/store.ts";
import type { AvmVerifyRequest, CompanionAttestation, RiskLevel, Role, Scope } from "../../../../core/schemas/avm.ts";
import { publicKeyFromSecret, type SignatureAlgorithm } from "../../../../core/signature.ts";
import {
  signAttestation,
  signWalletMessage,
  type AttestationFields,
  type Signer,
} from "../../../../core/avm/messages.ts";
import { ledgerIdForKey } from "../../../../core/avm/operations.ts";
import { avmRegistry, type AvmRegistry } from "../../../../core/avm/registry.ts";

export const NOW = Date.parse("2026-01-10T12:00:00.000Z");
export const DAY = 86_400_000;
export const MIC = 1_000_000n;
export const EJ_HASH = `sha256:${sha256Hex("ethics justification")}`;

/** A fixed secret key per label (SHA-256 of the label: a valid key for both algorithms). */
export function signerFor(label: string, algorithm: SignatureAlgorithm = "ed25519"): Signer {
  return { algorithm, secretKeyHex: sha256Hex(`avm-test/${label}`) };
}

const publicKeys = new Map<string, string>();

/** The public key of a test signer (memoized: secp256k1 key derivation is slow in pure JS). */
export function publicKeyOf(signer: Signer): string {
  const id = `${signer.algorithm}:${signer.secretKeyHex}`;
  let pk = publicKeys.get(id);
  if (pk === undefined) {
    pk = publicKeyFromSecret(signer.algorithm, signer.secretKeyHex);
    publicKeys.set(id, pk);
  }
  return pk;
}

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

export interface TestIdentity {
  ledger_id: string;
  wallet: Signer;
}

export interface IdentityOptions {
  algorithm?: SignatureAlgorithm;
  role?: Role;
  reputation?: number;
  /** Bonded stake in MIC (0 for none). */
  stakeMic?: bigint;
  acceptSlashing?: boolean;
}

export class Scenario {
  readonly registry: AvmRegistry = avmRegistry.initial();
  readonly entries: LedgerEntry[] = [];

  /** Applies events as the next ledger entries. */
  apply(...events: NewEvent[]): this {
    for (const event of events) {
      const entry: LedgerEntry = {
        seq: this.entries.length,
        type: event.type,
        payload: event.payload,
        ts: iso(NOW),
        prev: null,
        hash: `sha256:${"0".repeat(64)}`,
      };
      this.entries.push(entry);
      avmRegistry.apply(this.registry, entry);
    }
    return this;
  }

  event(type: string, payload: object): this {
    return this.apply({ type, payload: payload as JsonObject });
  }

  identity(label: string, options: IdentityOptions = {}): TestIdentity {
    const wallet = signerFor(`identity/${label}`, options.algorithm ?? "ed25519");
    const public_key = publicKeyOf(wallet);
    const ledger_id = ledgerIdForKey(wallet.algorithm, public_key);
    this.event("identity.registered", {
      ledger_id,
      algorithm: wallet.algorithm,
      public_key,
      role: options.role ?? "deployer",
      reputation: options.reputation ?? 0.95,
    });
    const stake = options.stakeMic ?? 20_000n;
    if (stake > 0n) {
      this.event("stake.locked", {
        ledger_id,
        amount_shards: (stake * MIC).toString(),
        slashing_conditions_accepted: options.acceptSlashing ?? true,
      });
    }
    return { ledger_id, wallet };
  }

  companion(companion_id: string, algorithm: SignatureAlgorithm = "ed25519"): Signer & { companion_id: string } {
    const key = signerFor(`companion/${companion_id}`, algorithm);
    this.event("companion.registered", { companion_id, algorithm, public_key: publicKeyOf(key) });
    return { ...key, companion_id };
  }
}

export interface AttestationOptions {
  scopes?: Scope[];
  risk_level?: RiskLevel;
  issuedAt?: number;
  expiresAt?: number;
  ej_hash?: string;
  subject?: string;
  cosigner?: Signer & { companion_id: string };
  /** The instant the defaults are counted from (default NOW). */
  now?: number;
}

export function attest(
  companion: Signer & { companion_id: string },
  subject: string,
  options: AttestationOptions = {},
): CompanionAttestation {
  const now = options.now ?? NOW;
  const fields: AttestationFields = {
    companion_id: companion.companion_id,
    subject: options.subject ?? subject,
    scopes: options.scopes ?? ["api.read", "api.write", "api.deploy.staging"],
    ej_hash: options.ej_hash ?? EJ_HASH,
    risk_level: options.risk_level ?? "medium",
    issued_at: iso(options.issuedAt ?? now - DAY),
    expires_at: iso(options.expiresAt ?? now + 60 * DAY),
  };
  return signAttestation(fields, companion, options.cosigner);
}

export function request(
  identity: TestIdentity,
  attestation: object,
  scopes: Scope[],
  wallet: Signer = identity.wallet,
): AvmVerifyRequest {
  return {
    ledger_id: identity.ledger_id,
    wallet_signature: signWalletMessage(wallet, identity.ledger_id, attestation, scopes),
    companion_attestation: attestation as AvmVerifyRequest["companion_attestation"],
    requested_scopes: scopes,
  };
}
