import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DataError } from "./data-error.ts";
import { JsonArrayValidator } from "./json-array.ts";
import { JsonSchemaSet } from "./json-schemas.ts";

const REPO = new URL("../..", import.meta.url).pathname;
const schemas = new JsonSchemaSet(join(REPO, "data", "schemas"));

describe("the streaming JSON array validator", () => {
  const row = schemas.validator(JsonSchemaSet.idOf("government/audit-trail-row"));
  const good = {
    timestamp: "2026-01-01T00:00:00.000Z",
    event_type: "mic_mint",
    agent: "S-1",
    data: '{"a":"x\\"y]},"}',
    attestation_hash: `sha256:${"0".repeat(64)}`,
  };

  it("a JSON array is validated item by item however it is cut into pieces", () => {
    const text = `[\n${JSON.stringify(good)},\n${JSON.stringify({ ...good, agent: "S-2" })}\n]\n`;
    for (const size of [1, 2, 7, text.length]) {
      const v = new JsonArrayValidator("t.json", row);
      for (let i = 0; i < text.length; i += size) v.feed(text.slice(i, i + size));
      v.end();
      expect(v.items).toBe(2);
    }
    const empty = new JsonArrayValidator("t.json", row);
    empty.feed("[]\n");
    empty.end();
    expect(empty.items).toBe(0);
  });

  it("continued after items validated before, it wants a comma or the closing bracket first", () => {
    const tail = `,\n${JSON.stringify({ ...good, agent: "S-3" })}\n]\n`;
    for (const size of [1, 5, tail.length]) {
      const v = new JsonArrayValidator("t.json", row);
      v.continueAfter(2);
      for (let i = 0; i < tail.length; i += size) v.feed(tail.slice(i, i + size));
      v.end();
      expect(v.items).toBe(3);
    }
    const closed = new JsonArrayValidator("t.json", row);
    closed.continueAfter(2);
    closed.feed("\n]\n");
    closed.end();
    expect(closed.items).toBe(2);
    const noComma = new JsonArrayValidator("t.json", row);
    noComma.continueAfter(2);
    noComma.feed(`\n${JSON.stringify(good)}\n]`);
    expect(() => noComma.end()).toThrow(/item 3: no comma before it/);
    const fromNone = new JsonArrayValidator("t.json", row);
    fromNone.continueAfter(0);
    fromNone.feed(`\n${JSON.stringify(good)}\n]\n`);
    fromNone.end();
    expect(fromNone.items).toBe(1);
  });

  it("a large JSON array, one item per line or pretty-printed, is checked in pieces and names a bad item", () => {
    const items = Array.from({ length: 3000 }, (_, i) => ({
      ...good,
      agent: `S-${i}`,
      data: `{"i":${i},"s":"a\\\\\\"b, ]\\n"}`,
    }));
    const layouts = [
      `[\n${items.map((x) => JSON.stringify(x)).join(",\n")}\n]\n`,
      `${JSON.stringify(items, null, 2)}\n`,
      `[${items.map((x) => JSON.stringify(x)).join(" , ")}]`,
    ];
    for (const text of layouts) {
      expect(text.length).toBeGreaterThan(1 << 19);
      for (const size of [4099, 65_536, 300_001]) {
        const v = new JsonArrayValidator("big.json", row);
        for (let i = 0; i < text.length; i += size) v.feed(text.slice(i, i + size));
        v.end();
        expect(v.items).toBe(3000);
      }
      const broken = text.replace('"agent": "S-2500"', '"agent": ""').replace('"agent":"S-2500"', '"agent":""');
      const v = new JsonArrayValidator("big.json", row);
      expect(() => {
        for (let i = 0; i < broken.length; i += 70_000) v.feed(broken.slice(i, i + 70_000));
        v.end();
      }).toThrow(/^big\.json: item 2501 does not match its JSON Schema: \/agent/);
    }
  });

  it("a JSON array refuses stray commas, trailing text, a missing bracket and a bad item", () => {
    const run = (text: string) => {
      const v = new JsonArrayValidator("t.json", row);
      v.feed(text);
      v.end();
    };
    expect(() => run(`[${JSON.stringify(good)},]`)).toThrow(/item 2: empty element/);
    expect(() => run(`[${JSON.stringify(good)}] x`)).toThrow(/text after the end/);
    expect(() => run(`[${JSON.stringify(good)}`)).toThrow(/never closed/);
    expect(() => run(`{"a":1}`)).toThrow(/not a JSON array/);
    expect(() => run(`[${JSON.stringify({ ...good, agent: "" })}]`)).toThrow(DataError);
  });
});
