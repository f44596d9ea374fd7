/**
 * Properties of the whole verifier (real signatures, the registry projection, the injected clock)
 * over random identities, attributes and requests (fast-check):
 * - no grant outside role + attributes (checked against the spec's rows, written out here again);
 * - none beyond 90 days, nor past the attestation's expiry;
 * - none without both valid signatures;
 * - none that survives its revocation.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { NewEvent } from "../ledger/store.ts";
import {
  MAX_AUTHORITY_DURATION_MS,
  RISK_LEVELS,
  ROLE_BASE_SCOPES,
  ROLES,
  SCOPES,
  type Role,
  type Scope,
} from "../schemas/avm.ts";
import type { SignatureAlgorithm } from "../signature.ts";
import { recordDrift, reportViolation, revokeAuthority, signalConcern, withdrawStake } from "./operations.ts";
import { checkAuthority } from "./registry.ts";
import { attest, DAY, MIC, NOW, request, Scenario, signerFor } from "../../test/support/core/avm/helpers.ts";
import { verifyAuthority } from "./verifier.ts";

const RUNS = 200;
const ADVANCED: Readonly<Record<Role, readonly Scope[]>> = {
  viewer: ["api.write.draft"],
  contributor: ["api.write"],
  deployer: ["api.deploy.production"],
  admin: [],
};
const CEILING: Readonly<Record<Scope, number>> = {
  "api.read": 2,
  "api.write.draft": 2,
  "api.write": 1,
  "api.deploy.staging": 1,
  "api.deploy.production": 1,
  "api.*": 0,
};

const world = fc.record({
  algorithm: fc.constantFrom<SignatureAlgorithm>("ed25519", "secp256k1"),
  role: fc.constantFrom(...ROLES),
  reputation: fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom(0, 0.9, 1)),
  bondedMic: fc.oneof(fc.constantFrom(0n, 99n, 100n, 9_999n, 10_000n), fc.bigInt({ min: 0n, max: 30_000n })),
  unbondedMic: fc.constantFrom(0n, 0n, 500n),
  drift: fc.oneof(fc.double({ min: 0, max: 0.2, noNaN: true }), fc.constant(0)),
  attested: fc.uniqueArray(fc.constantFrom(...SCOPES), { minLength: 1, maxLength: 4 }),
  requested: fc.uniqueArray(fc.constantFrom(...SCOPES), { minLength: 1, maxLength: 3 }),
  risk: fc.constantFrom(...RISK_LEVELS),
  cosigned: fc.boolean(),
  issuedAgo: fc.integer({ min: -DAY, max: 100 * DAY }),
  validity: fc.integer({ min: 1, max: 120 * DAY }),
  priorGrants: fc.integer({ min: 0, max: 6 }),
});
type World = typeof world extends fc.Arbitrary<infer W> ? W : never;
// Half the worlds have everything but the role and the request right, so that grants are common
// enough for their properties to be tested on every run, whatever the seed.
const worlds = fc.oneof(
  world,
  world.map((w) => ({
    ...w,
    reputation: 1,
    bondedMic: 10_000n,
    drift: 0,
    attested: ["api.*" as const],
    risk: "low" as const,
    cosigned: true,
    issuedAgo: 0,
    validity: 30 * DAY,
  })),
);

function build(w: World) {
  const s = new Scenario();
  const athena = s.companion("athena", w.algorithm);
  const hermes = s.companion("hermes", w.algorithm === "ed25519" ? "secp256k1" : "ed25519");
  const holder = s.identity("holder", {
    algorithm: w.algorithm,
    role: w.role,
    reputation: w.reputation,
    stakeMic: w.bondedMic,
  });
  if (w.unbondedMic > 0n)
    s.event("stake.locked", {
      ledger_id: holder.ledger_id,
      amount_shards: (w.unbondedMic * MIC).toString(),
      slashing_conditions_accepted: false,
    });
  if (w.drift > 0) s.event("identity.drift", { ledger_id: holder.ledger_id, drift_score: w.drift, source: "athena" });
  // Earlier grants give the identity its attestation count (they use other attestations).
  for (let i = 0; i < w.priorGrants; i++) {
    s.event("avm.grant", {
      ledger_id: holder.ledger_id,
      scopes: ["api.read"],
      risk_level: "low",
      attestation_hash: `sha256:${String(i).padStart(64, "0")}`,
      created_at: new Date(NOW - (10 - i) * DAY).toISOString(),
      expires_at: new Date(NOW - (9 - i) * DAY).toISOString(),
    });
  }
  const issuedAt = NOW - w.issuedAgo;
  const att = attest(athena, holder.ledger_id, {
    scopes: w.attested,
    risk_level: w.risk,
    issuedAt,
    expiresAt: issuedAt + w.validity,
    ...(w.cosigned ? { cosigner: hermes } : {}),
  });
  return { s, holder, att, athena };
}

/** Whether the spec's rows (as decided in docs/authority.md) allow `scope` for this world. */
function permitted(w: World, scope: Scope): boolean {
  const base = ROLE_BASE_SCOPES[w.role];
  const inRole =
    base.includes(scope) || base.includes("api.*") || (ADVANCED[w.role].includes(scope) && w.reputation >= 0.9);
  const stakeOk =
    w.bondedMic >= 100n && (scope === "api.deploy.production" || scope === "api.*" ? w.bondedMic >= 10_000n : true);
  const attested = w.attested.includes(scope) || w.attested.includes("api.*");
  const risk = RISK_LEVELS.indexOf(w.risk) <= CEILING[scope];
  return (
    inRole && stakeOk && attested && risk && w.reputation > 0 && w.drift <= 0.1 && (w.role !== "admin" || w.cosigned)
  );
}

