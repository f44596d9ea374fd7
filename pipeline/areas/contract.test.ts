import { describe, expect, it } from "vitest";
import { AREAS, areaFiles } from "../../core/datapackage/contract.ts";
import { JsonSchemaSet } from "../validate/json-schemas.ts";
import { planSteps, StepDefinitionError } from "../runner.ts";
import { countStep } from "../../test/support/pipeline/helpers.ts";
import { KEYED_SOURCES } from "../layout.ts";
import { steps } from "./index.ts";

describe("the generators and the published-data contract", () => {
  it("write exactly the contract's files, each with the contract's access tier and media type", () => {
    const written = steps.map((s) => `${s.area}/${s.path} ${s.access} ${s.mediatype}`).sort();
    const contract = AREAS.flatMap((a) =>
      areaFiles(a).map((f) => `${f.area}/${f.path} ${f.access} ${f.mediatype}`),
    ).sort();
    expect(written).toEqual(contract);
  });

  it("keyed sources are exactly the curated inputs of keyed files, and no public file reads one", () => {
    const sourcesOf = (keyed: boolean) =>
      steps
        .filter((s) => (s.access !== "public") === keyed)
        .flatMap((s) => s.inputs.filter((i) => i.startsWith("sources/")).map((i) => i.slice(8)));
    expect([...KEYED_SOURCES].sort()).toEqual([...new Set(sourcesOf(true))].sort());
    expect(sourcesOf(false).filter((p) => KEYED_SOURCES.has(p))).toEqual([]);
  });

  it("the runner refuses a step outside the contract or with another tier before running anything", () => {
    const schemas = new JsonSchemaSet(new URL("../../data/schemas", import.meta.url).pathname);
    expect(() => planSteps([{ ...countStep, access: "government" }], ["economy"], schemas)).toThrow(
      StepDefinitionError,
    );
    expect(() =>
      planSteps([{ ...countStep, id: "economy/count.json", path: "count.json" }], ["economy"], schemas),
    ).toThrow(/publishes no file count\.json/);
    expect(planSteps([countStep], ["economy"], schemas)).toHaveLength(1);
  });
});
