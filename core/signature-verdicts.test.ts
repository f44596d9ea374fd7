import { describe, expect, it } from "vitest";
import { SignatureVerdicts } from "./signature-verdicts.ts";
import { generateKeyPair, sign } from "./signature.ts";

const utf8 = (s: string) => new TextEncoder().encode(s);

describe("SignatureVerdicts", () => {
  const { publicKey, secretKey } = generateKeyPair("ed25519");
  const message = utf8("the message");
  const signatureHex = sign("ed25519", secretKey, message);

  it("answers from the verdict of exactly the same algorithm, key, message (by its bytes) and signature", () => {
    // A verdict contrary to the truth shows which answers come from it.
    const verdicts = new SignatureVerdicts(
      [{ algorithm: "ed25519", publicKeyHex: publicKey, message, signatureHex }],
      [false],
    );
    expect(verdicts.verify("ed25519", publicKey, message, signatureHex)).toBe(false);
    expect(verdicts.verify("ed25519", publicKey, utf8("the message"), signatureHex)).toBe(false); // equal bytes, another array
    // Any other question is verified in place: the true answers.
    expect(verdicts.verify("ed25519", publicKey, utf8("the message!"), signatureHex)).toBe(false);
    expect(SignatureVerdicts.none().verify("ed25519", publicKey, message, signatureHex)).toBe(true);
    const other = generateKeyPair("ed25519");
    const byOther = sign("ed25519", other.secretKey, message);
    expect(verdicts.verify("ed25519", other.publicKey, message, byOther)).toBe(true);
    expect(verdicts.verify("secp256k1", publicKey, message, signatureHex)).toBe(false);
  });

  it("refuses answers that do not match the questions one to one", () => {
    expect(
      () => new SignatureVerdicts([{ algorithm: "ed25519", publicKeyHex: publicKey, message, signatureHex }], []),
    ).toThrow(/1 signature questions, 0 answers/);
  });
});
