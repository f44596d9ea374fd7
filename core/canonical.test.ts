import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { CanonicalizationError, canonicalBytes, canonicalize, isCanonicalizableJson } from "./canonical.ts";
import { vectorsPath } from "../test/support/vectors.ts";

const JCS = vectorsPath("jcs");

describe("RFC 8785 vectors (cyberphone/json-canonicalization testdata)", () => {
  const names = readdirSync(join(JCS, "input"))
    .filter((f) => f.endsWith(".json"))
    .sort();

  it("finds the vectors", () => {
    expect(names.length).toBeGreaterThan(0);
  });

  for (const name of names) {
    it(name, () => {
      const input = readFileSync(join(JCS, "input", name), "utf8");
      const expected = readFileSync(join(JCS, "output", name), "utf8");
      // outhex: the expected UTF-8 bytes as hex pairs separated by whitespace.
      const hex = readFileSync(join(JCS, "outhex", name.replace(/\.json$/, ".txt")), "utf8");
      const bytes = Uint8Array.from(hex.trim().split(/\s+/), (h) => parseInt(h, 16));

      const parsed: unknown = JSON.parse(input);
      expect(canonicalize(parsed)).toBe(expected);
      expect(canonicalBytes(parsed)).toEqual(bytes);
      expect(Buffer.from(canonicalBytes(parsed)).equals(readFileSync(join(JCS, "output", name)))).toBe(true);
    });
  }
});

describe("numbers (RFC 8785 §3.2.2.3, Appendix B)", () => {
  const fromBits = (hex: string): number => new DataView(Uint8Array.from(Buffer.from(hex, "hex")).buffer).getFloat64(0);

  it.each([
    [1e21, "1e+21"],
    [1e20, "100000000000000000000"],
    [1e-7, "1e-7"],
    [1e-6, "0.000001"],
    [-0, "0"],
    [0.1 + 0.2, "0.30000000000000004"],
    [2 ** 53, "9007199254740992"],
    [5e-324, "5e-324"],
    [1.7976931348623157e308, "1.7976931348623157e+308"],
    [-1.5, "-1.5"],
    [4.5, "4.5"],
  ])("%d -> %s", (n, text) => {
    expect(canonicalize(n)).toBe(text);
    expect(canonicalize([n])).toBe(`[${text}]`);
  });

  it.each([
    ["0000000000000000", "0"],
    ["8000000000000000", "0"],
    ["0000000000000001", "5e-324"],
    ["8000000000000001", "-5e-324"],
    ["7fefffffffffffff", "1.7976931348623157e+308"],
    ["ffefffffffffffff", "-1.7976931348623157e+308"],
    ["4340000000000000", "9007199254740992"],
    ["c340000000000000", "-9007199254740992"],
    ["4430000000000000", "295147905179352830000"],
    ["44b52d02c7e14af5", "9.999999999999997e+22"],
    ["44b52d02c7e14af6", "1e+23"],
    ["44b52d02c7e14af7", "1.0000000000000001e+23"],
    ["444b1ae4d6e2ef4e", "999999999999999700000"],
    ["444b1ae4d6e2ef4f", "999999999999999900000"],
    ["444b1ae4d6e2ef50", "1e+21"],
    ["3eb0c6f7a0b5ed8c", "9.999999999999997e-7"],
    ["3eb0c6f7a0b5ed8d", "0.000001"],
    ["41b3de4355555553", "333333333.3333332"],
    ["41b3de4355555554", "333333333.33333325"],
    ["41b3de4355555555", "333333333.3333333"],
    ["41b3de4355555556", "333333333.3333334"],
    ["41b3de4355555557", "333333333.33333343"],
    ["becbf647612f3696", "-0.0000033333333333333333"],
    ["43143ff3c1cb0959", "1424953923781206.2"],
  ])("IEEE 754 %s -> %s", (bits, text) => {
    expect(canonicalize(fromBits(bits))).toBe(text);
  });
});

