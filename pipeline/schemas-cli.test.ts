import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { renderPublishedSchemas, schemaFileName } from "../core/schemas/published-files.ts";
import { diffSchemaFiles, listSchemaFiles, SCHEMAS_DIR } from "./schemas-cli.ts";

describe("published JSON Schema files", () => {
  const rendered = renderPublishedSchemas();

  it("data/schemas/ is exactly what the registry produces (run `npm run schemas` if not)", () => {
    const diff = diffSchemaFiles(SCHEMAS_DIR, rendered);
    const problems = [
      ...diff.missing.map((f) => `missing ${f}`),
      ...diff.changed.map((f) => `differs ${f}`),
      ...diff.stale.map((f) => `stale ${f}`),
    ];
    expect(problems, "data/schemas/ is out of date: run `npm run schemas`").toEqual([]);
    expect(listSchemaFiles(SCHEMAS_DIR)).toEqual([...rendered.keys()].map(schemaFileName).sort());
    for (const [name, text] of rendered) {
      const onDisk = readFileSync(join(SCHEMAS_DIR, schemaFileName(name)), "utf8");
      expect(onDisk === text, `${name}: file differs, run \`npm run schemas\``).toBe(true);
    }
  });
});
