import { describe, expect, it } from "vitest";
import { checkOrigin, parseAllowedOrigins } from "./origin.ts";

describe("parseAllowedOrigins", () => {
  it("reads a comma-separated list of origins", () => {
    expect(parseAllowedOrigins(undefined)).toEqual([]);
    expect(parseAllowedOrigins(" ")).toEqual([]);
    expect(parseAllowedOrigins("https://dash.example.org, http://localhost:3000/")).toEqual(["https://dash.example.org", "http://localhost:3000"]);
  });

  it("refuses entries that are not origins", () => {
    for (const bad of ["dash.example.org", "https://dash.example.org/path", "ftp://x.example", "https://u:p@x.example", "*", "https://x.example?q=1"]) {
      expect(() => parseAllowedOrigins(bad), bad).toThrow(/ALLOWED_ORIGINS/);
    }
  });
});

describe("checkOrigin", () => {
  const allow = ["https://dash.example.org"];
  it("allows requests without Origin (not a browser)", () => {
    expect(checkOrigin(undefined, "api.example.org", [])).toEqual({ allowed: true });
  });

  it("allows the same origin over http or https, ports compared with defaults", () => {
    expect(checkOrigin("http://127.0.0.1:4321", "127.0.0.1:4321", []).allowed).toBe(true);
    expect(checkOrigin("https://API.example.org", "api.example.org", []).allowed).toBe(true);
    expect(checkOrigin("https://api.example.org", "api.example.org:443", []).allowed).toBe(true);
    expect(checkOrigin("http://127.0.0.1:4322", "127.0.0.1:4321", []).allowed).toBe(false);
  });

  it("allows configured origins and refuses the rest", () => {
    expect(checkOrigin("https://dash.example.org", "api.example.org", allow).allowed).toBe(true);
    expect(checkOrigin("http://dash.example.org", "api.example.org", allow).allowed).toBe(false);
    expect(checkOrigin("https://evil.example", "api.example.org", allow).allowed).toBe(false);
    expect(checkOrigin("null", "api.example.org", allow).allowed).toBe(false);
    expect(checkOrigin("chrome-extension://abc", "api.example.org", allow).allowed).toBe(false);
    expect(checkOrigin("https://evil.example", undefined, allow).allowed).toBe(false);
  });
});
