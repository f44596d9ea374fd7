import { describe, expect, it } from "vitest";
import { sign, verify } from "../signature.ts";
import { modelMessage, validatorMessage, voteMessage } from "./messages.ts";
import { agreementScore, delibIdFor, guardKey, sessionIdFor, tally, type CountedVote } from "./rules.ts";

// RFC 8032 §7.1 test 1 key.
const SK = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";
const PK = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";
const text = (b: Uint8Array) => new TextDecoder().decode(b);

describe("the signed messages (pinned forms)", () => {
  it("a vote is JCS {participant, session_id, vote}", () => {
    const m = voteMessage({ session_id: "CS-151-1", vote: "APPROVE", participant: "ATLAS" });
    expect(text(m)).toBe('{"participant":"ATLAS","session_id":"CS-151-1","vote":"APPROVE"}');
    const sig =
      "7fe919fc2af86b5151098c036b796a723d1303307296b66e0bbe038b801278805ce032826f163d4b137687343485b5e041c3cf49bdba3d0d2a1c83f87afaf208";
    expect(sign("ed25519", SK, m)).toBe(sig);
    expect(verify("ed25519", PK, m, sig)).toBe(true);
  });

  const inputs = {
    constitutional_check: { transparency: true },
    gi_score: 0.9725,
    consensus: 0.75,
    rounds: [
      {
        round: 1,
        statements: [{ summary: "Bounded expiry reduces risk.", position: "APPROVE" as const, participant: "ATLAS" }],
      },
    ],
    context: { cycle: "C-151", urgency: 2 },
    question: "Adopt the revised attestation expiry policy?",
    delib_id: "DP-151-1",
  };
  const modelText =
    '{"consensus":0.75,"constitutional_check":{"transparency":true},"context":{"cycle":"C-151","urgency":2},"delib_id":"DP-151-1",' +
    '"gi_score":0.9725,"question":"Adopt the revised attestation expiry policy?","rounds":[{"round":1,"statements":[{"participant":"ATLAS",' +
    '"position":"APPROVE","summary":"Bounded expiry reduces risk."}]}]}';
  const modelSig =
    "9a4b542e9c8e528457948270d6b47ba1b97f5cf2199d879b7847d13af675c3d7ce2b1a679c34c0a0ee08fb94f30bbb4d0cbbe764c13e775071e94600c7a0920b";

  it("a model signs JCS of the seven inputs, and only those", () => {
    expect(text(modelMessage(inputs))).toBe(modelText);
    expect(text(modelMessage({ ...inputs, model_signatures: [], extra: 1 } as never))).toBe(modelText);
    expect(sign("ed25519", SK, modelMessage(inputs))).toBe(modelSig);
  });

  it("the validator signs JCS of the inputs plus model_signatures {participant, public_key, signature}", () => {
    const m = validatorMessage(inputs, [{ participant: "ATLAS", public_key: PK, signature: modelSig }]);
    expect(text(m)).toBe(
      modelText.replace(
        ',"question"',
        `,"model_signatures":[{"participant":"ATLAS","public_key":"${PK}","signature":"${modelSig}"}],"question"`,
      ),
    );
    expect(sign("ed25519", SK, m)).toBe(
      "7228a3f38a372bc4883d398cf5df5a6a575c99d5536b91e5a804c9c248052489b4d768e63a8e9ead9f82fef68882d6bc102c7c9a6901037f03ada76ce637a30f",
    );
  });
});

describe("the tally", () => {
  const v = (votes: string, keys = "abcd"): CountedVote[] =>
    [...votes].map((c, i) => ({
      vote: c === "A" ? "APPROVE" : c === "R" ? "REJECT" : "ABSTAIN",
      public_key: keys[i]!,
    }));
  // votes cast (A approve, R reject, X abstain) → outcome, with 4 participants
  it.each([
    ["AAAA", "APPROVED"],
    ["AAAR", "APPROVED"],
    ["AAAX", "APPROVED"],
    ["AAA", "APPROVED"], // 3 approvals are a quorum before the fourth vote
    ["AARR", "REJECTED"],
    ["AARX", "REJECTED"],
    ["AXXX", "REJECTED"],
    ["RRRR", "REJECTED"],
    ["XXXX", "REJECTED"],
    ["AAR", "NO_QUORUM"], // not all voted, fewer than 3 approve
    ["AA", "NO_QUORUM"],
    ["A", "NO_QUORUM"],
    ["", "NO_QUORUM"],
  ])("%s → %s", (votes, outcome) => {
    const t = tally(v(votes));
    expect(t.outcome).toBe(outcome);
    expect(t.voted).toBe(votes.length);
    expect(agreementScore(t)).toBe([...votes].filter((c) => c === "A").length / 4);
  });

  it("counts a key once, whatever name it votes under", () => {
    // Three approvals under one key are one approval: no quorum.
    expect(tally(v("AAA", "kkk"))).toMatchObject({ approve: 1, voted: 1, outcome: "NO_QUORUM" });
    expect(tally(v("AAAA", "kkkd"))).toMatchObject({ approve: 2, voted: 2, outcome: "NO_QUORUM" });
  });
});

describe("ids and the duplicate-guard key", () => {
  it("derives session and proof ids from the cycle", () => {
    expect(sessionIdFor("C-151", 3)).toBe("CS-151-3");
    expect(delibIdFor("CS-151-3")).toBe("DP-151-3");
    expect(delibIdFor("other")).toBe("DP-other");
  });

  it("keys the guard by cycle and room, without ambiguity", () => {
    expect(guardKey("C-1", "a")).not.toBe(guardKey("C-1", "b"));
    expect(guardKey("C-1", "a")).not.toBe(guardKey("C-2", "a"));
  });
});
