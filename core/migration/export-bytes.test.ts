import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { convertV1Export, exportLines } from "./convert.ts";
import { snapshotExport } from "./export-bytes.ts";
import { sameDecimal } from "./export-leaves.ts";
import { jsonlRoot, snapshotLeaf } from "./snapshot.ts";

/** The reference path: convert.ts and the leaves of snapshot.ts, from the text. */
function reference(bytes: Buffer) {
  const conversion = convertV1Export(exportLines(bytes.toString("utf8")));
  const jsonl = conversion.balances.map((b) => `${snapshotLeaf(b)}\n`).join("");
  return { conversion, jsonl, root: jsonlRoot(jsonl) };
}

function expectSame(bytes: Buffer) {
  const ref = reference(bytes);
  const fast = snapshotExport(bytes);
  expect(fast.jsonl.toString("utf8")).toBe(ref.jsonl);
  expect(fast.mismatches).toEqual(ref.conversion.mismatches);
  expect(fast.lines).toBe(ref.conversion.lines);
  expect(fast.size).toBe(ref.conversion.balances.length);
  expect(fast.totalShards).toBe(ref.conversion.totalShards);
  expect(Buffer.from(fast.rootHash).equals(Buffer.from(ref.root.rootHash))).toBe(true);
}

const AWKWARD = [
  '{"address":"plain","balance_gic":12}',
  '{"address":"six","balance_gic":0.123456}',
  '{"address":"seven-zero","balance_gic":1.0000000}',
  '{"address":"seven","balance_gic":1.0000001}',
  '{"address":"float-sum","balance_gic":0.30000000000000004}',
  '{"address":"origin-bug","balance_gic":1.005}',
  '{"address":"exp","balance_gic":1E2}',
  '{"address":"exp-small","balance_gic":1e-6}',
  '{"address":"exp-too-small","balance_gic":1e-7}',
  '{"address":"exp-frac","balance_gic":2.5E-3}',
  '{"address":"exp-plus","balance_gic":1.5e+3}',
  '{"address":"exp-zeros","balance_gic":100e-8}',
  '{"address":"exp-lead","balance_gic":0.000001e6}',
  '{"address":"exp-huge","balance_gic":1e4097}',
  '{"address":"exp-huge-zero","balance_gic":0e99999}',
  '{"address":"exp-tiny-zero","balance_gic":0.0e-99999}',
  '{"address":"exp-edge","balance_gic":1e4096}',
  '{"address":"zero","balance_gic":0}',
  '{"address":"zero-frac","balance_gic":0.000000}',
  '{"address":"neg-zero","balance_gic":-0}',
  '{"address":"neg","balance_gic":-12.5}',
  '{"address":"neg-precise","balance_gic":-1e-7}',
  '{"address":"max","balance_gic":9223372036854.775807}',
  '{"address":"max-plus","balance_gic":9223372036854.775808}',
  '{"address":"max-exp","balance_gic":9223372036854775807e-6}',
  '{"address":"twenty","balance_gic":12345678901234567890}',
  '{"address":"big-nine","balance_gic":9999999999999.999999}',
  '{"address":"leading-zero","balance_gic":01}',
  '{"address":"dot","balance_gic":1.}',
  '{"address":"dot-first","balance_gic":.5}',
  '{"address":"plus","balance_gic":+1}',
  '{"address":"nan","balance_gic":NaN}',
  '{"address":"inf","balance_gic":Infinity}',
  '{"address":"null","balance_gic":null}',
  '{"address":"string","balance_gic":"17.25"}',
  '{"address":"spaced" , "balance_gic" : 3 }',
  '{ "balance_gic": 4, "address": "reordered" }',
  '{"address":"crlf","balance_gic":5}\r',
  '{"address":"esc\\u0061ped","balance_gic":6}',
  '{"address":"bad\\u0020space","balance_gic":6}',
  '{"address":"has space","balance_gic":1}',
  '{"address":"-leading-dash","balance_gic":1}',
  `{"address":"${"x".repeat(128)}","balance_gic":1}`,
  `{"address":"${"y".repeat(129)}","balance_gic":1}`,
  '{"address":"été","balance_gic":1}',
  '{"address":"extra","balance_gic":1,"note":"x"}',
  '{"address":"nested","balance_gic":{"v":1}}',
  '{"address":"twice","address":"twice","balance_gic":1}',
  '{"address":7,"balance_gic":1}',
  '{"balance_gic":1}',
  "",
  "not json",
  "[1,2]",
  '{"address":"dup","balance_gic":1}',
  '{"address":"dup","balance_gic":NaN}',
  '{"address":"dup","balance_gic":1}',
  '{"address":"Dup","balance_gic":1}',
  '{"address":"a:b.c_d-e","balance_gic":7.25}',
];

