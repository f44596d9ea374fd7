import { describe, expect, it } from "vitest";
import { digestOf } from "../digest.ts";
import { validateEvent } from "../events/registry.ts";
import type { NewEvent } from "../ledger/store.ts";
import type { Scope } from "../schemas/avm.ts";
import { checkAuthority } from "./registry.ts";
import { automaticRevocations } from "./revocation.ts";
import { attest, DAY, iso, MIC, NOW, request, Scenario } from "../../test/support/core/avm/helpers.ts";
import { verifyAuthority } from "./verifier.ts";

const DIGEST = `sha256:${"4e".repeat(32)}`;
const LATER = NOW + 1000;

/** A deployer with `stakeMic` bonded, granted `scopes` at NOW. */
function granted(scopes: Scope[] = ["api.read"], stakeMic = 20_000n) {
  const s = new Scenario();
  const athena = s.companion("athena");
  const holder = s.identity("holder", { stakeMic });
  const out = verifyAuthority(request(holder, attest(athena, holder.ledger_id, { scopes }), scopes), s.registry, NOW);
  if (!out.verified) throw new Error(out.response.error_detail);
  s.apply(...out.events);
  return { s, id: holder.ledger_id };
}

function expectRevocation(s: Scenario, trigger: NewEvent, reason: string) {
  const follow = automaticRevocations(s.registry, trigger, LATER);
  expect(follow).toEqual([
    {
      type: "avm.revoke",
      payload: {
        ledger_id: (trigger.payload as { ledger_id: string }).ledger_id,
        reason,
        evidence_hash: digestOf({ type: trigger.type, payload: trigger.payload }),
        revoked_at: iso(LATER),
      },
    },
  ]);
  expect(validateEvent(follow[0]!.type, follow[0]!.payload)).toBeNull();
  s.apply(trigger, ...follow);
  expect(checkAuthority(s.registry, (trigger.payload as { ledger_id: string }).ledger_id, LATER).has_authority).toBe(
    false,
  );
}

describe("automatic revocation", () => {
  it("stake withdrawn below what the grant needs → stake_withdrawn", () => {
    const { s, id } = granted(["api.read"], 150n);
    expectRevocation(
      s,
      { type: "stake.withdrawn", payload: { ledger_id: id, amount_shards: (51n * MIC).toString() } },
      "stake_withdrawn",
    );
  });

  it("a withdrawal that leaves enough does not revoke; production needs its 10,000 MIC to stay", () => {
    const small = granted(["api.read"], 150n);
    expect(
      automaticRevocations(
        small.s.registry,
        { type: "stake.withdrawn", payload: { ledger_id: small.id, amount_shards: (50n * MIC).toString() } },
        LATER,
      ),
    ).toEqual([]);
    const prod = granted(["api.deploy.production"], 10_000n);
    expectRevocation(
      prod.s,
      { type: "stake.withdrawn", payload: { ledger_id: prod.id, amount_shards: "1" } },
      "stake_withdrawn",
    );
  });

  it("unbonded stake goes first: withdrawing it leaves the grant in force", () => {
    const { s, id } = granted(["api.read"], 100n);
    s.event("stake.locked", {
      ledger_id: id,
      amount_shards: (500n * MIC).toString(),
      slashing_conditions_accepted: false,
    });
    expect(
      automaticRevocations(
        s.registry,
        { type: "stake.withdrawn", payload: { ledger_id: id, amount_shards: (500n * MIC).toString() } },
        LATER,
      ),
    ).toEqual([]);
  });

  it("slashing below the requirement → stake_withdrawn", () => {
    const { s, id } = granted(["api.read"], 100n);
    expectRevocation(
      s,
      { type: "stake.slashed", payload: { ledger_id: id, amount_shards: "1", reason: "late" } },
      "stake_withdrawn",
    );
  });

  it("drift above 0.1 → drift_exceeded; at 0.1 nothing", () => {
    const { s, id } = granted();
    expect(
      automaticRevocations(
        s.registry,
        { type: "identity.drift", payload: { ledger_id: id, drift_score: 0.1, source: "athena" } },
        LATER,
      ),
    ).toEqual([]);
    expectRevocation(
      s,
      { type: "identity.drift", payload: { ledger_id: id, drift_score: 0.1000001, source: "athena" } },
      "drift_exceeded",
    );
  });

  it("an integrity violation → integrity_violation", () => {
    const { s, id } = granted();
    expectRevocation(
      s,
      { type: "integrity.violation", payload: { ledger_id: id, evidence_hash: DIGEST, detected_by: "ATLAS" } },
      "integrity_violation",
    );
  });

  it("a registered companion's concern → companion_concern; an unregistered one's is ignored", () => {
    const { s, id } = granted();
    expect(
      automaticRevocations(
        s.registry,
        { type: "companion.concern", payload: { companion_id: "nobody", ledger_id: id, evidence_hash: DIGEST } },
        LATER,
      ),
    ).toEqual([]);
    expectRevocation(
      s,
      { type: "companion.concern", payload: { companion_id: "athena", ledger_id: id, evidence_hash: DIGEST } },
      "companion_concern",
    );
  });

  it("nothing to revoke without a grant in force (none, expired or already revoked)", () => {
    const trigger = (id: string): NewEvent => ({
      type: "integrity.violation",
      payload: { ledger_id: id, evidence_hash: DIGEST, detected_by: "ATLAS" },
    });
    const fresh = new Scenario();
    const nobody = fresh.identity("nobody");
    expect(automaticRevocations(fresh.registry, trigger(nobody.ledger_id), LATER)).toEqual([]);
    const { s, id } = granted();
    expect(automaticRevocations(s.registry, trigger(id), NOW + 31 * DAY)).toEqual([]);
    s.event("avm.revoke", {
      ledger_id: id,
      reason: "requested_by_holder",
      evidence_hash: DIGEST,
      revoked_at: iso(NOW),
    });
    expect(automaticRevocations(s.registry, trigger(id), LATER)).toEqual([]);
    expect(
      automaticRevocations(
        s.registry,
        { type: "mic_burn", payload: { account: "x", amount_shards: "1", reason: "fee" } },
        LATER,
      ),
    ).toEqual([]);
  });
});
