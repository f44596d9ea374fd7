import { describe, expect, it } from "vitest";
import { historyLine } from "./history.ts";
import { buildPulseRecord } from "./record.ts";
import { PulseBadge, PulseHistoryResponse, PulseRecord } from "../schemas/pulse.ts";
import { expectedStaticFiles, staticFileProblems, staticFiles } from "./static-files.ts";

const dec = new TextDecoder();
const stats = { totalFiles: 9, totalLines: 99, appsCount: 3, packagesCount: 0, workflowsCount: 2 };
const r1 = buildPulseRecord({
  cycle: "C-300",
  branch: "main",
  giScore: 0.9812,
  miiScore: 0.95,
  stats,
  generatedAt: "2026-04-28T06:00:00.000Z",
  prev: null,
});
const r2 = buildPulseRecord({
  cycle: "C-301",
  branch: "main",
  giScore: 0.99,
  miiScore: 0.9049,
  stats,
  generatedAt: "2026-04-29T06:00:00.000Z",
  scoring: {
    version: "1",
    inputs: {
      "mii.b": { value: 0.9049, measured: true, weight: 1 },
      "gi.a": { value: 0.99, measured: true, weight: 1 },
    },
  },
  prev: r1.hash,
});

describe("static pulse files", () => {
  it("writes every badge, the history newest first and the latest record, as pretty JSON with a final newline", () => {
    const files = staticFiles([r1, r2]);
    expect([...files.keys()]).toEqual([
      "v1/pulse/badge.json",
      "v1/pulse/badge.svg",
      "v1/pulse/badge/gi.json",
      "v1/pulse/badge/gi.svg",
      "v1/pulse/badge/mii.json",
      "v1/pulse/badge/mii.svg",
      "v1/pulse/history.json",
      "v1/pulse/latest.json",
    ]);
    const json = (path: string) => JSON.parse(dec.decode(files.get(path)));
    expect(PulseBadge.parse(json("v1/pulse/badge.json"))).toEqual({
      schemaVersion: 1,
      label: "integrity",
      message: "99.0% / 90.5%",
      color: "yellow",
      cacheSeconds: 300,
    });
    expect(json("v1/pulse/badge/gi.json")).toMatchObject({ label: "GI", message: "99.0%", color: "brightgreen" });
    expect(json("v1/pulse/badge/mii.json")).toMatchObject({ label: "MII", message: "90.5%", color: "yellow" });
    const history = PulseHistoryResponse.parse(json("v1/pulse/history.json"));
    expect(history.items.map((r) => r.cycle)).toEqual(["C-301", "C-300"]);
    expect(PulseRecord.parse(json("v1/pulse/latest.json"))).toEqual(r2);
    const latest = dec.decode(files.get("v1/pulse/latest.json"));
    expect(latest).toBe(`${JSON.stringify(JSON.parse(latest), null, 2)}\n`);
    expect(dec.decode(files.get("v1/pulse/badge/gi.svg"))).toContain("<title>GI: 99.0%</title>");
  });

  it("gives the same bytes whatever the key order of the records it is handed", () => {
    const reparsed = [r1, r2].map((r) => JSON.parse(historyLine(r)) as typeof r);
    const a = staticFiles([r1, r2]);
    const b = staticFiles(reparsed);
    expect([...b].map(([k, v]) => [k, dec.decode(v)])).toEqual([...a].map(([k, v]) => [k, dec.decode(v)]));
  });

  it("shows the error badge and an empty history before the first pulse", () => {
    const files = staticFiles([]);
    expect(JSON.parse(dec.decode(files.get("v1/pulse/badge.json")))).toMatchObject({
      message: "no data",
      color: "lightgrey",
      isError: true,
    });
    expect(JSON.parse(dec.decode(files.get("v1/pulse/history.json")))).toEqual({ count: 0, items: [] });
    expect(files.has("v1/pulse/latest.json")).toBe(false);
  });
});

describe("staticFileProblems", () => {
  const enc = new TextEncoder();

  it("finds nothing when the copies are exactly what the records give, and none are expected before the first record", () => {
    expect(staticFileProblems([r1, r2], staticFiles([r1, r2]))).toEqual([]);
    expect(expectedStaticFiles([]).size).toBe(0);
    expect(staticFileProblems([], new Map())).toEqual([]);
  });

  it("names each forged, missing and extra copy, sorted by path", () => {
    const present = new Map(staticFiles([r1, r2]));
    const gi = dec
      .decode(present.get("v1/pulse/badge/gi.json"))
      .replace(/"message": "[^"]+"/, '"message": "42.0%"')
      .replace(/"color": "[^"]+"/, '"color": "red"');
    present.set("v1/pulse/badge/gi.json", enc.encode(gi));
    present.set(
      "v1/pulse/latest.json",
      enc.encode(dec.decode(present.get("v1/pulse/latest.json")).replace(/"giScore": [\d.]+,/, '"giScore": 0.42,')),
    );
    present.delete("v1/pulse/badge/mii.svg");
    present.set("v1/pulse/extra.json", enc.encode("{}\n"));
    expect(staticFileProblems([r1, r2], present)).toEqual([
      "v1/pulse/badge/gi.json: differs from what the history gives (regenerate with npm run pulse)",
      "v1/pulse/badge/mii.svg: missing (regenerate with npm run pulse)",
      "v1/pulse/extra.json: not a file the history gives (remove it, or regenerate with npm run pulse)",
      "v1/pulse/latest.json: differs from what the history gives (regenerate with npm run pulse)",
    ]);
  });

  it("names the copies of an older history: the records, not the files, say what is published", () => {
    expect(staticFileProblems([r1], staticFiles([r1, r2]))).toEqual([
      "v1/pulse/badge.json: differs from what the history gives (regenerate with npm run pulse)",
      "v1/pulse/badge.svg: differs from what the history gives (regenerate with npm run pulse)",
      "v1/pulse/badge/gi.json: differs from what the history gives (regenerate with npm run pulse)",
      "v1/pulse/badge/gi.svg: differs from what the history gives (regenerate with npm run pulse)",
      "v1/pulse/badge/mii.json: differs from what the history gives (regenerate with npm run pulse)",
      "v1/pulse/badge/mii.svg: differs from what the history gives (regenerate with npm run pulse)",
      "v1/pulse/history.json: differs from what the history gives (regenerate with npm run pulse)",
      "v1/pulse/latest.json: differs from what the history gives (regenerate with npm run pulse)",
    ]);
    // Before the first record nothing is published: every copy is one too many.
    const early = staticFileProblems([], staticFiles([r1]));
    expect(early).toHaveLength(8);
    expect(early.every((p) => p.includes(": not a file the history gives"))).toBe(true);
  });
});