describe("strings and key order", () => {
  it("orders keys by UTF-16 code units, not code points or locale", () => {
    // Code points: U+20AC < U+E000 < U+FB33 < U+1F600. UTF-16 units: 20AC < D83D (😀) < E000 < FB33.
    const value = { "\ufb33": 4, "\ue000": 3, "\ud83d\ude00": 2, "\u20ac": 1, b: 0, B: 0, a: 0 };
    expect(canonicalize(value)).toBe('{"B":0,"a":0,"b":0,"\u20ac":1,"\ud83d\ude00":2,"\ue000":3,"\ufb33":4}');
  });

  it("sorts integer-like keys as strings (JS iterates them numerically)", () => {
    expect(canonicalize({ 10: "b", 9: "c", 1: "a", "": "e" })).toBe('{"":"e","1":"a","10":"b","9":"c"}');
  });

  it("escapes only what JCS escapes, lowercase hex, and keeps non-ASCII as UTF-8", () => {
    const s = '"\\/\b\f\n\r\t\u0000\u001f\u007f\u2028é😀';
    expect(canonicalize(s)).toBe('"\\"\\\\/\\b\\f\\n\\r\\t\\u0000\\u001f\u007f\u2028é😀"');
    expect(canonicalize({ [s]: s })).toBe(`{${canonicalize(s)}:${canonicalize(s)}}`);
    expect(Buffer.from(canonicalBytes("é😀")).toString("hex")).toBe("22c3a9f09f988022");
  });

  it("accepts properly paired surrogates anywhere in a string", () => {
    expect(canonicalize("a\ud83d\ude00b\ud800\udc00")).toBe('"a😀b𐀀"');
  });
});

describe("structure", () => {
  it("writes nested empties", () => {
    expect(canonicalize({})).toBe("{}");
    expect(canonicalize([])).toBe("[]");
    expect(canonicalize({ d: { e: {} }, c: [[], [{}]], b: [], a: {} })).toBe(
      '{"a":{},"b":[],"c":[[],[{}]],"d":{"e":{}}}',
    );
    expect(canonicalize([[[]], {}, [{}]])).toBe("[[[]],{},[{}]]");
  });

  it("writes literals and top-level scalars", () => {
    expect(canonicalize(null)).toBe("null");
    expect(canonicalize(true)).toBe("true");
    expect(canonicalize([false, null, "x", 0])).toBe('[false,null,"x",0]');
  });

  it('accepts null-prototype objects and an own "__proto__" key', () => {
    const bare = Object.create(null) as Record<string, unknown>;
    bare.b = 1;
    bare.a = 2;
    expect(canonicalize(bare)).toBe('{"a":2,"b":1}');
    expect(canonicalize(JSON.parse('{"__proto__":{"x":1},"a":0}'))).toBe('{"__proto__":{"x":1},"a":0}');
  });

  it("treats a toJSON key as data and never calls it", () => {
    expect(canonicalize({ toJSON: "not a method" })).toBe('{"toJSON":"not a method"}');
    expect(() => canonicalize({ toJSON: () => "x" })).toThrow(CanonicalizationError);
  });

  it("writes the same text past the key cache: long keys, and more distinct keys than it holds", () => {
    const long = "k".repeat(200);
    expect(canonicalize({ [long]: 1, a: 2 })).toBe(`{"a":2,"${long}":1}`);
    // More keys than the cache keeps, twice over, with a key needing escapes among them.
    const many: Record<string, unknown> = Object.fromEntries(Array.from({ length: 9000 }, (_, i) => [`key-${i}`, i]));
    many['q"uote'] = true;
    const expected =
      "{" +
      Object.keys(many)
        .sort()
        .map((k) => `${JSON.stringify(k)}:${JSON.stringify(many[k])}`)
        .join(",") +
      "}";
    expect(canonicalize(many)).toBe(expected);
    expect(canonicalize(many)).toBe(expected);
    expect(() => canonicalize({ ["\uD800" + long]: 1 })).toThrow(
      expect.objectContaining({
        path: "/\uD800" + long,
        message: expect.stringContaining("a key with a lone surrogate"),
      }),
    );
  });

  it("allows the same object twice when it is not its own ancestor", () => {
    const shared = { k: [1] };
    expect(canonicalize({ a: shared, b: [shared, shared] })).toBe('{"a":{"k":[1]},"b":[{"k":[1]},{"k":[1]}]}');
  });
});

