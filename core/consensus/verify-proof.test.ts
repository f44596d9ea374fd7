import { describe, expect, it } from "vitest";
import { canonicalize } from "../canonical.ts";
import { signCheckpoint } from "../checkpoint.ts";
import { sealEntry } from "../ledger/entry.ts";
import { inclusionProof, leafHashOfText, rootHash } from "../merkle.ts";
import { publicKeyFromSecret } from "../signature.ts";
import { PROOF_CHECKS, SEAL_CHECKS, verifyProofFile, verifyProofSeal } from "./verify-proof.ts";
import { proofAnchor, proofDocument } from "./views.ts";
import { completeSession, MemoryLedger, standardOffices } from "../../test/support/core/consensus/helpers.ts";

const LOG_SECRET = "11".repeat(32);
const LOG = { name: "example.test/ledger", publicKeyHex: publicKeyFromSecret("ed25519", LOG_SECRET) };
const encode = (doc: unknown) => new TextEncoder().encode(`${canonicalize(doc)}\n`);

function sealedFile(ledger: MemoryLedger, delibId: string): Uint8Array {
  const leaves = ledger.entries.map((e) => leafHashOfText(sealEntry(e).text));
  const seq = ledger.state.proofs.get(delibId)!.seal!.ledger_seq;
  const size = ledger.entries.length;
  const checkpoint = signCheckpoint(
    { origin: LOG.name, size, rootHash: rootHash(leaves) },
    { name: LOG.name, secretKeyHex: LOG_SECRET },
  );
  return encode(
    proofDocument(
      ledger.state,
      delibId,
      proofAnchor(ledger.entries[seq]!, size, inclusionProof(leaves, seq), checkpoint),
    ),
  );
}

function setup() {
  const ledger = new MemoryLedger();
  const offices = standardOffices(ledger);
  const first = completeSession(ledger, offices);
  const second = completeSession(ledger, offices, { ATLAS: "APPROVE", SOPHIA: "ABSTAIN" }, "policy");
  return { ledger, offices, first, second };
}

