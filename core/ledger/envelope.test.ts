import { describe, expect, it } from "vitest";
import { canonicalize } from "../canonical.ts";
import { entryText, sealEntry, type JsonObject } from "./entry.ts";
import { envelopeFromEntryText, envelopeText } from "./envelope.ts";

describe("envelopeText", () => {
  it("is the JCS of the entry without its payload", () => {
    for (const [seq, prev, type] of [
      [0, null, "sample.generated"],
      [41, `sha256:${"ab".repeat(32)}`, 'weird "type" é\u0001'],
    ] as const) {
      const { entry } = sealEntry({
        seq,
        type,
        payload: { secret: "never published" },
        ts: "2026-01-01T00:00:00.000Z",
        prev,
      });
      const { payload: _payload, ...envelope } = entry;
      expect(envelopeText(entry)).toBe(canonicalize(envelope));
      expect(envelopeText(entry)).not.toContain("never published");
    }
  });
});

describe("envelopeFromEntryText", () => {
  it("cuts the envelope out of the entry's text, whatever its hash, payload and type hold", () => {
    const payloads: JsonObject[] = [
      {},
      { secret: "never published", note: `,"payload":{"x":1},"prev":null,` },
      { "é€😀": ["a", { b: null }], n: -1.5e-7 },
    ];
    for (const [i, payload] of payloads.entries()) {
      for (const [seq, prev, type] of [
        [0, null, "sample.generated"],
        [41, `sha256:${"ab".repeat(32)}`, 'weird ,"payload": "type" é\u0001'],
      ] as const) {
        const { entry } = sealEntry({ seq: seq + i, type, payload, ts: "2026-01-01T00:00:00.000Z", prev });
        const payloadText = canonicalize(payload);
        expect(envelopeFromEntryText(entryText(entry, payloadText), payloadText)).toBe(envelopeText(entry));
      }
    }
  });

  it("gives null for a text not laid out as an entry's", () => {
    expect(envelopeFromEntryText(`{"prev":null}`, "{}")).toBeNull();
    expect(envelopeFromEntryText(`{"hash":"x","payload":{},"seq":1}`, "{}")).toBeNull();
    expect(envelopeFromEntryText(`{"hash":"x","payload":{"a":1},"prev":null}`, "{}")).toBeNull();
  });
});
