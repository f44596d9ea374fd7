import { describe, expect, it } from "vitest";
import { bearerToken } from "./bearer.ts";

describe("bearerToken", () => {
  it("takes the scheme in any case (RFC 9110 §11.1) and one token68", () => {
    for (const h of ["Bearer abc", "bearer abc", "BEARER abc", "bEaReR  abc"]) expect(bearerToken(h), h).toBe("abc");
    expect(bearerToken("Bearer ipk_A-b_c=")).toBe("ipk_A-b_c=");
  });

  it("refuses other schemes, empty or several tokens, and junk", () => {
    for (const h of [
      undefined,
      "",
      "Bearer",
      "Bearer ",
      "Basic abc",
      "Bearerabc",
      "Bearer abc def",
      "Bearer abc,Bearer def",
      "Bearer\tabc",
      "Bearer a=b",
      `Bearer ${"a".repeat(5000)}`,
    ]) {
      expect(bearerToken(h), String(h).slice(0, 30)).toBeNull();
    }
  });
});
