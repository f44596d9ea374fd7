import { describe, expect, it } from "vitest";
import { AREA_DECLARATIONS, AREAS, areaDeclaration } from "./index.ts";
import { declareArea, declaredOutput, routePath, socketPath, type AreaDeclaration } from "./declaration.ts";

const base: AreaDeclaration<"zoology"> = {
  name: "zoology",
  cathedral: "FOR-ZOOLOGISTS",
  manifest: { title: "Zoology", description: "Animals." },
  files: { "animals.json": "public", "notes.csv": "institutional" },
  routes: { animals: { file: "animals.json", kind: "alias" } },
  rate: { bucket: "zoology", quotas: { anonymous: 10 } },
  page: { label: "Zoology", summary: "Animals." },
  apiTag: "Zoology area",
  attested: ["animals.json"],
};

describe("an area declaration", () => {
  it("gives a step its id, area, path, media type and access", () => {
    const zoology = declareArea(base);
    expect(declaredOutput(zoology, "notes.csv")).toEqual({
      id: "zoology/notes.csv",
      area: "zoology",
      path: "notes.csv",
      mediatype: "text/csv",
      access: "institutional",
    });
    expect(() => declaredOutput(zoology, "birds.json")).toThrow(/zoology\/birds\.json: not a file/);
  });

  it("gives the request path of a declared route or WebSocket, and refuses an undeclared one", () => {
    const zoology = declareArea({ ...base, sockets: ["feeding"] });
    expect(routePath(zoology, "animals")).toBe("/zoology/animals");
    expect(socketPath(zoology, "feeding")).toBe("/zoology/feeding");
    expect(() => routePath(zoology, "feeding")).toThrow(/route feeding: not declared/);
    expect(() => socketPath(zoology, "animals")).toThrow(/socket animals: not declared/);
    expect(() => declareArea({ ...base, sockets: ["animals"] })).toThrow(/socket animals: also a file or route/);
  });

  it("refuses a bad name, an unknown format, a route or attested file it does not publish, no anonymous quota", () => {
    expect(() => declareArea({ ...base, name: "Zoo logy" })).toThrow(/lowercase letters only/);
    expect(() => declareArea({ ...base, files: { "animals.xml": "public" } })).toThrow(/no media type/);
    expect(() => declareArea({ ...base, routes: { birds: { file: "birds.json", kind: "alias" } } })).toThrow(
      /route birds: birds\.json is no file of the area/,
    );
    expect(() => declareArea({ ...base, attested: ["birds.json"] })).toThrow(/attested birds\.json/);
    expect(() => declareArea({ ...base, rate: { bucket: "zoology", quotas: { institutional: 5 } } })).toThrow(
      /no anonymous quota/,
    );
  });

  it("is listed once in the registry, and areas sharing a quota bucket declare the same quotas", () => {
    expect(AREAS).toEqual(AREA_DECLARATIONS.map((d) => d.name));
    expect(new Set(AREAS).size).toBe(AREAS.length);
    for (const area of AREAS) expect(areaDeclaration(area).name).toBe(area);
    for (const a of AREA_DECLARATIONS)
      for (const b of AREA_DECLARATIONS)
        if (a.rate.bucket === b.rate.bucket) expect(a.rate.quotas, `${a.name} and ${b.name}`).toEqual(b.rate.quotas);
  });
});
