import { describe, expect, it } from "vitest";
import { verifierKey } from "../checkpoint.ts";
import { generateKeyPair } from "../signature.ts";
import { DataPackageError } from "./errors.ts";
import { manifestSignatureText, openManifestSignature, parseTrustedKeys, signManifest } from "./signature.ts";

const key = (name = "integrity-platform.example/datasets") => {
  const { secretKey, publicKey } = generateKeyPair("ed25519");
  return { name, secretKeyHex: secretKey, publicKeyHex: publicKey, vkey: verifierKey(name, publicKey) };
};

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(DataPackageError);
    return `${(error as DataPackageError).code} (${(error as DataPackageError).subject})`;
  }
  return "opened";
}

describe("the manifest signature", () => {
  const signer = key();
  const trusted = parseTrustedKeys(`# dataset keys\n\n${signer.vkey}\n`);
  const manifest = '{"name":"integrity-platform-economy"}\n';
  const note = signManifest("economy", manifest, signer);

  it("signs the area and the manifest's sha256, and opens under a trusted key", () => {
    expect(manifestSignatureText("economy", manifest)).toMatch(/^economy datapackage\nsha256:[0-9a-f]{64}\n$/);
    expect(openManifestSignature("economy", manifest, note, trusted)).toEqual([signer.name]);
    expect(openManifestSignature("economy", new TextEncoder().encode(manifest), note, trusted)).toEqual([signer.name]);
  });

  it("says with a code why a signature does not open", () => {
    const stranger = key();
    expect(codeOf(() => openManifestSignature("economy", manifest, note, []))).toBe("keys-empty (keys)");
    expect(codeOf(() => openManifestSignature("economy", `${manifest} `, note, trusted))).toBe(
      "signature-other-manifest (manifest)",
    );
    expect(codeOf(() => openManifestSignature("government", manifest, note, trusted))).toBe(
      "signature-other-area (signature)",
    );
    expect(
      codeOf(() => openManifestSignature("economy", manifest, signManifest("economy", manifest, stranger), trusted)),
    ).toBe("signature-untrusted (signature)");
    expect(codeOf(() => openManifestSignature("economy", manifest, "not a note", trusted))).toBe(
      "signature-malformed (signature)",
    );
    // The trusted key's name and id over a damaged signature.
    const [text, line] = note.split("\n\n") as [string, string];
    const raw = Buffer.from(line.slice(line.lastIndexOf(" ") + 1).trim(), "base64");
    raw[10] = raw[10]! ^ 1;
    const damaged = `${text}\n\n${line.slice(0, line.lastIndexOf(" ") + 1)}${raw.toString("base64")}\n`;
    expect(codeOf(() => openManifestSignature("economy", manifest, damaged, trusted))).toBe(
      "signature-invalid (signature)",
    );
  });

  it("parses trusted keys, naming a bad line", () => {
    expect(parseTrustedKeys("")).toEqual([]);
    expect(codeOf(() => parseTrustedKeys(`${signer.vkey}\nnot-a-key\n`, "k.vkey"))).toBe("keys-malformed (keys)");
    expect(() => parseTrustedKeys("x\n", "k.vkey")).toThrow(/^k\.vkey:1: /);
  });
});
