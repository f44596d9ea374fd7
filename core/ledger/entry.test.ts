import { describe, expect, it } from "vitest";
import { canonicalize } from "../canonical.ts";
import { digestOf } from "../digest.ts";
import { leafHash } from "../merkle.ts";
import {
  entryShapeProblem,
  entryText,
  isLedgerTimestamp,
  sealEntry,
  sealPayloadText,
  type JsonObject,
} from "./entry.ts";

const fields = {
  seq: 3,
  type: "mic_burn",
  payload: { reason: "fee “burn” ✓", amount_shards: "250000", account: "treasury" },
  ts: "2026-01-02T03:04:05.678Z",
  prev: `sha256:${"ab".repeat(32)}`,
};

describe("ledger entry", () => {
  it("hashes the JCS of the entry without hash, and its leaf is the JCS of the whole entry", () => {
    const sealed = sealEntry(fields);
    expect(sealed.entry.hash).toBe(digestOf(fields));
    expect(sealed.text).toBe(canonicalize(sealed.entry));
    expect(sealed.payloadText).toBe(canonicalize(fields.payload));
    expect(Buffer.from(sealed.leafHash)).toEqual(Buffer.from(leafHash(new TextEncoder().encode(sealed.text))));
    expect(sealEntry({ ...fields, prev: null }).text).toContain('"prev":null');
  });

  it("rebuilds the whole entry's JCS from the stored payload text", () => {
    const payloads: JsonObject[] = [
      fields.payload,
      {},
      { quote: 'a"b\\c\n\u0001', emoji: "😀", nested: { z: [1.5, -0, 1e21, true, null], a: "é" } },
    ];
    for (const payload of payloads) {
      for (const prev of [null, fields.prev]) {
        const sealed = sealEntry({ ...fields, payload, prev, type: 'type.with"quote' });
        expect(entryText(sealed.entry, sealed.payloadText)).toBe(sealed.text);
        expect(entryText(sealed.entry, sealed.payloadText)).toBe(canonicalize(sealed.entry));
      }
    }
    // A stored payload text that is not canonical gives another text (so another leaf).
    const sealed = sealEntry(fields);
    expect(entryText(sealed.entry, JSON.stringify(fields.payload))).not.toBe(sealed.text);
  });

  it("seals from the payload's JCS text exactly as from the payload, whatever the other members hold", () => {
    for (const extra of [
      {},
      { type: 'odd "type" é', prev: null },
      { seq: 0, ts: "2026-12-31T23:59:59.999Z" },
      { seq: 2 ** 40 },
    ]) {
      const f = { ...fields, ...extra };
      const sealed = sealEntry(f);
      const fromText = sealPayloadText(f, canonicalize(f.payload));
      expect(fromText.hash).toBe(sealed.entry.hash);
      expect(fromText.text).toBe(sealed.text);
      expect(Buffer.from(fromText.leaf, "latin1")).toEqual(Buffer.from(sealed.leafHash));
    }
  });

  it("refuses payloads that are not I-JSON", () => {
    expect(() => sealEntry({ ...fields, payload: { n: Number.NaN } })).toThrow(/NaN/);
    expect(() => sealEntry({ ...fields, type: "bad\ud800" })).toThrow();
  });

  it("accepts only real UTC instants with milliseconds", () => {
    expect(isLedgerTimestamp("2026-01-02T03:04:05.678Z")).toBe(true);
    for (const bad of [
      "2026-01-02T03:04:05Z",
      "2026-01-02T03:04:05.678+00:00",
      "2026-02-29T00:00:00.000Z",
      "2026-01-02",
      17,
      null,
    ]) {
      expect(isLedgerTimestamp(bad), String(bad)).toBe(false);
    }
  });

  it("names what is wrong with a malformed entry", () => {
    const good = sealEntry(fields).entry;
    expect(entryShapeProblem(good)).toBeNull();
    expect(entryShapeProblem([])).toMatch(/not a JSON object/);
    expect(entryShapeProblem({ ...good, extra: 1 })).toMatch(/entry keys/);
    expect(entryShapeProblem({ ...good, seq: -1 })).toMatch(/seq/);
    expect(entryShapeProblem({ ...good, payload: [] })).toMatch(/payload/);
    expect(entryShapeProblem({ ...good, ts: "yesterday" })).toMatch(/ts/);
    expect(entryShapeProblem({ ...good, prev: 5 })).toMatch(/prev/);
  });
});
