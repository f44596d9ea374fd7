import { describe, expect, it } from "vitest";
import { Uuid } from "../schemas/common.ts";
import { pulseHash } from "./history.ts";
import { buildPulseRecord, uuidFromDigest } from "./record.ts";

const fields = {
  cycle: "C-200",
  branch: "main",
  giScore: 0.95,
  miiScore: 0.9,
  stats: { totalFiles: 3, totalLines: 40, appsCount: 1, packagesCount: 0, workflowsCount: 1 },
  generatedAt: "2026-01-19T06:00:00.000Z",
  prev: null,
};

describe("deterministic pulse ids", () => {
  it("derives a UUIDv8 from the digest's first 16 bytes, with version and variant bits set", () => {
    const id = uuidFromDigest(`sha256:${"ff".repeat(32)}`);
    expect(id).toBe("ffffffff-ffff-8fff-bfff-ffffffffffff");
    expect(uuidFromDigest(`sha256:${"00".repeat(32)}`)).toBe("00000000-0000-8000-8000-000000000000");
    expect(Uuid.safeParse(id).success).toBe(true);
  });

  it("gives the same record bytes for the same fields, and a different id when any field changes", () => {
    const a = buildPulseRecord(fields);
    const b = buildPulseRecord({ ...fields });
    expect(b).toEqual(a);
    expect(a.hash).toBe(pulseHash(a));
    expect(a.id).toBe(uuidFromDigest(a.hash));
    expect(Object.keys(a).slice(0, 2)).toEqual(["id", "cycle"]); // schema order
    const c = buildPulseRecord({ ...fields, generatedAt: "2026-01-19T06:00:00.001Z" });
    expect(c.id).not.toBe(a.id);
    expect(c.hash).not.toBe(a.hash);
  });

  it("refuses fields the record schema refuses", () => {
    expect(() => buildPulseRecord({ ...fields, giScore: 1.5 })).toThrow(/giScore/);
    expect(() => buildPulseRecord({ ...fields, cycle: "C-0" })).toThrow(/cycle/);
  });
});