describe("snapshotExport", () => {
  it("gives exactly the reference path's leaves, root, mismatches and totals on awkward lines", () => {
    expectSame(Buffer.from(`${AWKWARD.join("\n")}\n`));
    // Without a final newline, with a blank last line, with a byte-order mark and bytes that are not UTF-8.
    expectSame(Buffer.from(AWKWARD.join("\n")));
    expectSame(Buffer.from(`${AWKWARD.join("\n")}\n\n`));
    expectSame(Buffer.concat([Buffer.from("\ufeff"), Buffer.from(`${AWKWARD.join("\n")}\n`)]));
    expectSame(
      Buffer.concat([
        Buffer.from('{"address":"ok","balance_gic":1}\n{"address":"x'),
        Buffer.from([0xff, 0xfe]),
        Buffer.from('","balance_gic":1}\n'),
      ]),
    );
    expectSame(Buffer.alloc(0));
    expectSame(Buffer.from("\n"));
  });

  it("gives exactly the reference path's on the SAMPLE export and on random exports", () => {
    expectSame(readFileSync("data/sources/migration/v1-balances.jsonl"));
    let seed = 11;
    const next = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const forms = [
      (w: number, f: number) => `${w}.${String(f).padStart(6, "0")}`,
      (w: number, f: number) => `${BigInt(w) * 1_000_000n + BigInt(f)}e-6`,
      (w: number) => `${w}`,
      (w: number, f: number) => `${w}.${String(f).padStart(6, "0")}`.replace(/0+$/, "").replace(/\.$/, ""),
      (w: number, f: number) => `${w}.${String(f).padStart(6, "0")}${next(2) ? "0" : "3"}`,
      (w: number) => `${w}E${next(9)}`,
      (w: number) => `-${w}`,
    ];
    for (let round = 0; round < 5; round++) {
      const lines: string[] = [];
      for (let i = 0; i < 3_000; i++) {
        const address =
          next(50) === 0 && lines.length > 0
            ? JSON.parse(lines[next(lines.length)]!.replace(/,"balance_gic".*/, "}")).address
            : `acct-${next(1 << 30).toString(36)}${"._:-"[next(4)]}${next(1000)}`;
        lines.push(
          `{"address":"${address}","balance_gic":${forms[next(forms.length)]!(next(2) ? next(10_000_000) : next(10), next(1_000_000))}}`,
        );
      }
      expectSame(Buffer.from(`${lines.join("\n")}\n`));
    }
  });

  it("refuses to go on when a converted amount does not equal its v1 text (the per-line verification)", () => {
    const digits = (s: string) => Buffer.from(s);
    const same = (shards: string, text: string) =>
      sameDecimal(digits(shards), 0, shards.length, digits(text), 0, text.length);
    expect(same("1005000", "1.005")).toBe(true);
    expect(same("1005000", "1.00500")).toBe(true);
    expect(same("1005000", "1005e-3")).toBe(true);
    expect(same("1005000", "0.1005E1")).toBe(true);
    expect(same("100000000", "1E2")).toBe(true);
    expect(same("1", "1e-6")).toBe(true);
    expect(same("0", "0")).toBe(true);
    expect(same("0", "-0.000")).toBe(true);
    expect(same("0", "0e99999")).toBe(true);
    expect(same("9223372036854775807", "9223372036854.775807")).toBe(true);
    expect(same("1004999", "1.005")).toBe(false);
    expect(same("1005000", "1.0051")).toBe(false);
    expect(same("10050000", "1.005")).toBe(false);
    expect(same("1005000", "-1.005")).toBe(false);
    expect(same("0", "1e-7")).toBe(false);
    expect(same("1", "0")).toBe(false);
    expect(same("100000000", "1E3")).toBe(false);
  });
});
