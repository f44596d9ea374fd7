import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { digestOf } from "../digest.ts";
import { proofDigest, sealLeaves, sealRoot, type SealParts } from "./seal.ts";

const SIG = (c: string) => c.repeat(128);
const parts: SealParts = {
  session: {
    session_id: "CS-151-1",
    cycle: "C-151",
    room: "ethics",
    gi_baseline: 0.97,
    participants: ["A", "B", "C", "D"],
  },
  inputs: {
    delib_id: "DP-151-1",
    question: "Q?",
    context: {},
    rounds: [{ round: 1, statements: [] }],
    consensus: 0.75,
    gi_score: 0.97,
    constitutional_check: { ok: true },
  },
  votes: [
    { participant: "A", vote: "APPROVE", signature: SIG("1") },
    { participant: "C", vote: "APPROVE", signature: SIG("2") },
    { participant: "D", vote: "APPROVE", signature: SIG("3") },
  ],
  model_signatures: ["A", "B", "C", "D"].map((p, i) => ({
    participant: p,
    public_key: String(i).repeat(64),
    signature: SIG(String(4 + i)),
  })),
  validator_signature: { validator: "E", gi: 0.96, public_key: "e".repeat(64), signature: SIG("9") },
  outcome: { outcome: "APPROVED", gi_delta: 0.002 },
};

// RFC 9162 by hand: leaf = SHA-256(0x00 ‖ data), node = SHA-256(0x01 ‖ left ‖ right), split at the
// largest power of two below n.
const h = (...parts: (Buffer | string)[]) =>
  createHash("sha256")
    .update(Buffer.concat(parts.map((p) => Buffer.from(p))))
    .digest();
function mth(leaves: string[]): Buffer {
  if (leaves.length === 1) return h(Buffer.from([0]), leaves[0]!);
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return h(Buffer.from([1]), mth(leaves.slice(0, k)), mth(leaves.slice(k)));
}

describe("the seal", () => {
  it("has one leaf per part, in the documented order and form", () => {
    const leaves = sealLeaves(parts);
    expect(leaves).toHaveLength(1 + 1 + 3 + 4 + 1 + 1);
    expect(leaves[0]).toBe(
      '{"part":"session","value":{"cycle":"C-151","gi_baseline":0.97,"participants":["A","B","C","D"],"room":"ethics","session_id":"CS-151-1"}}',
    );
    expect(leaves[1]).toBe(
      '{"part":"inputs","value":{"consensus":0.75,"constitutional_check":{"ok":true},"context":{},"delib_id":"DP-151-1","gi_score":0.97,"question":"Q?","rounds":[{"round":1,"statements":[]}]}}',
    );
    expect(leaves[2]).toBe(`{"part":"vote","value":{"participant":"A","signature":"${SIG("1")}","vote":"APPROVE"}}`);
    expect(leaves[5]).toBe(
      `{"part":"model_signature","value":{"participant":"A","public_key":"${"0".repeat(64)}","signature":"${SIG("4")}"}}`,
    );
    expect(leaves[9]).toBe(
      `{"part":"validator_signature","value":{"gi":0.96,"public_key":"${"e".repeat(64)}","signature":"${SIG("9")}","validator":"E"}}`,
    );
    expect(leaves[10]).toBe('{"part":"outcome","value":{"gi_delta":0.002,"outcome":"APPROVED"}}');
  });

  it("is the RFC 9162 root over those leaves, and changes with any part", () => {
    expect(sealRoot(parts)).toBe(`sha256:${mth(sealLeaves(parts)).toString("hex")}`);
    const variants: SealParts[] = [
      { ...parts, session: { ...parts.session, room: "policy" } },
      { ...parts, inputs: { ...parts.inputs, gi_score: 0.971 } },
      { ...parts, votes: parts.votes.slice(1) },
      { ...parts, model_signatures: [...parts.model_signatures].reverse() },
      { ...parts, validator_signature: { ...parts.validator_signature, gi: 0.97 } },
      { ...parts, outcome: { outcome: "APPROVED", gi_delta: 0.003 } },
    ];
    const roots = new Set([sealRoot(parts), ...variants.map(sealRoot)]);
    expect(roots.size).toBe(variants.length + 1);
  });

  it("digests the proof as inputs + model_signatures + validator_signature", () => {
    expect(proofDigest(parts)).toBe(
      digestOf({
        ...parts.inputs,
        model_signatures: parts.model_signatures,
        validator_signature: parts.validator_signature,
      }),
    );
  });
});
