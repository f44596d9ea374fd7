/**
 * The sample ledger's authority activity (SAMPLE DATA), produced through exactly the code the API
 * runs: identities, companions and stakes through core/avm/operations.ts (what the operator routes
 * and `npm run avm` call), verify attempts as signed requests parsed with the route's schema and
 * decided by `verifyAuthority` (POST /avm/verify), revocations through `revokeAuthority` and the
 * trigger operations whose automatic revocations follow in the same step (core/avm/revocation.ts).
 * Every yielded event passes through `observe`, so the registry here is the fold of the ledger
 * written so far — the state a server would decide against.
 *
 * What happens, at a fixed rate a day (not scaled by --size): attempts and revocations taken in
 * turn from a fixed menu, so that any sample long enough holds grants, renewals, a failure at each
 * of the five stages and a revocation by each trigger:
 * - grant: an identity's role scopes, attested by a registered companion (an admin's co-signed by a
 *   second one); a renewal when the identity holds a grant in force;
 * - failures: identity (a ledger_id nobody registered, or a barred identity), stake (the wallet
 *   signed with another key), attestation (an expired attestation, or one about someone else),
 *   scope (a scope the role does not have), temporal (an attestation valid for more than 90 days);
 * - revocations: requested by the holder (POST /avm/revoke), stake withdrawn (the identity locks
 *   stake again some days later), drift above 0.1 (measured back below 0.1 some days later),
 *   integrity violation (bars the identity for good, so one menu round in three), companion concern.
 * Keys are sample keys derived from the seed (sample-keys.ts). A step the operations refuse is a
 * bug in the simulator, and throws.
 */
import {
  ledgerIdForKey,
  lockStake,
  recordDrift,
  registerCompanion,
  registerIdentity,
  reportViolation,
  revokeAuthority,
  signalConcern,
  withdrawStake,
  type Operation,
} from "../../core/avm/operations.ts";
import { signAttestation, signWalletMessage, type Signer } from "../../core/avm/messages.ts";
import { avmRegistry, currentGrant, stakeFor, type AvmRegistry, type IdentityRecord } from "../../core/avm/registry.ts";
import { verifyAuthority } from "../../core/avm/verifier.ts";
import { formatMicDecimal } from "../../core/money/units.ts";
import { digestOf } from "../../core/digest.ts";
import type { LedgerEntry } from "../../core/ledger/entry.ts";
import type { NewEvent } from "../../core/ledger/store.ts";
import { AvmVerifyRequest, ROLE_BASE_SCOPES, type Role, type Scope } from "../../core/schemas/avm.ts";
import { publicKeyFromSecret, type SignatureAlgorithm } from "../../core/signature.ts";
import type { Prng } from "./prng.ts";
import { sampleSecretKey } from "./sample-keys.ts";

const MINUTE = 60_000;
const DAY = 86_400_000;

/** The sample's companions (AI companions that attest identities), registered at the start of C-1. */
export const SAMPLE_COMPANIONS = ["companion.aurora", "companion.beacon", "companion.cedar"] as const;

/** The stages in order, each with the failure the menu stages there. */
export type FailureKind = "identity" | "stake" | "attestation" | "scope" | "temporal";
export type RevocationTrigger =
  "requested_by_holder" | "stake_withdrawn" | "drift_exceeded" | "integrity_violation" | "companion_concern";

type Step = { kind: "grant" } | { kind: "fail"; stage: FailureKind } | { kind: "revoke"; trigger: RevocationTrigger };

/** The menu the daily activity walks through, in turn (a step that cannot happen yet waits its turn). */
const MENU: readonly Step[] = [
  { kind: "grant" },
  { kind: "grant" },
  { kind: "fail", stage: "identity" },
  { kind: "grant" },
  { kind: "fail", stage: "stake" },
  { kind: "revoke", trigger: "requested_by_holder" },
  { kind: "grant" },
  { kind: "fail", stage: "attestation" },
  { kind: "grant" },
  { kind: "revoke", trigger: "drift_exceeded" },
  { kind: "fail", stage: "scope" },
  { kind: "grant" },
  { kind: "fail", stage: "temporal" },
  { kind: "revoke", trigger: "stake_withdrawn" },
  { kind: "grant" },
  { kind: "grant" },
  { kind: "revoke", trigger: "companion_concern" },
  { kind: "fail", stage: "attestation" },
  { kind: "grant" },
  { kind: "revoke", trigger: "integrity_violation" },
];

/** Authority steps a day (attempts and revocations together). */
export const AUTHORITY_STEPS_PER_DAY = 0.8;

/** What a scheduled step returns: the events to append (null: nothing happened). */
export type AuthorityResult = NewEvent[] | null;

function must<T>(what: string, op: Operation<T>): { events: NewEvent[]; result: T } {
  if (!op.ok) throw new Error(`sample authority: ${what} refused: ${op.code}: ${op.message}`);
  return op;
}

