import { describe, expect, it } from "vitest";
import { canonicalize } from "../canonical.ts";
import { sealEntry } from "./entry.ts";
import { envelopeText } from "./envelope.ts";

describe("envelopeText", () => {
  it("is the JCS of the entry without its payload", () => {
    for (const [seq, prev, type] of [[0, null, "sample.generated"], [41, `sha256:${"ab".repeat(32)}`, "weird \"type\" é\u0001"]] as const) {
      const { entry } = sealEntry({ seq, type, payload: { secret: "never published" }, ts: "2026-01-01T00:00:00.000Z", prev });
      const { payload: _payload, ...envelope } = entry;
      expect(envelopeText(entry)).toBe(canonicalize(envelope));
      expect(envelopeText(entry)).not.toContain("never published");
    }
  });
});