describe("verifier properties (fast-check, real signatures)", () => {
  it("no grant outside role + attributes, none beyond 90 days or past the attestation's expiry", () => {
    let grants = 0;
    fc.assert(
      fc.property(worlds, (w) => {
        const { s, holder, att } = build(w);
        const out = verifyAuthority(request(holder, att, w.requested), s.registry, NOW);
        if (!out.verified) return;
        grants++;
        const ctx = out.response.authority_context;
        for (const scope of ctx.scopes) expect(permitted(w, scope), `${w.role} granted ${scope}`).toBe(true);
        expect(new Set(ctx.scopes)).toEqual(new Set(w.requested));
        const created = Date.parse(ctx.created_at);
        const expires = Date.parse(ctx.expires_at);
        expect(expires).toBeGreaterThan(created);
        expect(expires - created).toBeLessThanOrEqual(w.priorGrants >= 5 ? MAX_AUTHORITY_DURATION_MS : 30 * DAY);
        expect(expires).toBeLessThanOrEqual(Date.parse(att.expires_at));
        expect(w.validity).toBeLessThanOrEqual(MAX_AUTHORITY_DURATION_MS);
        expect(ctx.stake_locked).toBe(Number(w.bondedMic));
        expect(ctx.stake_locked_shards).toBe((w.bondedMic * MIC).toString());
      }),
      { numRuns: RUNS },
    );
    expect(grants).toBeGreaterThan(0);
  });

  it("every request the rows allow is granted (the verifier is not stricter than its policy)", () => {
    fc.assert(
      fc.property(
        world.filter((w) => w.issuedAgo >= 0 && w.validity > w.issuedAgo && w.validity <= MAX_AUTHORITY_DURATION_MS),
        (w) => {
          const { s, holder, att } = build(w);
          const out = verifyAuthority(request(holder, att, w.requested), s.registry, NOW);
          const allowed =
            w.requested.every((scope) => permitted(w, scope)) &&
            !(w.requested.includes("api.*") && w.requested.length > 1) &&
            !(w.requested.includes("api.write") && w.requested.includes("api.deploy.production"));
          expect(out.verified, out.verified ? "granted" : out.response.error_detail).toBe(allowed);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("no grant without both valid signatures", () => {
    const tamper = fc.constantFrom("wallet-key", "wallet-bit", "companion-key", "companion-bit", "cosigner-bit");
    fc.assert(
      fc.property(world, tamper, fc.nat(127), (w0, how, bit) => {
        // A world that would be granted, then one signature broken.
        const w: World = {
          ...w0,
          role: "deployer",
          reputation: 0.95,
          bondedMic: 20_000n,
          drift: 0,
          attested: ["api.read"],
          requested: ["api.read"],
          risk: "low",
          issuedAgo: DAY,
          validity: 30 * DAY,
          cosigned: how === "cosigner-bit",
        };
        const { s, holder, att, athena } = build(w);
        expect(verifyAuthority(request(holder, att, w.requested), s.registry, NOW).verified).toBe(true);
        const flip = (hex: string) =>
          hex.slice(0, bit) + (parseInt(hex[bit]!, 16) ^ 1).toString(16) + hex.slice(bit + 1);
        let req;
        if (how === "wallet-key") req = request(holder, att, w.requested, signerFor("thief", w.algorithm));
        else if (how === "wallet-bit")
          req = {
            ...request(holder, att, w.requested),
            wallet_signature: flip(request(holder, att, w.requested).wallet_signature),
          };
        else if (how === "companion-key")
          req = request(
            holder,
            attest({ ...signerFor("forger", athena.algorithm), companion_id: "athena" }, holder.ledger_id, {
              scopes: ["api.read"],
              risk_level: "low",
            }),
            w.requested,
          );
        else if (how === "companion-bit")
          req = request(holder, { ...att, signature: flip(att.signature) }, w.requested);
        else
          req = request(
            holder,
            { ...att, cosignature: { ...att.cosignature!, signature: flip(att.cosignature!.signature) } },
            w.requested,
          );
        expect(verifyAuthority(req, s.registry, NOW).verified).toBe(false);
      }),
      { numRuns: RUNS },
    );
  });

  it("no grant survives its revocation", () => {
    const step = fc.oneof(
      fc.record({
        kind: fc.constant("verify" as const),
        requested: fc.constantFrom<Scope[]>(
          ["api.read"],
          ["api.read", "api.deploy.staging"],
          ["api.deploy.production"],
        ),
      }),
      fc.record({
        kind: fc.constant("revoke" as const),
        reason: fc.constantFrom(
          "requested_by_holder" as const,
          "key_compromise" as const,
          "companion_concern" as const,
        ),
      }),
      fc.record({ kind: fc.constant("withdraw" as const), mic: fc.constantFrom("1", "5000", "15000") }),
      fc.record({ kind: fc.constant("drift" as const), score: fc.constantFrom(0.05, 0.1, 0.15) }),
      fc.record({ kind: fc.constant("violation" as const) }),
      fc.record({ kind: fc.constant("concern" as const) }),
      fc.record({ kind: fc.constant("wait" as const), ms: fc.integer({ min: 1, max: 40 * DAY }) }),
    );
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 12 }), (steps) => {
        const s = new Scenario();
        const athena = s.companion("athena");
        const holder = s.identity("holder", { stakeMic: 20_000n });
        const id = holder.ledger_id;
        const evidence = `sha256:${"ee".repeat(32)}`;
        let now = NOW;
        let lastGrantSeq = -1;
        let lastEndSeq = -1;
        const append = (events: NewEvent[]) => {
          for (const e of events) {
            s.apply(e);
            const seq = s.entries.length - 1;
            if (e.type === "avm.grant") lastGrantSeq = seq;
            if (e.type === "avm.revoke" || e.type === "integrity.violation") lastEndSeq = seq;
          }
        };
        for (const st of steps) {
          if (st.kind === "verify") {
            const out = verifyAuthority(
              request(
                holder,
                attest(athena, id, {
                  scopes: st.requested,
                  risk_level: "low",
                  issuedAt: now - 1,
                  expiresAt: now + 50 * DAY,
                }),
                st.requested,
              ),
              s.registry,
              now,
            );
            append(out.events);
          } else if (st.kind === "revoke") {
            const op = revokeAuthority(s.registry, { ledger_id: id, reason: st.reason, evidence_hash: evidence }, now);
            if (op.ok) append(op.events);
          } else if (st.kind === "withdraw") {
            const op = withdrawStake(s.registry, { ledger_id: id, amount: st.mic }, now);
            if (op.ok) append(op.events);
          } else if (st.kind === "drift") {
            const op = recordDrift(s.registry, { ledger_id: id, drift_score: st.score, source: "athena" }, now);
            if (op.ok) append(op.events);
          } else if (st.kind === "violation") {
            const op = reportViolation(
              s.registry,
              { ledger_id: id, evidence_hash: evidence, detected_by: "ATLAS" },
              now,
            );
            if (op.ok) append(op.events);
          } else if (st.kind === "concern") {
            const op = signalConcern(
              s.registry,
              { companion_id: "athena", ledger_id: id, evidence_hash: evidence },
              now,
            );
            if (op.ok) append(op.events);
          } else {
            now += st.ms;
          }
          const check = checkAuthority(s.registry, id, now);
          if (check.has_authority) {
            // Authority only from a grant newer than every revocation, not expired.
            expect(lastGrantSeq).toBeGreaterThan(lastEndSeq);
            expect(Date.parse(check.expires_at!)).toBeGreaterThan(now);
            expect(s.registry.identities.get(id)!.barred).toBeNull();
          }
          if (lastEndSeq > lastGrantSeq) expect(check.has_authority).toBe(false);
        }
        // The attestation hash of every grant is marked used exactly once.
        const grants = s.entries
          .filter((e) => e.type === "avm.grant")
          .map((e) => (e.payload as { attestation_hash: string }).attestation_hash);
        expect(new Set(grants).size).toBe(grants.length);
      }),
      { numRuns: RUNS },
    );
  });
});
