import { describe, expect, it } from "vitest";
import {
  CACHE_DEFAULT,
  effectiveHeaders,
  HeaderRuleError,
  parseHeadersFile,
  pathMatches,
  renderHeadersFile,
  type HeaderRule,
} from "./header-rules.ts";

const RULES: HeaderRule[] = [
  { path: "/*", headers: { "X-Content-Type-Options": "nosniff" }, why: "every response" },
  { path: "/_astro/*", headers: { "Cache-Control": "public, max-age=31536000, immutable" }, why: "hashed" },
  { path: "/ledger/tile/*", headers: { "Cache-Control": "public, max-age=31536000, immutable" }, why: "" },
  {
    path: "/ledger/tile/0/000.p/7",
    headers: { "Cache-Control": "public, max-age=60, must-revalidate" },
    detach: ["Cache-Control"],
    why: "partial",
  },
];

describe("header rules", () => {
  it("read back from their _headers text are the same rules", () => {
    const parsed = parseHeadersFile(renderHeadersFile(RULES));
    expect(parsed.map(({ path, headers, detach }) => ({ path, headers, detach }))).toEqual(
      RULES.map(({ path, headers, detach }) => ({ path, headers, detach: detach ?? [] })),
    );
  });

  it("give a path the headers of every matching rule, a detach replacing an earlier one", () => {
    expect(effectiveHeaders(RULES, "/_astro/x.js")).toEqual({
      "X-Content-Type-Options": "nosniff",
      "Cache-Control": "public, max-age=31536000, immutable",
    });
    expect(effectiveHeaders(RULES, "/ledger/tile/0/000.p/7")["Cache-Control"]).toBe(
      "public, max-age=60, must-revalidate",
    );
    expect(effectiveHeaders(RULES, "/index.html")["Cache-Control"]).toBe(CACHE_DEFAULT);
    expect(pathMatches("/*.sig", "/a/datapackage.json.sig")).toBe(true);
    expect(pathMatches("/*.sig", "/a.sigx")).toBe(false);
  });

  it("refuse two rules setting one header for a path", () => {
    const clash = [...RULES, { path: "/_astro/*", headers: { "Cache-Control": "no-store" }, why: "" }];
    expect(() => effectiveHeaders(clash, "/_astro/x.js")).toThrow(HeaderRuleError);
  });
});
