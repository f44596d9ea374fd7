import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseConfig } from "./config.ts";
import { SIGNALS } from "./signals/types.ts";
import { PROJECT_ROOT } from "../../test/support/pipeline/pulse/helpers.ts";

const text = readFileSync(join(PROJECT_ROOT, "data/sources/scoring.json"), "utf8");

describe("data/sources/scoring.json", () => {
  it("weighs every signal the indexer measures, each GI/MII table summing to 1", () => {
    const config = parseConfig(text, "scoring.json");
    const named = [...Object.keys(config.gi).map((k) => `gi.${k}`), ...Object.keys(config.mii).map((k) => `mii.${k}`)];
    expect(named.sort()).toEqual([...SIGNALS].sort());
    const sum = (w: Record<string, number>) => Object.values(w).reduce((a, b) => a + b, 0);
    expect(sum(config.gi)).toBeCloseTo(1, 12);
    expect(sum(config.mii)).toBeCloseTo(1, 12);
  });

  it("refuses unknown keys, unknown signals and negative weights, naming them", () => {
    const json = JSON.parse(text);
    expect(() => parseConfig(JSON.stringify({ ...json, extra: 1 }), "s.json")).toThrow(/s\.json: .*extra/);
    expect(() => parseConfig(JSON.stringify({ ...json, gi: { ...json.gi, coverage: 0.1 } }), "s.json")).toThrow(
      /gi\.coverage: the indexer measures no signal gi\.coverage/,
    );
    expect(() =>
      parseConfig(JSON.stringify({ ...json, mii: { ...json.mii, history_append_only: -1 } }), "s.json"),
    ).toThrow(/mii\.history_append_only/);
    expect(() => parseConfig("{", "s.json")).toThrow(/s\.json: not valid JSON/);
  });
});