describe("rejects what is not I-JSON, saying what and where", () => {
  const rejects = (value: unknown, path: string, what: RegExp): void => {
    let error: unknown;
    try {
      canonicalize(value);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CanonicalizationError);
    const err = error as CanonicalizationError;
    expect(err.path).toBe(path);
    expect(err.message).toMatch(what);
    expect(err.message).toContain(path === "" ? "(root)" : path);
  };

  class Point {
    x = 1;
  }
  class List extends Array<number> {}
  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic.self = cyclic;
  const deepCycle: { a: { b: unknown[] } } = { a: { b: [] } };
  deepCycle.a.b.push(0, deepCycle.a);
  const selfArray: unknown[] = [1];
  selfArray.push(selfArray);
  const sparse = [1, , 3];
  const symbolKeyed = { a: 1, [Symbol("s")]: 2 };

  it.each<[string, unknown, string, RegExp]>([
    ["NaN", { a: [0, NaN] }, "/a/1", /non-finite number NaN/],
    ["Infinity", Infinity, "", /non-finite number Infinity/],
    ["-Infinity", { x: { y: -Infinity } }, "/x/y", /non-finite number -Infinity/],
    ["lone high surrogate", { s: "a\ud800" }, "/s", /string with a lone surrogate/],
    ["lone low surrogate", ["ok", "\udc00b"], "/1", /string with a lone surrogate/],
    ["reversed pair", "\ude00\ud83d", "", /string with a lone surrogate/],
    ["lone surrogate in a key", { a: { "k\ud83d": 1 } }, "/a/k\ud83d", /key with a lone surrogate/],
    ["bigint", { n: 1n }, "/n", /bigint/],
    ["undefined at the root", undefined, "", /undefined/],
    ["undefined property", { a: 1, b: undefined }, "/b", /undefined/],
    ["undefined element", [undefined], "/0", /undefined/],
    ["function", { f: () => 0 }, "/f", /function/],
    ["symbol", [Symbol("x")], "/0", /symbol/],
    ["Date", { when: new Date(0) }, "/when", /non-plain object \(Date\)/],
    ["Map", new Map(), "", /non-plain object \(Map\)/],
    ["Set", [new Set([1])], "/0", /non-plain object \(Set\)/],
    ["RegExp", { r: /x/ }, "/r", /non-plain object \(RegExp\)/],
    ["typed array", { bytes: new Uint8Array(2) }, "/bytes", /non-plain object \(Uint8Array\)/],
    ["class instance", { p: new Point() }, "/p", /non-plain object \(Point\)/],
    ["boxed string", [new String("s")], "/0", /non-plain object \(String\)/],
    ["custom prototype", Object.create({ inherited: 1 }), "", /non-plain object \(custom prototype\)/],
    ["Array subclass", { l: List.from([1]) }, "/l", /Array subclass/],
    ["sparse array", { s: sparse }, "/s/1", /array hole/],
    ["cycle through an object", cyclic, "/self", /cycle/],
    ["cycle through an array", selfArray, "/1", /cycle/],
    ["indirect cycle", deepCycle, "/a/b/1", /cycle/],
    ["symbol-keyed property", { ok: symbolKeyed }, "/ok", /symbol-keyed property/],
  ])("%s", (_name, value, path, what) => rejects(value, path, what));

  it('escapes "~" and "/" in the path (RFC 6901)', () => {
    rejects({ "a/b": { "~c": NaN } }, "/a~1b/~0c", /NaN/);
  });

  it("canonicalBytes rejects the same way", () => {
    expect(() => canonicalBytes({ a: undefined })).toThrow(CanonicalizationError);
  });
});

