import { afterEach, describe, expect, it } from "vitest";
import { join } from "node:path";
import { writeFiles, makeDataDir, tempDir } from "../../../test/support/pipeline/pulse/helpers.ts";
import { datasetSchemaValidity } from "./schemas.ts";

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

const badge = { schemaVersion: 1, label: "GI", message: "95.0%", color: "yellowgreen", cacheSeconds: 300 };

describe("gi.schema_valid", () => {
  it("validates schemas against the meta-schema, pulse copies and datapackage resources against theirs", () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const data = makeDataDir(dir);
    // Only the three schema files so far: all valid.
    expect(datasetSchemaValidity(data)).toMatchObject({
      value: 1,
      reason: expect.stringMatching(/^3 of 3 JSON files/),
    });

    writeFiles(data, {
      "v1/pulse/badge.json": JSON.stringify(badge),
      "v1/pulse/badge/gi.json": JSON.stringify({ ...badge, color: "purple" }), // not a badge color
      "v1/pulse/history.json": JSON.stringify({ count: 0, items: [] }),
      "areas/x/datapackage.json": JSON.stringify({
        resources: [
          { path: "badge.json", jsonSchema: "https://integrity-platform.example/schemas/pulse-badge.schema.json" },
          { path: "gone.json", jsonSchema: "https://integrity-platform.example/schemas/pulse-badge.schema.json" },
          { path: "rows.csv", jsonSchema: "https://integrity-platform.example/schemas/pulse-badge.schema.json" },
        ],
      }),
      "areas/x/badge.json": JSON.stringify(badge),
      "sources/notes.json": "{}", // no schema: not counted
      "schemas/broken.schema.json": JSON.stringify({
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "nonsense",
      }),
    });
    const signal = datasetSchemaValidity(data);
    // Counted: 4 schemas (1 broken), badge.json, badge/gi.json (bad), history.json, areas/x/badge.json, gone.json (missing).
    expect(signal.value).toBe(6 / 9);
    expect(signal.reason).toMatch(/^6 of 9 JSON files/);
  });

  it("is unmeasured when no file has a matching schema", () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    writeFiles(dir, { "data/sources/a.json": "{}" });
    expect(datasetSchemaValidity(join(dir, "data")).value).toBeNull();
  });
});
