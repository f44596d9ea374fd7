import { describe, expect, test } from "vitest";
import {
  KeyRequestBody,
  KeyRequestReference,
  labelOfRequest,
  looksAcademic,
  receivedPayload,
  requestReference,
} from "./key-requests.ts";

describe("key requests", () => {
  test("references: 40 random bits in Crockford base32, KR-XXXX-XXXX", () => {
    expect(requestReference(new Uint8Array(5))).toBe("KR-0000-0000");
    expect(requestReference(new Uint8Array([255, 255, 255, 255, 255]))).toBe("KR-ZZZZ-ZZZZ");
    expect(requestReference(new Uint8Array([0x12, 0x34, 0x56, 0x78, 0x9a]))).toBe("KR-28T5-CY4T");
    expect(KeyRequestReference.safeParse("KR-28T5-CY4T").success).toBe(true);
    expect(KeyRequestReference.safeParse("KR-28T5-CY4I").success).toBe(false); // I is not Crockford
    expect(() => requestReference(new Uint8Array(4))).toThrow(RangeError);
  });

  test("the body: government needs no volume, the other tiers do; the honeypot must stay empty", () => {
    const base = { affiliation: "A", contact: "a@b.gov", purpose: "p" };
    expect(KeyRequestBody.safeParse({ ...base, tier: "government" }).success).toBe(true);
    expect(KeyRequestBody.safeParse({ ...base, tier: "economist" }).success).toBe(false);
    expect(KeyRequestBody.safeParse({ ...base, tier: "economist", expected_volume: 10 }).success).toBe(true);
    expect(KeyRequestBody.safeParse({ ...base, tier: "government", website: "" }).success).toBe(true);
    expect(KeyRequestBody.safeParse({ ...base, tier: "government", website: "x" }).success).toBe(false);
    expect(KeyRequestBody.safeParse({ ...base, tier: "government", contact: "a@b" }).success).toBe(false);
    expect(KeyRequestBody.safeParse({ ...base, tier: "government", affiliation: "a\nb" }).success).toBe(false);
  });

  test("payload and label", () => {
    const payload = receivedPayload(
      { tier: "academic", affiliation: "x".repeat(200), contact: "r@u.ac.uk", purpose: "p", expected_volume: 5 },
      "KR-0000-0000",
      new Date(0),
    );
    expect(payload).toEqual({
      reference: "KR-0000-0000",
      tier: "academic",
      affiliation: "x".repeat(200),
      contact: "r@u.ac.uk",
      purpose: "p",
      expected_volume: 5,
      received_at: "1970-01-01T00:00:00.000Z",
    });
    const label = labelOfRequest(payload);
    expect(label).toHaveLength(200);
    expect(label.endsWith(" (KR-0000-0000)")).toBe(true);
  });

  test("the academic-domain hint", () => {
    for (const address of ["a@mit.edu", "a@cs.ox.ac.uk", "a@usp.edu.br"]) expect(looksAcademic(address)).toBe(true);
    for (const address of ["a@gmail.com", "a@education.example", "a@edu.example.com"])
      expect(looksAcademic(address)).toBe(false);
  });
});
