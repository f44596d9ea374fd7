import { describe, expect, it } from "vitest";
import { immutablePathOf, jsonSchemaIdOf, listedResources, schemaIdOf, schemaReference } from "./references.ts";

const ID = "https://integrity-platform.example/schemas/economy/supply.schema.json";

describe("manifest references", () => {
  it("writes schema references relative to the area folder and maps them back to the $id", () => {
    expect(schemaReference(ID)).toBe("../../schemas/economy/supply.schema.json");
    expect(schemaIdOf(schemaReference(ID))).toBe(ID);
    expect(schemaIdOf(ID)).toBe(ID);
    // Resolved as a reader resolves it: from the repository's folder and from the site's URL.
    expect(new URL(schemaReference(ID), "file:///repo/data/areas/economy/datapackage.json").pathname).toBe(
      "/repo/data/schemas/economy/supply.schema.json",
    );
    expect(new URL(schemaReference(ID), "https://cdn.example/economy/datapackage.json").pathname).toBe(
      "/schemas/economy/supply.schema.json",
    );
    expect(jsonSchemaIdOf({ type: "array", items: { $ref: schemaReference(ID) } })).toBe(ID);
    for (const bad of ["../../schemas/../keys/x", "../schemas/x.json", "https://elsewhere.example/x", 3, null])
      expect(schemaIdOf(bad)).toBeNull();
    expect(() => schemaReference("https://elsewhere.example/x.schema.json")).toThrow();
  });

  it("names content-addressed copies by hash and extension, and lists public then keyed resources", () => {
    expect(immutablePathOf("ledger/export.csv", `sha256:${"ab".repeat(32)}`)).toBe(`sha256/${"ab".repeat(32)}.csv`);
    expect(immutablePathOf("supply", `sha256:${"ab".repeat(32)}`)).toBe(`sha256/${"ab".repeat(32)}`);
    expect(listedResources({ resources: [1, 2], keyedResources: [3] })).toEqual([1, 2, 3]);
    expect(listedResources({ resources: "x" })).toEqual([]);
  });
});
