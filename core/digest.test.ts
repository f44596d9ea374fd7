import { describe, expect, it } from "vitest";
import { CanonicalizationError } from "./canonical.ts";
import {
  DIGEST_PATTERN,
  digestOf,
  formatDigest,
  fromHex,
  isDigest,
  parseDigest,
  sha256,
  sha256Hex,
  toHex,
} from "./digest.ts";

// FIPS 180-2 appendix B / NIST CSRC examples.
const VECTORS: [string, string][] = [
  ["", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"],
  ["abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"],
  [
    "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
  ],
  ["a".repeat(1_000_000), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"],
];

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

describe("sha256", () => {
  it.each(VECTORS.map(([m, h]) => [m.length > 64 ? `${m.length} chars` : JSON.stringify(m), m, h]))(
    "%s",
    (_label, message, hex) => {
      expect(sha256Hex(message)).toBe(hex);
      expect(sha256Hex(utf8(message))).toBe(hex);
      expect(toHex(sha256(message))).toBe(hex);
    },
  );

  it("returns a plain 32-byte Uint8Array", () => {
    const h = sha256("abc");
    expect(h.length).toBe(32);
    expect(Object.getPrototypeOf(h)).toBe(Uint8Array.prototype);
  });

  it("hashes strings as UTF-8", () => {
    expect(sha256Hex("é😀")).toBe(sha256Hex(Uint8Array.of(0xc3, 0xa9, 0xf0, 0x9f, 0x98, 0x80)));
  });

  it("hashes exactly the bytes of a subarray view", () => {
    const whole = utf8("xxabcxx");
    expect(sha256Hex(whole.subarray(2, 5))).toBe(VECTORS[1]?.[1]);
  });
});

describe("digestOf", () => {
  it("is sha256: over the canonical JSON", () => {
    expect(digestOf({ b: 1, a: "x" })).toBe("sha256:" + sha256Hex('{"a":"x","b":1}'));
    expect(digestOf("abc")).toBe("sha256:" + sha256Hex('"abc"'));
  });

  it("does not depend on key insertion order", () => {
    const a = { type: "avm.grant", seq: 7, payload: { z: [1, 2], a: null, m: "é" } };
    const b = { payload: { m: "é", a: null, z: [1, 2] }, seq: 7, type: "avm.grant" };
    expect(digestOf(a)).toBe(digestOf(b));
    expect(isDigest(digestOf(a))).toBe(true);
    expect(digestOf({ ...a, seq: 8 })).not.toBe(digestOf(a));
  });

  it("refuses values with no canonical form", () => {
    expect(() => digestOf({ a: undefined })).toThrow(CanonicalizationError);
  });
});

describe("parseDigest / isDigest / formatDigest", () => {
  const hex = VECTORS[1]?.[1] as string;
  const good = `sha256:${hex}`;

  it("round-trips", () => {
    const bytes = parseDigest(good);
    expect(bytes).toEqual(sha256("abc"));
    expect(formatDigest(bytes)).toBe(good);
    expect(isDigest(good)).toBe(true);
  });

  it.each<[string, unknown]>([
    ["uppercase hex", `sha256:${hex.toUpperCase()}`],
    ["one uppercase letter", `sha256:${hex.slice(0, 63)}D`],
    ["uppercase algorithm", `SHA256:${hex}`],
    ["too short", `sha256:${hex.slice(2)}`],
    ["too long", `${good}00`],
    ["no prefix", hex],
    ["other algorithm", `sha512:${hex}`],
    ["sha-256 spelling", `sha-256:${hex}`],
    ["leading space", ` ${good}`],
    ["trailing newline", `${good}\n`],
    ["space after colon", `sha256: ${hex.slice(1)}`],
    ["non-hex character", `sha256:${hex.slice(0, 63)}g`],
    ["empty", ""],
    ["number", 42],
    ["null", null],
    ["bytes", sha256("abc")],
  ])("rejects %s", (_name, value) => {
    expect(isDigest(value)).toBe(false);
    expect(() => parseDigest(value as string)).toThrow(/digest/);
  });

  it("formatDigest refuses anything but 32 bytes", () => {
    expect(() => formatDigest(new Uint8Array(31))).toThrow(/32 bytes/);
    expect(() => formatDigest(new Uint8Array(33))).toThrow(/32 bytes/);
    expect(() => formatDigest(hex as unknown as Uint8Array)).toThrow(/Uint8Array/);
  });
});

describe("isDigest against DIGEST_PATTERN", () => {
  it("agrees with the pattern on every near miss and on random text of the right length", () => {
    const hex = "0123456789abcdef".repeat(4);
    const near = [
      `sha256:${hex}`,
      `sha256:${hex.toUpperCase()}`,
      `sha256:${hex.slice(1)}`,
      `sha256:${hex}0`,
      `sha256:${hex}\n`,
      `\nsha256:${hex}`,
      `SHA256:${hex}`,
      `sha256;${hex}`,
      `sha256:${hex.slice(0, 63)}g`,
      // Code units whose low byte is a hex digit's: only the whole unit may count.
      `sha256:${hex.slice(0, 63)}\u0130`,
      `sha256:${hex.slice(0, 63)}\u0161`,
      `sha256:${hex.slice(0, 62)}\ud83d\ude00`,
      "",
    ];
    const alphabet = "0123456789abcdefABCDEFgz:\u0130\u0161\u0000";
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 3000; i++) {
      let tail = "";
      for (let j = 0; j < 64; j++)
        tail += random() < 0.97 ? hex[Math.floor(random() * 16)] : alphabet[Math.floor(random() * alphabet.length)];
      near.push(`sha256:${tail}`);
    }
    for (const text of near) expect([text, isDigest(text)]).toEqual([text, DIGEST_PATTERN.test(text)]);
    expect(near.filter((t) => isDigest(t)).length).toBeGreaterThan(500);
    expect(isDigest(7)).toBe(false);
  });
});

describe("hex", () => {
  it("round-trips every byte value", () => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    const text = toHex(all);
    expect(text).toMatch(/^[0-9a-f]{512}$/);
    expect(text.slice(0, 8)).toBe("00010203");
    expect(text.slice(-4)).toBe("feff");
    expect(fromHex(text)).toEqual(all);
    expect(toHex(new Uint8Array(0))).toBe("");
    expect(fromHex("")).toEqual(new Uint8Array(0));
  });

  it("encodes only the bytes of a view", () => {
    expect(toHex(Uint8Array.of(1, 2, 3, 4).subarray(1, 3))).toBe("0203");
  });

  it("returns a plain Uint8Array", () => {
    expect(Object.getPrototypeOf(fromHex("00ff"))).toBe(Uint8Array.prototype);
  });

  it.each<[string, unknown]>([
    ["odd length", "abc"],
    ["uppercase", "AB"],
    ["mixed case", "aB"],
    ["non-hex", "0g"],
    ["prefix", "0x00"],
    ["whitespace", "00 11"],
    ["trailing newline", "00\n"],
    ["non-string", 255],
  ])("fromHex rejects %s", (_name, value) => {
    expect(() => fromHex(value as string)).toThrow(/hex/);
  });
});
