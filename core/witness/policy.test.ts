import { describe, expect, it } from "vitest";
import { signCheckpoint, verifierKey } from "../checkpoint.ts";
import { generateKeyPair, publicKeyFromSecret } from "../signature.ts";
import {
  cosign,
  cosignerKeyId,
  cosignerVkey,
  parseCosignerVkey,
  splitNote,
  verifyCosignatures,
} from "./cosignature.ts";
import { checkWitnessed, describeQuorum, meets, parsePolicy } from "./policy.ts";

const log = { name: "example.test/log", secretKeyHex: generateKeyPair("ed25519").secretKey };
const logVkey = verifierKey(log.name, publicKeyFromSecret("ed25519", log.secretKeyHex));
const ws = ["w1", "w2", "w3", "w4"].map((n) => ({
  name: `${n}.example`,
  secretKeyHex: generateKeyPair("ed25519").secretKey,
}));
const vkeyOf = (w: { name: string; secretKeyHex: string }) =>
  cosignerVkey({ name: w.name, publicKeyHex: publicKeyFromSecret("ed25519", w.secretKeyHex) });

describe("tlog-cosignature v1", () => {
  it("the key ID is SHA-256(name ‖ 0x0A ‖ 0x04 ‖ key)[:4], the vkey round-trips, and a changed byte fails", () => {
    const pk = publicKeyFromSecret("ed25519", ws[0]!.secretKeyHex);
    const vkey = vkeyOf(ws[0]!);
    expect(parseCosignerVkey(vkey)).toEqual({ name: "w1.example", publicKeyHex: pk });
    expect(vkey.split("+")[1]).toBe(Buffer.from(cosignerKeyId("w1.example", pk)).toString("hex"));
    expect(() => parseCosignerVkey(logVkey)).toThrow(/signature type 1/);
    const note = signCheckpoint({ origin: log.name, size: 3, rootHash: new Uint8Array(32).fill(7) }, log);
    const line = cosign(splitNote(note).body, "w1.example", ws[0]!.secretKeyHex, 1_679_315_147);
    expect(Buffer.from(line.split(" ")[2]!, "base64").readBigUInt64BE(4)).toBe(1_679_315_147n);
    expect(verifyCosignatures(note + line, [parseCosignerVkey(vkey)])).toEqual([
      { name: "w1.example", keyIdHex: vkey.split("+")[1], timestamp: 1_679_315_147 },
    ]);
    // The same signature on another time, or on another body: refused, not ignored.
    const raw = Buffer.from(line.slice(line.lastIndexOf(" ") + 1, -1), "base64");
    raw.writeBigUInt64BE(1_679_315_148n, 4);
    expect(() =>
      verifyCosignatures(`${note}\u2014 w1.example ${raw.toString("base64")}\n`, [parseCosignerVkey(vkey)]),
    ).toThrow(/does not verify/);
    // Another key's line is ignored.
    expect(verifyCosignatures(note + line, [parseCosignerVkey(vkeyOf(ws[1]!))])).toEqual([]);
  });
});

describe("tlog-policy", () => {
  const text = (quorumLines: string) =>
    [
      `# a comment`,
      `log ${logVkey}`,
      ...ws.slice(0, 3).map((w, i) => `  witness\tW${i + 1} ${vkeyOf(w)} https://w${i + 1}.example/`),
      quorumLines,
      "",
    ].join("\n");

  it("parses logs, witnesses, groups (k, any, all, nested) and the quorum", () => {
    const p = parsePolicy(text("group two 2 W1 W2 W3\ngroup top all two\nquorum top"));
    expect(p.logs.map((l) => l.name)).toEqual([log.name]);
    expect([...p.witnesses.keys()]).toEqual(["W1", "W2", "W3"]);
    expect(p.witnesses.get("W2")!.url).toBe("https://w2.example/");
    expect(meets(p, new Set(["W1", "W3"]))).toBe(true);
    expect(meets(p, new Set(["W2"]))).toBe(false);
    expect(describeQuorum(p)).toBe("quorum top: 1-of-1 (two)");
    expect(meets(parsePolicy(text("group g any W1 W2 W3\nquorum g")), new Set(["W3"]))).toBe(true);
    expect(meets(parsePolicy(text("group g all W1 W2 W3\nquorum g")), new Set(["W1", "W2"]))).toBe(false);
    expect(meets(parsePolicy(text("quorum none")), new Set())).toBe(true);
    expect(meets(parsePolicy(text("quorum W2")), new Set(["W2"]))).toBe(true);
  });

  it("refuses what the specification forbids", () => {
    for (const [quorum, why] of [
      ["", /no quorum line/],
      ["quorum W1\nquorum W2", /second quorum/],
      ["quorum G", /not defined above/],
      ["quorum G\ngroup G any W1", /not defined above/],
      ["group G 0 W1\nquorum G", /threshold 0/],
      ["group G 4 W1 W2 W3\nquorum G", /threshold 4/],
      ["group G any W1 W1\nquorum G", /more than once/],
      ["group G any W1\ngroup H any W1\nquorum H", /more than once/],
      ["group W1 any W2\nquorum W1", /defined twice/],
      ["group none any W2\nquorum none", /predefined/],
      ["group G any none\nquorum G", /not a witness or group/],
      [`witness W4 ${vkeyOf(ws[0]!)}\nquorum W4`, /duplicate key/],
      [`log ${logVkey}\nquorum none`, /duplicate key/],
      ["quorum none\r", /control character/],
      ["frobnicate\nquorum none", /unknown line/],
      [`witness W5 ${logVkey}\nquorum none`, /signature type 1/],
    ] as const) {
      expect(() => parsePolicy(text(quorum)), quorum).toThrow(why);
    }
  });

  it("checks a checkpoint: signed by the policy's log for its origin, cosigned, quorum met or not", () => {
    const p = parsePolicy(text("group two 2 W1 W2 W3\nquorum two"));
    const note = signCheckpoint({ origin: log.name, size: 9, rootHash: new Uint8Array(32).fill(1) }, log);
    const body = splitNote(note).body;
    const one =
      note + cosign(body, ws[0]!.name, ws[0]!.secretKeyHex, 1) + cosign(body, ws[3]!.name, ws[3]!.secretKeyHex, 1);
    expect(checkWitnessed(one, p)).toMatchObject({ met: false, cosigned: [{ id: "W1", timestamp: 1 }] });
    const two = one + cosign(body, ws[2]!.name, ws[2]!.secretKeyHex, 2);
    expect(checkWitnessed(two, p)).toMatchObject({ met: true, cosigned: [{ id: "W1" }, { id: "W3" }] });
    const other = signCheckpoint(
      { origin: "example.test/other", size: 9, rootHash: new Uint8Array(32) },
      { ...log, name: "example.test/other" },
    );
    expect(() => checkWitnessed(other, p)).toThrow(/no known key/);
  });
});
