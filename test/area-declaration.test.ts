/**
 * Adding an area is its declaration, its line in the registry, its steps and its page
 * (docs/contributing.md, "How to add an area"): on a copy of the source tree, a throwaway area
 * (`zoology`: one public and one keyed file, its own quota bucket, one step) is added exactly that
 * way, and a Node process in the copy reads it back through the contract, the pipeline's steps and
 * manifest builder, the API (path spelling, quota, OpenAPI description), the portal's area list and
 * the `npm run -s areas` listing the regeneration workflow loops over — no other file edited.
 */
import { spawnSync } from "node:child_process";
import { cpSync, readFileSync, symlinkSync, writeFileSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useCompileCache } from "./support/compile-cache.ts";
import { tempDir } from "./support/store/helpers.ts";

const REPO = resolve(fileURLToPath(new URL("..", import.meta.url)));

const DECLARATION = `import { declareArea } from "./declaration.ts";

export const zoology = declareArea({
  name: "zoology",
  cathedral: "FOR-ZOOLOGISTS",
  manifest: { title: "Integrity Platform — zoology", description: "Animals and their keepers' notes." },
  files: { "animals.json": "public", "keeper-notes.json": "institutional" },
  rate: { bucket: "zoology", quotas: { anonymous: 7, institutional: 70 } },
  page: { label: "Zoology", summary: "The animals of the platform." },
  apiTag: "Zoology area",
  attested: ["animals.json"],
});
`;

const STEPS = `import { zoology } from "../../../core/areas/zoology.ts";
import { declaredOutput } from "../../../core/areas/declaration.ts";
import type { DocumentStep, Step } from "../../step.ts";

export const animalsStep: DocumentStep = {
  kind: "document",
  ...declaredOutput(zoology, "animals.json"),
  name: "animals",
  title: "Animals",
  description: "Every animal.",
  inputs: [],
  version: 1,
  generate: () => '{"animals":[]}\\n',
};

export const steps: Step[] = [animalsStep];
`;

const PAGE = `---
import Base from "../../layouts/Base.astro";
---
<Base title="Zoology"><h1>Zoology</h1></Base>
`;

/** What the copy's modules say about the throwaway area. */
const PROBE = `
import { createHash } from "node:crypto";
import { AREAS, areaFile } from "./core/datapackage/contract.ts";
import { checkManifest } from "./core/datapackage/manifest.ts";
import { steps } from "./pipeline/areas/index.ts";
import { AREA_INFO, buildManifest, buildResource, renderManifest } from "./pipeline/manifest.ts";
import { quotaOf } from "./api/clients/quotas.ts";
import { canonicalPath, createApp } from "./api/app.ts";
import { AREAS as SITE_AREAS } from "./site/src/lib/area-info.ts";

const step = steps.find((s) => s.area === "zoology")!;
const bytes = String(step.kind === "document" ? step.generate({} as never, new Map()) : "");
const hash = "sha256:" + createHash("sha256").update(bytes).digest("hex");
const manifest = renderManifest(
  buildManifest({
    area: "zoology",
    resources: [buildResource({ step, bytes: Buffer.byteLength(bytes), hash, inputsHash: hash, inputs: {} })],
    curated: {},
  }),
);
checkManifest("zoology", manifest);
const app = createApp({ dataDir: process.argv[2]!, log: () => {} });
const openapi = (await (await app.request("/openapi.json")).json()) as { paths: Record<string, { get?: { tags?: string[] } }> };
console.log(JSON.stringify({
  areas: AREAS,
  keyed: areaFile("zoology", "keeper-notes.json"),
  step: { id: step.id, path: step.path, mediatype: step.mediatype, access: step.access },
  title: AREA_INFO.zoology.title,
  manifestTitle: JSON.parse(manifest).title,
  anonymous: quotaOf("zoology", "anonymous"),
  institutional: quotaOf("zoology", "institutional"),
  canonical: canonicalPath(new Request("http://localhost/Zoology//Animals.JSON")),
  tags: openapi.paths["/zoology/animals.json"]?.get?.tags ?? null,
  keyedTags: openapi.paths["/zoology/keeper-notes.json"]?.get?.tags ?? null,
  site: SITE_AREAS.map((a) => a.slug + ":" + a.name),
}));
`;

/** Replaces `from` by `to` in a file of the copy, failing when the anchor is gone. */
function edit(root: string, path: string, from: string, to: string): void {
  const text = readFileSync(join(root, path), "utf8");
  if (!text.includes(from)) throw new Error(`${path}: anchor not found: ${from}`);
  writeFileSync(join(root, path), text.replace(from, to));
}