describe("property: random JSON values", () => {
  // Deterministic so a failure reproduces: mulberry32.
  const rng = (seed: number) => () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  const rand = rng(8785);
  const int = (n: number): number => Math.floor(rand() * n);

  const randomNumber = (): number => {
    switch (int(4)) {
      case 0:
        return int(2001) - 1000;
      case 1:
        return (rand() - 0.5) * 10 ** (int(60) - 30);
      default: {
        // Any finite double from random bits: subnormals, huge exponents, all digit counts.
        const view = new DataView(new ArrayBuffer(8));
        for (;;) {
          view.setUint32(0, (rand() * 2 ** 32) >>> 0);
          view.setUint32(4, (rand() * 2 ** 32) >>> 0);
          const n = view.getFloat64(0);
          if (Number.isFinite(n) && !Object.is(n, -0)) return n;
        }
      }
    }
  };

  const randomString = (): string => {
    const alphabet = [
      "a",
      "Z",
      "0",
      " ",
      '"',
      "\\",
      "/",
      "\n",
      "\u0000",
      "\u001f",
      "\u007f",
      "é",
      "€",
      "\u2028",
      "\ufb33",
      "\ud83d\ude00",
      "\ud800\udc00",
    ];
    let s = "";
    for (let i = int(8); i > 0; i--) {
      s += int(3) === 0 ? String.fromCharCode(0x20 + int(0xd800 - 0x20)) : (alphabet[int(alphabet.length)] as string);
    }
    return s;
  };

  const randomValue = (depth: number): unknown => {
    switch (depth > 3 ? int(4) : int(6)) {
      case 0:
        return [null, true, false][int(3)];
      case 1:
        return randomNumber();
      case 2:
      case 3:
        return randomString();
      case 4:
        return Array.from({ length: int(5) }, () => randomValue(depth + 1));
      default: {
        const obj: Record<string, unknown> = {};
        for (let i = int(6); i > 0; i--) {
          const key = randomString();
          if (key !== "__proto__") obj[key] = randomValue(depth + 1);
        }
        return obj;
      }
    }
  };

  // Same value with every object's keys inserted in reverse order.
  const reversed = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(reversed);
    if (v === null || typeof v !== "object") return v;
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).reverse()) out[k] = reversed((v as Record<string, unknown>)[k]);
    return out;
  };

  it("round-trips through JSON.parse, is idempotent and ignores insertion order", () => {
    for (let i = 0; i < 2000; i++) {
      const x = randomValue(0);
      const text = canonicalize(x);
      const back: unknown = JSON.parse(text);
      expect(back).toEqual(x);
      expect(canonicalize(back)).toBe(text);
      expect(canonicalize(reversed(x))).toBe(text);
      expect(new TextDecoder("utf-8", { fatal: true }).decode(canonicalBytes(x))).toBe(text);
    }
  });
});

describe("isCanonicalizableJson", () => {
  const encodes = (value: unknown): boolean => {
    try {
      canonicalize(value);
      return true;
    } catch {
      return false;
    }
  };

  it("agrees with canonicalize on JSON values with any UTF-16 code units and out-of-range numbers", () => {
    // Code units drawn among letters, escapes and surrogates of both halves: pairs, lone ones, reversed ones.
    const unit = fc.constantFrom("a", '"', "\n", "\ud83d", "\ude00", "\udbff", "\udc00");
    const text = fc.string({ unit, maxLength: 4 });
    const number = fc.oneof(fc.integer(), fc.constantFrom(Infinity, -Infinity, NaN, -0, 1e308));
    const { value } = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: "small" },
        text,
        number,
        fc.boolean(),
        fc.constant(null),
        fc.array(tie("value"), { maxLength: 3 }),
        fc.dictionary(text, tie("value"), { maxKeys: 3 }),
      ),
    }));
    let refused = 0;
    fc.assert(
      fc.property(value, (v) => {
        const ok = isCanonicalizableJson(v);
        if (!ok) refused++;
        expect(ok).toBe(encodes(v));
      }),
      { numRuns: 2000, seed: 8785 },
    );
    expect(refused).toBeGreaterThan(200); // both answers were exercised
  });

  it("finds a lone surrogate in a nested key or string, and 1e999 as JSON.parse reads it", () => {
    expect(isCanonicalizableJson({ a: [1, { "\udc00": true }] })).toBe(false);
    expect(isCanonicalizableJson([null, ["x\ud800y"]])).toBe(false);
    expect(isCanonicalizableJson(JSON.parse('{"n": [1e999]}'))).toBe(false);
    expect(isCanonicalizableJson({ emoji: "\ud83d\ude00", quote: '"', n: -0 })).toBe(true);
  });
});
