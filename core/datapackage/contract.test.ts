import { describe, expect, it } from "vitest";
import { AREAS, areaAliases, areaFile, areaFiles, areaRoute, isKeyed, mediaTypeOf } from "./contract.ts";
import { isReservedPath, resourcePathProblem } from "./paths.ts";

describe("the published-data contract", () => {
  it("keys exactly the spec's government files; everything else is public", () => {
    const keyed = AREAS.flatMap((a) =>
      areaFiles(a)
        .filter(isKeyed)
        .map((f) => `${f.area}/${f.path} ${f.access}`),
    );
    expect(keyed.sort()).toEqual([
      "government/compliance-report.json government",
      "government/ledger/export.csv government",
      "government/ledger/export.json government",
      "government/policy-impact.json government",
    ]);
  });

  it("lists the spec's files per area, each a valid, unreserved path with a known media type", () => {
    expect(AREAS.map((a) => areaFiles(a).length)).toEqual([7, 6, 6, 9, 3]);
    for (const area of AREAS) {
      for (const f of areaFiles(area)) {
        expect(resourcePathProblem(f.path), f.path).toBeNull();
        expect(isReservedPath(area, f.path), f.path).toBe(false);
        expect(f.mediatype, f.path).toBe(mediaTypeOf(f.path));
      }
    }
  });

  it("serves aliases with their file's bytes and tier, the live supply in its file's schema and tier", () => {
    expect(areaRoute("economy", "supply")).toEqual({ kind: "live", file: areaFile("economy", "supply.json") });
    expect(areaRoute("economy", "mii")).toEqual({ kind: "alias", file: areaFile("economy", "mii.json") });
    expect(areaRoute("government", "ledger/export")).toMatchObject({
      kind: "export",
      file: { path: "ledger/export.json", access: "government" },
    });
    expect(areaRoute("economy", "supply.json")?.kind).toBe("file");
    expect(areaRoute("diplomacy", "supply")).toBeNull();
    for (const area of AREAS)
      for (const [, r] of Object.entries(areaAliases(area))) expect(areaFile(area, r.file)).not.toBeNull();
  });

  it("knows no file outside the table, whatever the spelling", () => {
    expect(areaFile("economy", "Supply.json")).toBeNull();
    expect(areaFile("economy", "constructor")).toBeNull();
    expect(areaFile("economy", "__proto__")).toBeNull();
    expect(areaRoute("economy", "hasOwnProperty")).toBeNull();
    expect(mediaTypeOf("a.exe")).toBeNull();
    expect(mediaTypeOf("noext")).toBeNull();
  });
});