describe("verify-proof", () => {
  const { ledger, first, second } = setup();
  const ctx = { ledger: ledger.state, checkpointKeys: [LOG] };

  it("accepts every sealed proof, running every check", () => {
    for (const id of [first.delibId, second.delibId]) {
      const r = verifyProofFile(sealedFile(ledger, id), ctx);
      expect(r).toEqual({
        ok: true,
        delib_id: id,
        session_id: ledger.state.proofs.get(id)!.session_id,
        checks: PROOF_CHECKS,
      });
    }
  });

  it("fails on a one-byte change anywhere in the file", () => {
    const good = sealedFile(ledger, second.delibId);
    const failedAt = new Map<string, number>();
    for (let i = 0; i < good.length; i++) {
      const bad = good.slice();
      // Flip to a byte that keeps most changes printable, so later checks get exercised too.
      bad[i] = good[i] === 0x30 ? 0x31 : good[i] === 0x61 ? 0x62 : good[i]! ^ 0x01;
      const r = verifyProofFile(bad, ctx);
      expect(r.ok, `byte ${i} changed and the file still verified`).toBe(false);
      if (!r.ok) failedAt.set(r.check, (failedAt.get(r.check) ?? 0) + 1);
    }
    // The changes were caught by many different checks, not only by the canonical form.
    expect(failedAt.size).toBeGreaterThanOrEqual(8);
  }, 120_000);

  it("names the first check that fails", () => {
    const doc = JSON.parse(new TextDecoder().decode(sealedFile(ledger, first.delibId)));
    const check = (mutate: (d: typeof doc) => void) => {
      const d = structuredClone(doc);
      mutate(d);
      const r = verifyProofFile(encode(d), ctx);
      return r.ok ? "ok" : r.check;
    };
    expect(verifyProofFile(new TextEncoder().encode(JSON.stringify(doc, null, 2)), ctx)).toMatchObject({
      ok: false,
      check: "canonical-form",
    });
    expect(check((d) => (d.extra = 1))).toBe("schema");
    expect(check((d) => (d.state = "validator-signed"))).toBe("state");
    expect(check((d) => delete d.session.outcome)).toBe("state");
    expect(check((d) => delete d.anchor)).toBe("state");
    expect(check((d) => (d.session.participants[0] = "ZEUS"))).toBe("registered-keys");
    expect(check((d) => (d.session.votes[0].vote = "REJECT"))).toBe("votes");
    expect(check((d) => (d.proof.consensus = 1))).toBe("votes");
    expect(check((d) => (d.proof.question = "Another question?"))).toBe("model-signatures");
    expect(check((d) => (d.proof.validator_signature.gi = 0.9))).toBe("schema"); // below 0.95
    expect(check((d) => (d.proof.validator_signature.signature = d.proof.model_signatures[0].signature))).toBe(
      "validator",
    );
    // The validator's GI is not under its signature: the ledger's measured value is the check.
    expect(check((d) => (d.proof.validator_signature.gi = 0.99))).toBe("ledger-record");
    expect(check((d) => (d.session.room = "policy"))).toBe("ledger-record");
    expect(check((d) => (d.proof.seal.merkle_root = `sha256:${"0".repeat(64)}`))).toBe("merkle-root");
    expect(check((d) => (d.proof.seal.ledger_seq -= 1))).toBe("sealing-entry");
    expect(check((d) => (d.anchor.tree_size += 1))).toBe("checkpoint");
    expect(check((d) => d.anchor.inclusion_proof.reverse())).toBe("inclusion");
    // Another ledger key does not vouch for the checkpoint.
    const r = verifyProofFile(sealedFile(ledger, first.delibId), {
      ...ctx,
      checkpointKeys: [{ ...LOG, publicKeyHex: publicKeyFromSecret("ed25519", "22".repeat(32)) }],
    });
    expect(r).toMatchObject({ ok: false, check: "checkpoint" });
  });

  it("needs the ledger's registry: a ledger without the offices cannot vouch for the keys", () => {
    const other = new MemoryLedger();
    const r = verifyProofFile(sealedFile(ledger, first.delibId), { ledger: other.state, checkpointKeys: [LOG] });
    expect(r).toMatchObject({ ok: false, check: "registered-keys" });
  });
});

describe("verifyProofSeal (no ledger: the file, its seal and its anchor)", () => {
  const { ledger, first } = setup();

  it("accepts a sealed proof file with the checkpoint key alone", () => {
    expect(verifyProofSeal(sealedFile(ledger, first.delibId), [LOG])).toEqual({
      ok: true,
      delib_id: first.delibId,
      session_id: ledger.state.proofs.get(first.delibId)!.session_id,
      checks: SEAL_CHECKS,
    });
  });

  it("refuses another checkpoint key, a changed part, a file not in canonical form and an unsealed proof", () => {
    const good = sealedFile(ledger, first.delibId);
    const other = { name: LOG.name, publicKeyHex: publicKeyFromSecret("ed25519", "22".repeat(32)) };
    expect(verifyProofSeal(good, [other])).toMatchObject({ ok: false, check: "checkpoint" });
    const doc = JSON.parse(new TextDecoder().decode(good));
    doc.proof.question = "Another question?";
    expect(verifyProofSeal(encode(doc), [LOG])).toMatchObject({ ok: false, check: "merkle-root" });
    expect(
      verifyProofSeal(
        new TextEncoder().encode(`${JSON.stringify(JSON.parse(new TextDecoder().decode(good)), null, 1)}\n`),
        [LOG],
      ),
    ).toMatchObject({ ok: false, check: "canonical-form" });
    expect(verifyProofSeal(encode(proofDocument(ledger.state, first.delibId)), [LOG])).toMatchObject({
      ok: false,
      check: "state",
    });
  });
});