describe("a throwaway area, added the documented way", () => {
  let dir: string;
  let cleanup: () => void;
  let copy: string;

  beforeAll(() => {
    ({ dir, cleanup } = tempDir("area-declaration-"));
    copy = join(dir, "repo");
    const skipTests = (src: string) => !src.endsWith(".test.ts");
    for (const folder of ["core", "store", "pipeline", "api", "cli", "site/src"])
      cpSync(join(REPO, folder), join(copy, folder), { recursive: true, filter: skipTests });
    for (const file of ["package.json", "tsconfig.json"]) cpSync(join(REPO, file), join(copy, file));
    symlinkSync(join(REPO, "node_modules"), join(copy, "node_modules"), "dir");

    // 1. Its declaration, and its line in the registry.
    writeFileSync(join(copy, "core/areas/zoology.ts"), DECLARATION);
    edit(
      copy,
      "core/areas/index.ts",
      `import { academics }`,
      `import { zoology } from "./zoology.ts";\nimport { academics }`,
    );
    edit(copy, "core/areas/index.ts", `economy, diplomacy] as const`, `economy, diplomacy, zoology] as const`);
    // 2. Its steps, listed with the others (the type asks for every declared area's steps).
    mkdirSync(join(copy, "pipeline/areas/zoology"));
    writeFileSync(join(copy, "pipeline/areas/zoology/index.ts"), STEPS);
    edit(
      copy,
      "pipeline/areas/index.ts",
      `import * as academics`,
      `import * as zoology from "./zoology/index.ts";\nimport * as academics`,
    );
    edit(copy, "pipeline/areas/index.ts", `  diplomacy,\n};`, `  diplomacy,\n  zoology,\n};`);
    // 3. Its page.
    mkdirSync(join(copy, "site/src/pages/zoology"));
    writeFileSync(join(copy, "site/src/pages/zoology/index.astro"), PAGE);
    writeFileSync(join(copy, "probe.ts"), PROBE);
    useCompileCache();
  });

  afterAll(() => cleanup?.());

  function node(args: string[]) {
    const run = spawnSync(process.execPath, ["--import", "tsx", ...args], { cwd: copy, encoding: "utf8" });
    if (run.status !== 0) throw new Error(`node ${args.join(" ")}: exit ${run.status}\n${run.stderr}`);
    return run.stdout;
  }

  it("is read by the contract, the steps, the manifest, the API, the portal and the workflow's listing", () => {
    const seen = JSON.parse(node(["probe.ts", join(REPO, "data")])) as Record<string, unknown>;
    expect(seen.areas).toEqual(["government", "academics", "philosophy", "economy", "diplomacy", "zoology"]);
    expect(seen.keyed).toEqual({
      area: "zoology",
      path: "keeper-notes.json",
      access: "institutional",
      mediatype: "application/json",
    });
    // The step takes its id, area, path, media type and access from the declaration.
    expect(seen.step).toEqual({
      id: "zoology/animals.json",
      path: "animals.json",
      mediatype: "application/json",
      access: "public",
    });
    expect(seen.title).toBe("Integrity Platform — zoology");
    expect(seen.manifestTitle).toBe("Integrity Platform — zoology");
    expect(seen.anonymous).toEqual({ bucket: "zoology", quota: 7 });
    expect(seen.institutional).toEqual({ bucket: "zoology", quota: 70 });
    expect(seen.canonical).toBe("/zoology/animals.json");
    expect(seen.tags).toEqual(["Zoology area"]);
    expect(seen.keyedTags).toEqual(["Zoology area"]);
    expect(seen.site).toEqual([
      "government:Government",
      "academics:Academics",
      "philosophy:Philosophy",
      "economy:Economy",
      "diplomacy:Diplomacy",
      "zoology:Zoology",
    ]);
    expect(node(["cli/areas-cli.ts"]).trim().split("\n")).toEqual(seen.areas);
  });

  it("refuses a step whose file the area does not declare, and a second area with a taken name", () => {
    writeFileSync(
      join(copy, "undeclared.ts"),
      `import { zoology } from "./core/areas/zoology.ts";\nimport { declaredOutput } from "./core/areas/declaration.ts";\ndeclaredOutput(zoology, "birds.json");\n`,
    );
    expect(() => node(["undeclared.ts"])).toThrow(/zoology\/birds\.json: not a file of the area's declaration/);
    edit(copy, "core/areas/index.ts", `diplomacy, zoology] as const`, `diplomacy, zoology, zoology] as const`);
    expect(() => node(["cli/areas-cli.ts"])).toThrow(/area zoology: its name or cathedral repeats another area's/);
  });
});
