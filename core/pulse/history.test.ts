import { describe, expect, it } from "vitest";
import { canonicalize } from "../canonical.ts";
import { leafHash, rootHash } from "../merkle.ts";
import { historyLine, historyLines, historyPage, newestFirst, verifyHistory, type PulseRecord } from "./history.ts";
import { buildPulseRecord } from "./record.ts";

/** A chained history of n genuine records, one day apart. */
function chain(n: number): PulseRecord[] {
  const out: PulseRecord[] = [];
  for (let i = 0; i < n; i++) {
    out.push(
      buildPulseRecord({
        cycle: `C-${300 + i}`,
        branch: "main",
        giScore: 0.9 + i / 100,
        miiScore: 1 - i / 100,
        stats: { totalFiles: 10 + i, totalLines: 100 * (i + 1), appsCount: 3, packagesCount: 1, workflowsCount: 2 },
        generatedAt: new Date(Date.UTC(2026, 4, 1 + i, 6)).toISOString(),
        prev: out[i - 1]?.hash ?? null,
      }),
    );
  }
  return out;
}

const text = (records: PulseRecord[]) => records.map((r) => `${historyLine(r)}\n`).join("");
const enc = new TextEncoder();

describe("verifyHistory", () => {
  it("accepts a good history and gives the RFC 9162 root over its lines", () => {
    const records = chain(5);
    const lines = historyLines(text(records));
    const report = verifyHistory(lines);
    expect(report.problems).toEqual([]);
    expect(report.records.map((r) => r.id)).toEqual(records.map((r) => r.id));
    expect(report.rootHash).toEqual(rootHash(lines.map((l) => leafHash(enc.encode(l)))));
    expect(verifyHistory(historyLines("")).problems).toEqual([]);
  });

  it("names the line whose payload was edited, and only that line", () => {
    const lines = historyLines(text(chain(4)));
    lines[2] = lines[2]!.replace('"branch":"main"', '"branch":"mair"');
    expect(verifyHistory(lines).problems).toEqual([{ line: 3, problem: expect.stringMatching(/^hash mismatch/) }]);
  });

  it("names a removed or reordered line through the prev chain and the time order", () => {
    const lines = historyLines(text(chain(4)));
    const removed = [lines[0]!, lines[2]!, lines[3]!];
    expect(verifyHistory(removed).problems).toEqual([{ line: 2, problem: expect.stringMatching(/^prev is sha256:/) }]);
    const swapped = [lines[0]!, lines[2]!, lines[1]!, lines[3]!];
    const problems = verifyHistory(swapped).problems;
    expect(problems.map((p) => p.line)).toEqual([2, 3, 3, 4]);
    expect(problems[2]!.problem).toMatch(/generatedAt .* is not after/);
  });

  it("refuses non-canonical lines, bad JSON, unknown fields, a missing final newline", () => {
    const [a, b] = chain(2).map(historyLine) as [string, string];
    const spaced = JSON.stringify(JSON.parse(a), null, 1).replace(/\n/g, "");
    expect(verifyHistory([spaced]).problems).toEqual([{ line: 1, problem: "line is not in canonical (JCS) form" }]);
    expect(verifyHistory([a, "{"]).problems).toEqual([{ line: 2, problem: "not valid JSON" }]);
    const extra = canonicalize({ ...JSON.parse(b), extra: 1 });
    expect(verifyHistory([a, extra]).problems[0]).toMatchObject({
      line: 2,
      problem: expect.stringMatching(/not a pulse record/),
    });
    expect(verifyHistory(historyLines(`${a}\n${b}`)).problems).toEqual([
      { line: 2, problem: "the file does not end with a newline" },
    ]);
  });

  it("pages newest first", () => {
    const records = chain(5);
    const newest = newestFirst(records);
    expect(newest.map((r) => r.cycle)).toEqual(["C-304", "C-303", "C-302", "C-301", "C-300"]);
    const first = historyPage(newest, 2)!;
    expect(first.items.map((r) => r.cycle)).toEqual(["C-304", "C-303"]);
    expect(historyPage(newest, 2, first.next!)!.items.map((r) => r.cycle)).toEqual(["C-302", "C-301"]);
    expect(historyPage(newest, 2, "00000000-0000-8000-8000-000000000000")).toBeNull();
  });
});
