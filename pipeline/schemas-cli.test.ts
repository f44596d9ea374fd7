import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { renderPublishedSchemas, schemaFileName } from "../core/schemas/published-files.ts";
import { filesUnder } from "../store/files.ts";
import { diffSchemaFiles, SCHEMAS_DIR } from "./schemas-cli.ts";
import { schemaProblems } from "./cli.ts";
import { verifySchemas } from "../site/src/lib/datapackage.ts";
import { tempDir } from "../test/support/store/helpers.ts";

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
    expect(filesUnder(SCHEMAS_DIR)).toEqual([...rendered.keys()].map(schemaFileName).sort());
    for (const [name, text] of rendered) {
      const onDisk = readFileSync(join(SCHEMAS_DIR, schemaFileName(name)), "utf8");
      expect(onDisk === text, `${name}: file differs, run \`npm run schemas\``).toBe(true);
    }
  });

  it("a schema loosened by hand, or a file no registry entry gives, fails pipeline --check and the site build", () => {
    const { dir, cleanup } = tempDir("schemas-");
    try {
      const schemas = join(dir, "schemas");
      cpSync(SCHEMAS_DIR, schemas, { recursive: true });
      expect(schemaProblems(dir)).toEqual([]);
      expect(verifySchemas(dir).sort()).toEqual([...rendered.keys()].map(schemaFileName).sort());
      // Still valid JSON Schema that every published file still passes: only the comparison notices.
      const file = join(schemas, "economy/supply.schema.json");
      const loosened = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
      delete loosened.required;
      loosened.additionalProperties = true;
      writeFileSync(file, `${JSON.stringify(loosened, null, 2)}\n`);
      writeFileSync(join(schemas, "notes.txt"), "not a schema\n");
      expect(diffSchemaFiles(schemas, rendered)).toMatchObject({
        missing: [],
        changed: ["economy/supply.schema.json"],
        stale: ["notes.txt"],
      });
      expect(schemaProblems(dir)).toEqual([
        `${file} differs from what core/schemas gives (\`npm run schemas\` writes them)`,
        `${join(schemas, "notes.txt")} is no schema core/schemas gives (\`npm run schemas\` writes them)`,
      ]);
      expect(() => verifySchemas(dir)).toThrow(
        expect.objectContaining({
          code: "schemas-unverified",
          message: expect.stringMatching(/differs  economy\/supply\.schema\.json\n  stale    notes\.txt$/),
        }),
      );
    } finally {
      cleanup();
    }
  });
});