export class SampleAuthority {
  readonly registry: AvmRegistry = avmRegistry.initial();
  readonly #seed: string;
  readonly #rng: Prng;
  /** Each identity's wallet (sample key), by ledger_id. */
  readonly #wallets = new Map<string, Signer>();
  #seq = 0;
  #step = 0;
  /** How often each stage's failure was staged: its variants take turns. */
  readonly #variants = new Map<FailureKind, number>();
  #strangers = 0;

  constructor(seed: string, rng: Prng) {
    this.#seed = seed;
    this.#rng = rng;
  }

  /** Folds one yielded event (with its `ts`) into the registry; its seq is its place in the sample. */
  observe(event: NewEvent): void {
    const entry: LedgerEntry = {
      seq: this.#seq++,
      type: event.type,
      payload: event.payload,
      ts: event.ts!,
      prev: null,
      hash: "",
    };
    avmRegistry.apply(this.registry, entry);
  }

  #signer(owner: string, algorithm: SignatureAlgorithm): Signer {
    return { algorithm, secretKeyHex: sampleSecretKey(this.#seed, owner) };
  }

  #companion(id: string): Signer & { companion_id: string } {
    return { ...this.#signer(`companion:${id}`, "ed25519"), companion_id: id };
  }

  registerCompanion(id: string): NewEvent[] {
    const { algorithm, secretKeyHex } = this.#companion(id);
    return must(
      `registering ${id}`,
      registerCompanion(this.registry, {
        companion_id: id,
        algorithm,
        public_key: publicKeyFromSecret(algorithm, secretKeyHex),
      }),
    ).events;
  }

  /** The k-th identity: its key is the sample key of `identity:k`; its ledger_id follows from the key. */
  registerIdentity(
    k: number,
    algorithm: SignatureAlgorithm,
    role: Role,
    reputation: number,
  ): { events: NewEvent[]; ledgerId: string } {
    const wallet = this.#signer(`identity:${k}`, algorithm);
    const public_key = publicKeyFromSecret(algorithm, wallet.secretKeyHex);
    const { events, result } = must(
      `registering identity ${k}`,
      registerIdentity(this.registry, { algorithm, public_key, role, reputation }),
    );
    this.#wallets.set(result.ledger_id, wallet);
    return { events, ledgerId: result.ledger_id };
  }

  lockStake(ledgerId: string, mic: number): NewEvent[] {
    return must(
      `locking stake for ${ledgerId}`,
      lockStake(this.registry, { ledger_id: ledgerId, amount: String(mic), slashing_conditions_accepted: true }),
    ).events;
  }

  /**
   * The next step of the menu at `nowMs`. `moneyFrozen`: stake may not move now (the migration
   * freeze), so a withdrawal waits. Returns null when the step cannot happen yet (it stays next).
   */
  step(nowMs: number, moneyFrozen: boolean): AuthorityResult {
    const step = MENU[this.#step % MENU.length]!;
    // An integrity violation bars the identity for good: one round of the menu in three has one.
    if (
      step.kind === "revoke" &&
      step.trigger === "integrity_violation" &&
      Math.floor(this.#step / MENU.length) % 3 !== 0
    ) {
      this.#step++;
      return this.step(nowMs, moneyFrozen);
    }
    const events =
      step.kind === "grant"
        ? this.#grant(nowMs)
        : step.kind === "fail"
          ? this.#fail(step.stage, nowMs)
          : this.#revoke(step.trigger, nowMs, moneyFrozen);
    if (events !== null) this.#step++;
    return events;
  }

  // --------------------------------------------------------------------------------------------

  /** Identities that are registered, not barred, with enough bonded stake, in registration order. */
  #eligible(filter: (i: IdentityRecord) => boolean = () => true): IdentityRecord[] {
    return [...this.registry.identities.values()].filter(
      (i) =>
        !i.barred &&
        i.reputation > 0 &&
        this.#wallets.has(i.ledger_id) &&
        stakeFor(this.registry, i.ledger_id).bondedShards >= 100n * 1_000_000n &&
        filter(i),
    );
  }

  #variant(stage: FailureKind): number {
    const n = this.#variants.get(stage) ?? 0;
    this.#variants.set(stage, n + 1);
    return n;
  }

  #grant(nowMs: number): AuthorityResult {
    // Drift must be at most 0.1 and the stake must cover the role's scopes (admins need 10,000 MIC).
    const pool = this.#eligible(
      (i) =>
        i.driftScore <= 0.1 &&
        (i.role !== "admin" || stakeFor(this.registry, i.ledger_id).bondedShards >= 10_000n * 1_000_000n),
    );
    if (pool.length === 0) return null;
    const identity = this.#rng.pick(pool);
    const outcome = this.#verify(identity.ledger_id, [...ROLE_BASE_SCOPES[identity.role]], nowMs, {});
    if (!outcome.verified)
      throw new Error(`sample authority: a grant for ${identity.ledger_id} was refused: ${outcome.rule}`);
    return outcome.events;
  }

  #fail(stage: FailureKind, nowMs: number): AuthorityResult {
    const rng = this.#rng;
    const pool = this.#eligible((i) => i.driftScore <= 0.1 && i.role !== "admin");
    let outcome;
    switch (stage) {
      case "identity": {
        const turn = this.#variant("identity");
        const barred = [...this.registry.identities.values()].filter((i) => i.barred && this.#wallets.has(i.ledger_id));
        if (barred.length > 0 && turn % 2 === 1) {
          const identity = rng.pick(barred);
          outcome = this.#verify(identity.ledger_id, ["api.read"], nowMs, {});
        } else {
          // A wallet nobody registered asks for authority.
          const n = this.#strangers++;
          const wallet = this.#signer(`stranger:${n}`, "ed25519");
          const ledgerId = ledgerIdForKey(wallet.algorithm, publicKeyFromSecret(wallet.algorithm, wallet.secretKeyHex));
          outcome = this.#verify(ledgerId, ["api.read"], nowMs, { wallet });
        }
        break;
      }
      case "stake": {
        const turn = this.#variant("stake");
        // An identity whose stake was withdrawn asks again (AVM_007), or a wallet signs with another key (AVM_002).
        const unstaked = [...this.registry.identities.values()].filter(
          (i) =>
            !i.barred && this.#wallets.has(i.ledger_id) && stakeFor(this.registry, i.ledger_id).bondedShards === 0n,
        );
        if (unstaked.length > 0 && turn % 2 === 1) {
          outcome = this.#verify(rng.pick(unstaked).ledger_id, ["api.read"], nowMs, {});
          break;
        }
        if (pool.length < 2) return null;
        const [identity, other] = rng.sample(pool, 2) as [IdentityRecord, IdentityRecord];
        outcome = this.#verify(identity.ledger_id, ["api.read"], nowMs, {
          wallet: this.#wallets.get(other.ledger_id)!,
        });
        break;
      }
      case "attestation": {
        if (pool.length < 2) return null;
        const [identity, other] = rng.sample(pool, 2) as [IdentityRecord, IdentityRecord];
        outcome =
          this.#variant("attestation") % 2 === 0
            ? this.#verify(identity.ledger_id, ["api.read"], nowMs, {
                issuedAt: nowMs - 70 * DAY,
                expiresAt: nowMs - rng.between(1, 10) * DAY,
              })
            : this.#verify(identity.ledger_id, ["api.read"], nowMs, { subject: other.ledger_id });
        break;
      }
      case "scope": {
        const turn = this.#variant("scope");
        // A drifted identity asks to renew (AVM_008), or a role asks for a scope it does not have (AVM_005).
        const drifted = this.#eligible((i) => i.driftScore > 0.1);
        if (drifted.length > 0 && turn % 2 === 1) {
          const identity = rng.pick(drifted);
          outcome = this.#verify(identity.ledger_id, identity.role === "admin" ? ["api.*"] : ["api.read"], nowMs, {});
          break;
        }
        const low = pool.filter((i) => i.role === "viewer" || i.role === "contributor");
        if (low.length === 0) return null;
        const identity = rng.pick(low);
        outcome = this.#verify(
          identity.ledger_id,
          [rng.pick(["api.deploy.staging", "api.deploy.production"] as const)],
          nowMs,
          {},
        );
        break;
      }
      case "temporal": {
        if (pool.length === 0) return null;
        const identity = rng.pick(pool);
        outcome = this.#verify(identity.ledger_id, ["api.read"], nowMs, {
          issuedAt: nowMs - DAY,
          expiresAt: nowMs + rng.between(91, 180) * DAY,
        });
        break;
      }
    }
    if (outcome.verified) throw new Error(`sample authority: a request meant to fail at ${stage} was granted`);
    return outcome.events;
  }

  #revoke(trigger: RevocationTrigger, nowMs: number, moneyFrozen: boolean): AuthorityResult {
    const rng = this.#rng;
    const holders = [...this.registry.identities.values()].filter(
      (i) => !i.barred && currentGrant(this.registry, i.ledger_id, nowMs) !== null,
    );
    if (holders.length === 0) return null;
    const identity = rng.pick(holders);
    const ledger_id = identity.ledger_id;
    const evidence = (what: string) =>
      digestOf({ sample: "authority evidence", what, ledger_id, at: nowMs, n: rng.nextUint32() });
    let events: NewEvent[];
    switch (trigger) {
      case "requested_by_holder":
        events = must(
          `revoking ${ledger_id}`,
          revokeAuthority(
            this.registry,
            { ledger_id, reason: "requested_by_holder", evidence_hash: evidence("holder request") },
            nowMs,
          ),
        ).events;
        break;
      case "stake_withdrawn": {
        if (moneyFrozen) return null;
        const stake = stakeFor(this.registry, ledger_id);
        const amount = formatMicDecimal(stake.bondedShards + stake.unbondedShards);
        events = must(
          `withdrawing the stake of ${ledger_id}`,
          withdrawStake(this.registry, { ledger_id, amount }, nowMs),
        ).events;
        break;
      }
      case "drift_exceeded": {
        const drift_score = Math.round(rng.uniform(0.12, 0.35) * 100) / 100;
        events = must(
          `drift of ${ledger_id}`,
          recordDrift(this.registry, { ledger_id, drift_score, source: "sentinel.drift-monitor" }, nowMs),
        ).events;
        break;
      }
      case "integrity_violation":
        events = must(
          `violation by ${ledger_id}`,
          reportViolation(
            this.registry,
            { ledger_id, evidence_hash: evidence("integrity violation"), detected_by: "sentinel.integrity-scan" },
            nowMs,
          ),
        ).events;
        break;
      case "companion_concern": {
        const companion_id = rng.pick(SAMPLE_COMPANIONS);
        events = must(
          `concern about ${ledger_id}`,
          signalConcern(
            this.registry,
            { companion_id, ledger_id, evidence_hash: evidence("companion concern") },
            nowMs,
          ),
        ).events;
        break;
      }
    }
    if (!events.some((e) => e.type === "avm.revoke")) throw new Error(`sample authority: ${trigger} revoked nothing`);
    return events;
  }

  /** Identities whose drift is above 0.1: the drift monitor measures them again, back in bounds. */
  driftRecoveries(nowMs: number): AuthorityResult {
    const drifted = [...this.registry.identities.values()].filter((i) => !i.barred && i.driftScore > 0.1);
    if (drifted.length === 0) return null;
    const identity = this.#rng.pick(drifted);
    const drift_score = Math.round(this.#rng.uniform(0.01, 0.08) * 100) / 100;
    return must(
      `drift of ${identity.ledger_id}`,
      recordDrift(
        this.registry,
        { ledger_id: identity.ledger_id, drift_score, source: "sentinel.drift-monitor" },
        nowMs,
      ),
    ).events;
  }

  /** A withdrawn stake comes back after a while: the identity locks stake again. */
  restake(moneyFrozen: boolean): AuthorityResult {
    if (moneyFrozen) return null;
    const unstaked = [...this.registry.identities.values()].filter(
      (i) => !i.barred && this.#wallets.has(i.ledger_id) && stakeFor(this.registry, i.ledger_id).bondedShards === 0n,
    );
    if (unstaked.length === 0) return null;
    const identity = this.#rng.pick(unstaked);
    const mic =
      identity.role === "deployer" || identity.role === "admin"
        ? this.#rng.between(10_000, 25_000)
        : this.#rng.between(500, 5_000);
    return this.lockStake(identity.ledger_id, mic);
  }

  /**
   * A verify request built the way a wallet and its companion build one, parsed with the route's
   * schema and decided by `verifyAuthority` against the registry at `nowMs`.
   */
  #verify(
    ledgerId: string,
    scopes: Scope[],
    nowMs: number,
    options: { wallet?: Signer; issuedAt?: number; expiresAt?: number; subject?: string },
  ): ReturnType<typeof verifyAuthority> {
    const rng = this.#rng;
    const role = this.registry.identities.get(ledgerId)?.role;
    const [issuer, cosigner] = rng.sample(SAMPLE_COMPANIONS, 2) as [string, string];
    const attestation = signAttestation(
      {
        companion_id: issuer,
        subject: options.subject ?? ledgerId,
        scopes,
        ej_hash: digestOf({ sample: "ethics justification", ledgerId, at: nowMs, n: rng.nextUint32() }),
        risk_level: role === "admin" ? "low" : rng.pick(["low", "medium"] as const),
        issued_at: new Date(options.issuedAt ?? nowMs - rng.between(5, 120) * MINUTE).toISOString(),
        expires_at: new Date(options.expiresAt ?? nowMs + rng.between(30, 75) * DAY).toISOString(),
      },
      this.#companion(issuer),
      role === "admin" ? this.#companion(cosigner) : undefined,
    );
    const wallet = options.wallet ?? this.#wallets.get(ledgerId)!;
    const body = {
      ledger_id: ledgerId,
      wallet_signature: signWalletMessage(wallet, ledgerId, attestation, scopes),
      companion_attestation: attestation,
      requested_scopes: scopes,
    };
    return verifyAuthority(AvmVerifyRequest.parse(body), this.registry, nowMs);
  }
}
