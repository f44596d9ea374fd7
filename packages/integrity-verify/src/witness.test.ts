/**
 * The command's witness checks over the one policy parser and cosignature check (core/tlog/): their
 * refusals as the command's errors, each with its code and the place or the witness it names.
 */
import { describe, expect, it } from "vitest";
import { signCheckpoint, verifierKey } from "../../../core/checkpoint.ts";
import { generateKeyPair, publicKeyFromSecret } from "../../../core/signature.ts";
import { cosign, cosignerVkey, splitNote } from "../../../core/witness/cosignature.ts";
import { checkWitnessed, describeQuorum, parsePolicy } from "./witness.js";

const log = { name: "example.com/log", secretKeyHex: generateKeyPair("ed25519").secretKey };
const ws = [0, 1, 2].map((i) => ({ name: `w${i}.example`, secretKeyHex: generateKeyPair("ed25519").secretKey }));
const policyText = (quorum: string) =>
  [
    `log ${verifierKey(log.name, publicKeyFromSecret("ed25519", log.secretKeyHex))}`,
    ...ws.map(
      (w, i) =>
        `witness W${i} ${cosignerVkey({ name: w.name, publicKeyHex: publicKeyFromSecret("ed25519", w.secretKeyHex) })} https://w${i}.example/`,
    ),
    quorum,
    "",
  ].join("\n");
const note = signCheckpoint({ origin: log.name, size: 4, rootHash: new Uint8Array(32).fill(2) }, log);
const body = splitNote(note).body;
const cosigned = (i: number, t: number, text = body) => cosign(text, ws[i]!.name, ws[i]!.secretKeyHex, t);

describe("the command's witness checks", () => {
  it("reads a policy, names the quorum, and refuses a malformed one with the file and line", async () => {
    const policy = await parsePolicy(policyText("group two 2 W0 W1 W2\nquorum two"), "p.policy");
    expect([...policy.witnesses.values()].map((w) => [w.id, w.name, w.url])).toEqual([
      ["W0", "w0.example", "https://w0.example/"],
      ["W1", "w1.example", "https://w1.example/"],
      ["W2", "w2.example", "https://w2.example/"],
    ]);
    expect(describeQuorum(policy)).toBe("quorum two: 2 of W0, W1, W2");
    const refusal = (text: string) =>
      parsePolicy(text, "p.policy").then(
        () => "parsed",
        (e) => `${e.code} ${e.message}`,
      );
    expect(await refusal(policyText("quorum W3"))).toBe("key-malformed p.policy:5: W3 is not defined above");
    expect(await refusal(policyText(""))).toBe("key-malformed p.policy:6: no quorum line");
    expect(await refusal(policyText("quorum none\u0001"))).toMatch(/^key-malformed p\.policy:0: a control character/);
  });

  it("names the witnesses that cosigned, refuses a short quorum and a cosignature that does not verify", async () => {
    const policy = await parsePolicy(policyText("group two 2 W0 W1 W2\nquorum two"), "p.policy");
    const ok = await checkWitnessed(note + cosigned(2, 5) + cosigned(0, 6), policy);
    expect(ok).toMatchObject({
      checkpoint: { origin: log.name, size: 4, root: new Uint8Array(32).fill(2) },
      cosigned: [
        { id: "W2", timestamp: 5 },
        { id: "W0", timestamp: 6 },
      ],
      quorum: "quorum two: 2 of W0, W1, W2",
    });
    expect(ok.log).toMatch(/^example\.com\/log\+[0-9a-f]{8}$/);
    const refused = (text: string) =>
      checkWitnessed(text, policy).then(
        () => "met",
        (e) => `${e.code} ${e.message}`,
      );
    expect(await refused(note + cosigned(1, 5))).toBe(
      "quorum-not-met quorum two: 2 of W0, W1, W2 is NOT met: cosigned by W1 (1970-01-01T00:00:05.000Z)",
    );
    expect(await refused(note + cosigned(1, 5, body.replace("\n4\n", "\n5\n")))).toMatch(
      /^signature-invalid the cosignature by W1 \(w1\.example\+[0-9a-f]{8}\) does not verify/,
    );
    const foreign = signCheckpoint(
      { origin: "example.com/log", size: 4, rootHash: new Uint8Array(32) },
      {
        ...log,
        name: "example.com/other",
      },
    );
    expect(await refused(foreign)).toMatch(/^signature-untrusted no trusted key signed it/);
  });
});
