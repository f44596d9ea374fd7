/**
 * The area manifests: Frictionless Data Package v2, checked against the four official profiles
 * (vendor/vectors/frictionless, JSON Schema draft-07) — those this module builds by hand, and
 * every manifest a real run of the area generators writes over a simulated ledger.
 */
import { cpSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { vectorsPath } from "../test/support/vectors.ts";
import type { NewEvent } from "../core/ledger/store.ts";
import { DATASET_KEY, loadSigningKey } from "../store/keys.ts";
import { openLedgerStore } from "../store/open-ledger.ts";
import { tempDir } from "../test/support/store/helpers.ts";
import { steps as realSteps } from "./areas/index.ts";
import { makePulseHistory, writePulseHistory } from "../test/support/pipeline/areas/helpers.ts";
import {
  CSV_DIALECT,
  DATAPACKAGE_PROFILE,
  buildManifest,
  buildResource,
  readManifest,
  renderManifest,
  tableSchemaFromJsonSchema,
  type ResourceInput,
} from "./manifest.ts";
import { runPipeline } from "./runner.ts";
import { simulate } from "./seed/simulate.ts";
import { JsonSchemaSet } from "./validate/json-schemas.ts";
import { ProfileValidator } from "./validate/profiles.ts";
import { verifyAreas } from "./verify.ts";

const REPO = new URL("..", import.meta.url).pathname;
const PROFILES = vectorsPath("frictionless");
const profiles = new ProfileValidator(PROFILES);
const schemas = new JsonSchemaSet(join(REPO, "data", "schemas"));

const HASH = `sha256:${"ab".repeat(32)}`;

function resource(
  overrides: Partial<ResourceInput> & { path: string; mediatype: ResourceInput["step"]["mediatype"] },
): ResourceInput {
  return {
    step: {
      name: overrides.path.replace(/[^a-z0-9.-]/g, "-"),
      path: overrides.path,
      title: "A title",
      description: "A description.",
      mediatype: overrides.mediatype,
      access: "public",
    },
    bytes: 12,
    hash: HASH,
    inputsHash: HASH,
    inputs: { ledger: `${HASH}@3`, "sources/a.json": HASH },
    ...overrides,
  };
}

describe("manifest layout", () => {
  const rowSchema = schemas.schema(JsonSchemaSet.idOf("economy/mic-history-row"));
  const pkg = buildManifest({
    area: "economy",
    resources: [
      buildResource(
        resource({
          path: "supply.json",
          mediatype: "application/json",
          jsonSchema: JsonSchemaSet.idOf("economy/supply"),
        }),
      ),
      buildResource(
        resource({
          path: "mic-history.csv",
          mediatype: "text/csv",
          jsonSchema: JsonSchemaSet.idOf("economy/mic-history-row"),
          tableSchema: tableSchemaFromJsonSchema(rowSchema),
        }),
      ),
      buildResource(
        resource({
          path: "ledger/export.json",
          mediatype: "application/json",
          jsonSchema: { type: "array", items: { $ref: JsonSchemaSet.idOf("government/audit-trail-row") } },
        }),
      ),
      buildResource(resource({ path: "report.pdf", mediatype: "application/pdf" })),
    ],
    ledger: {
      origin: "integrity-platform.example/ledger",
      size: 3,
      root: HASH,
      asOf: "2026-01-01T00:00:00.000Z",
      sample: { generator: "g", seed: "1", notice: "Sample." },
    },
    pulse: { records: 2, root: HASH },
    curated: { "economy/minting.json": HASH },
    created: "2026-01-01T00:00:00.000Z",
  });

  it("conforms to the Data Package, Data Resource, Table Schema and Table Dialect profiles", async () => {
    expect(profiles.check(pkg)).toEqual([]);
  });

  it("has the v2 profile, sorted resources, tables with an inline Table Schema and custom keys", async () => {
    expect(Object.keys(pkg)).toEqual([
      "$schema",
      "name",
      "title",
      "description",
      "version",
      "created",
      "keywords",
      "licenses",
      "sample",
      "sources",
      "resources",
    ]);
    expect(pkg.$schema).toBe(DATAPACKAGE_PROFILE);
    expect(pkg.resources.map((r) => r.path)).toEqual([
      "ledger/export.json",
      "mic-history.csv",
      "report.pdf",
      "supply.json",
    ]);
    const csv = pkg.resources[1]!;
    expect(csv).toMatchObject({
      type: "table",
      format: "csv",
      encoding: "utf-8",
      dialect: CSV_DIALECT,
      access: "public",
      inputs_hash: HASH,
    });
    expect(csv.schema!.fields.map((f) => [f.name, f.type])).toEqual([
      ["timestamp", "datetime"],
      ["cycle", "string"],
      ["sentinel", "string"],
      ["amount", "number"],
      ["cathedral", "string"],
      ["coordination_score", "number"],
    ]);
    expect(pkg.resources[2]).not.toHaveProperty("encoding");
    expect(pkg.resources[3]).not.toHaveProperty("schema");
    // Relative to the area folder, so a reader of the static copy fetches it (core/datapackage/references.ts).
    expect(pkg.resources[3]!.jsonSchema).toBe("../../schemas/economy/supply.schema.json");
    // Datetimes declared with a pattern both Table Schema v1 and v2 readers cast (milliseconds, Z).
    expect(csv.schema!.fields[0]).toMatchObject({ type: "datetime", format: "%Y-%m-%dT%H:%M:%S.%fZ" });
    expect(pkg.resources[3]!.immutablePath).toBe(`sha256/${pkg.resources[3]!.hash.slice(7)}.json`);
    expect(pkg.sample).toBe(true);
    expect(pkg.description).toMatch(/SAMPLE DATA/);
  });

  it("renders the same bytes for the same inputs, whatever the order of the resources", async () => {
    const again = buildManifest({
      ...{ area: "economy" as const, curated: {} },
      resources: [...pkg.resources].reverse(),
    });
    const once = buildManifest({ area: "economy", curated: {}, resources: pkg.resources });
    expect(renderManifest(again)).toBe(renderManifest(once));
    expect(renderManifest(once).endsWith("}\n")).toBe(true);
  });

  it("leaves out sample and created when the data is real and undated", async () => {
    const real = buildManifest({
      area: "diplomacy",
      curated: { "diplomacy/treaty.json": HASH },
      resources: [pkg.resources[3]!],
    });
    expect(real).not.toHaveProperty("sample");
    expect(real).not.toHaveProperty("created");
    expect(profiles.check(real)).toEqual([]);
  });

  it("the profiles reject what v2 forbids", async () => {
    expect(profiles.check({ ...pkg, resources: [] })[0]).toMatch(/datapackage profile/);
    const bad = { ...pkg, resources: [{ ...pkg.resources[1]!, schema: { fields: [{ name: "x", type: "text" }] } }] };
    expect(profiles.check(bad).join("\n")).toMatch(/schema does not conform to the tableschema profile/);
    expect(profiles.check({ ...pkg, created: "yesterday" })[0]).toMatch(/created/);
  });

  it("derives a conforming Table Schema from every CSV row schema of the registry", async () => {
    const rows = readdirSync(join(REPO, "data", "schemas"), { recursive: true, encoding: "utf8" }).filter((f) =>
      f.endsWith("-row.schema.json"),
    );
    expect(rows.length).toBeGreaterThanOrEqual(4);
    for (const file of rows) {
      const schema = JSON.parse(readFileSync(join(REPO, "data", "schemas", file), "utf8")) as Record<string, unknown>;
      const table = tableSchemaFromJsonSchema(schema);
      expect(table.fields.map((f) => f.name)).toEqual(Object.keys(schema.properties as object));
      const descriptor = buildManifest({
        area: "academics",
        curated: {},
        resources: [buildResource(resource({ path: "t.csv", mediatype: "text/csv", tableSchema: table }))],
      });
      expect(profiles.check(descriptor), file).toEqual([]);
    }
  });
});

describe("manifests of a real run", () => {
  it("every area the generators write validates against the profiles and verifies offline", async () => {
    const { dir, cleanup } = tempDir("manifest-e2e-");
    try {
      const dataDir = join(dir, "data");
      cpSync(join(REPO, "data", "schemas"), join(dataDir, "schemas"), { recursive: true });
      cpSync(join(REPO, "data", "sources"), join(dataDir, "sources"), { recursive: true });
      const scores = Array.from({ length: 10 }, (_, i) => [0.95 + (i % 4) / 100, 0.9 + (i % 6) / 100] as const);
      writePulseHistory(
        dataDir,
        makePulseHistory(scores, "2025-12-10T06:00:00.000Z"),
        loadSigningKey(DATASET_KEY, join(dir, "state"), {}),
      );
      const ledger = await openLedgerStore({
        path: join(dir, "ledger.sqlite"),
        origin: "integrity-platform.example/ledger",
        durability: "normal",
      });
      const batch: NewEvent[] = [
        ...simulate({ seed: "manifest-test", size: 1500, now: new Date("2025-12-20T00:00:00.000Z") }),
      ];
      await ledger.append(batch);
      const log: string[] = [];
      const report = await runPipeline({
        dataDir,
        ledger,
        steps: realSteps,
        log: (l) => log.push(l),
        signingKey: () => loadSigningKey(DATASET_KEY, join(dir, "state"), {}),
      });
      await ledger.close();
      expect(
        report.steps.filter((s) => s.status === "failed"),
        log.join("\n"),
      ).toEqual([]);
      const areas = readdirSync(join(dataDir, "areas"));
      expect(areas.length).toBeGreaterThanOrEqual(4);
      for (const area of areas) {
        const manifest = readManifest(join(dataDir, "areas", area, "datapackage.json"))!;
        expect(profiles.check(manifest.descriptor), area).toEqual([]);
        if (manifest.ledger) expect(manifest.descriptor.sample, area).toBe(true);
      }
      const verified = verifyAreas(join(dataDir, "areas"), { profiles: PROFILES });
      expect(verified.filter((r) => !r.ok)).toEqual([]);
    } finally {
      cleanup();
    }
  });
});
