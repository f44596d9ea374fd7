import { describe, expect, it } from "vitest";
import { areaRequest, isReservedPath, resourcePathProblem } from "./paths.ts";

describe("resource paths", () => {
  it("accepts lowercase plain segments only", () => {
    for (const ok of ["supply.json", "ledger/export.csv", "a-b_c.d/e1.json", "0.json"])
      expect(resourcePathProblem(ok), ok).toBeNull();
    for (const bad of [
      "a b.json",
      "",
      "/abs.json",
      "a//b.json",
      "./a.json",
      "../a.json",
      "a/../b.json",
      ".hidden",
      "a\\b.json",
      "A.json",
      "a:b",
      "é.json",
      "x".repeat(201),
    ]) {
      expect(resourcePathProblem(bad), JSON.stringify(bad)).not.toBeNull();
    }
    expect(resourcePathProblem(42)).not.toBeNull();
  });

  it("reserves what the publication itself writes in an area folder", () => {
    expect(isReservedPath("economy", "datapackage.json")).toBe(true);
    expect(isReservedPath("economy", "datapackage.json.sig")).toBe(true);
    expect(isReservedPath("economy", "sub/index.html")).toBe(true);
    expect(isReservedPath("economy", "supply")).toBe(true);
    expect(isReservedPath("diplomacy", "supply")).toBe(false);
  });
});

describe("request paths: one file, every spelling", () => {
  it("resolves every spelling of an area file to the same route", () => {
    const spellings = [
      "/diplomacy/standards.json",
      "/diplomacy//standards.json",
      "//diplomacy/standards.json",
      "/diplomacy%2fstandards.json",
      "/diplomacy%2Fstandards.json",
      "/diplomacy%5cstandards.json",
      "/diplomacy/./standards.json",
      "/diplomacy/%2e/standards.json",
      "/diplomacy/standards.json/",
      "/Diplomacy/Standards.JSON",
      "/%64iplomacy/standards.json",
    ];
    for (const raw of spellings) {
      const r = areaRequest(raw);
      expect(r?.route?.file.path, raw).toBe("standards.json");
      expect(r?.area, raw).toBe("diplomacy");
    }
    expect(areaRequest("/economy//supply")?.route).toMatchObject({ kind: "live", file: { path: "supply.json" } });
    expect(areaRequest("/government/ledger%2Fexport")?.route?.kind).toBe("export");
  });

  it("is not an area file when it is not under an area, climbs, or cannot be decoded", () => {
    expect(areaRequest("/v1/pulse/badge")).toBeNull();
    expect(areaRequest("/")).toBeNull();
    expect(areaRequest("/diplomacy/%2e%2e/package.json")).toBeNull();
    expect(areaRequest("/diplomacy/%E0%A4%A")).toBeNull();
    expect(areaRequest("/diplomacy/")).toEqual({ area: "diplomacy", path: "", route: null });
    expect(areaRequest("/diplomacy/index.html")?.route).toBeNull();
    expect(areaRequest("/diplomacy/standards.json%00")?.route).toBeNull();
    // Decoded once, as the static server decodes: a double-encoded slash is a literal "%2f".
    expect(areaRequest("/diplomacy%252fstandards.json")).toBeNull();
  });
});
