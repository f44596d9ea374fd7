/**
 * Benchmark results a machine can read: every figure a benchmark prints (bench/harness.ts
 * `printComparisons`, `printReadings`) is recorded here, and `npm run bench -- <name> --json FILE`
 * writes them with the conditions they were taken in — the commit, the load average before and
 * after, the cores, Node's version. `npm run bench -- compare A.json B.json` prints the figures that
 * moved beyond their spread. bench/README.md describes the format; bench/results/ keeps the latest
 * idle-machine file of each benchmark.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";

export interface Comparison {
  name: string;
  /** Human label of the measured work and of the floor it is compared with. */
  subject: string;
  floor: string;
  /** Seconds per round, best of the rounds. */
  subjectSeconds: number;
  floorSeconds: number;
  /** Items per round, to print a rate. */
  items: number;
  /** "speed": subject rate / floor rate (higher is better); "time": subject time / floor time (lower is better). */
  kind: "speed" | "time";
  target?: number;
  /** Every round's subject and floor times, when the figure is the best or median of several: its spread. */
  rounds?: PairedRound[];
  /** A stable name for `npm run bench -- compare` (default: the name with its numbers taken out). */
  id?: string;
}

/** One round of `comparePaired`: the subject's time and the mean of the floor's times just before and after it. */
export interface PairedRound {
  subject: number;
  floor: number;
}

/**
 * A figure that is not a ratio to a floor, with its own target (the peak memory of a run). `values`
 * are every run's, the verdict taken on the largest for a ceiling (`better: "lower"`).
 */
export interface Reading {
  name: string;
  unit: string;
  values: number[];
  better: "lower" | "higher";
  target?: number;
  id?: string;
}

export const RESULTS_FORMAT = 1;
/**
 * The spread assumed for a figure measured once (no rounds): ±5 % of its value. A figure whose
 * rounds are recorded has their range as its spread.
 */
export const ASSUMED_SPREAD = 0.05;

export interface Figure {
  /** Stable across runs: the suite's title and the figure's name with its numbers taken out, or the bench's own id. */
  id: string;
  suite: string;
  name: string;
  /** "speed": a ratio of rates (higher is better); "time": a ratio of times (lower is better); "reading": a value in `unit`. */
  kind: "speed" | "time" | "reading";
  value: number;
  unit: string;
  better: "lower" | "higher";
  target: number | null;
  verdict: "PASS" | "MISS" | "report";
  /** The range of the figure over its rounds or runs; [value, value] when measured once. */
  spread: [number, number];
  rounds: number;
  subject?: { label: string; seconds: number };
  /** The floor's own time: a floor that moved moves the ratio with it. */
  floor?: { label: string; seconds: number };
}

export interface ResultsFile {
  format: number;
  benchmarks: string[];
  commit: string;
  /** The worktree had uncommitted changes when the figures were taken. */
  dirty: boolean;
  date: string;
  node: string;
  cores: number;
  /** 1-, 5- and 15-minute load averages before the first benchmark and after the last. */
  load: { before: number[]; after: number[] };
  figures: Figure[];
}

const figures: Figure[] = [];

export function ratio(c: Comparison): number {
  return c.kind === "speed" ? c.floorSeconds / c.subjectSeconds : c.subjectSeconds / c.floorSeconds;
}

export function meetsTarget(c: Comparison): boolean | undefined {
  if (c.target === undefined) return undefined;
  return c.kind === "speed" ? ratio(c) >= c.target : ratio(c) <= c.target;
}

function roundRatio(kind: Comparison["kind"], r: PairedRound): number {
  return kind === "speed" ? r.floor / r.subject : r.subject / r.floor;
}

/** The figure's name with its numbers (sizes, counts) taken out, so that the id survives them. */
export function figureId(suite: string, name: string): string {
  return `${suite} / ${name.replace(/[0-9][0-9,.]*/g, "#")}`;
}

/**
 * The ids made unique in one file: two figures whose names differ only in their numbers (N = 2 and
 * N = 3 instances) get the same id; the later ones are told apart by their order, which is the same
 * in every run of a suite.
 */
export function uniqueIds(list: readonly Figure[]): Figure[] {
  const taken = new Map<string, number>();
  return list.map((f) => {
    const n = (taken.get(f.id) ?? 0) + 1;
    taken.set(f.id, n);
    return n === 1 ? f : { ...f, id: `${f.id} (${n})` };
  });
}

export function recordComparison(suite: string, c: Comparison): Figure {
  const value = ratio(c);
  const perRound = (c.rounds ?? []).map((r) => roundRatio(c.kind, r));
  const verdict = meetsTarget(c);
  const figure: Figure = {
    id: c.id ?? figureId(suite, c.name),
    suite,
    name: c.name,
    kind: c.kind,
    value,
    unit: "x",
    better: c.kind === "speed" ? "higher" : "lower",
    target: c.target ?? null,
    verdict: verdict === undefined ? "report" : verdict ? "PASS" : "MISS",
    spread: perRound.length > 0 ? [Math.min(value, ...perRound), Math.max(value, ...perRound)] : [value, value],
    rounds: Math.max(1, perRound.length),
    subject: { label: c.subject, seconds: c.subjectSeconds },
    floor: { label: c.floor, seconds: c.floorSeconds },
  };
  figures.push(figure);
  return figure;
}

export function recordReading(suite: string, r: Reading): Figure {
  const worst = r.better === "lower" ? Math.max(...r.values) : Math.min(...r.values);
  const figure: Figure = {
    id: r.id ?? figureId(suite, r.name),
    suite,
    name: r.name,
    kind: "reading",
    value: worst,
    unit: r.unit,
    better: r.better,
    target: r.target ?? null,
    verdict:
      r.target === undefined
        ? "report"
        : (r.better === "lower" ? worst <= r.target : worst >= r.target)
          ? "PASS"
          : "MISS",
    spread: [Math.min(...r.values), Math.max(...r.values)],
    rounds: r.values.length,
  };
  figures.push(figure);
  return figure;
}

/** Everything recorded so far in this process. */
export function recordedFigures(): readonly Figure[] {
  return figures;
}

function git(args: string[]): string {
  try {
    return execFileSync("git", args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return "";
  }
}

/** Conditions at the start of a run, to be completed by `writeResults`. */
export function startResults(benchmarks: string[]): Omit<ResultsFile, "figures"> {
  return {
    format: RESULTS_FORMAT,
    benchmarks,
    commit: git(["rev-parse", "HEAD"]) || "unknown",
    dirty: git(["status", "--porcelain", "--untracked-files=no"]) !== "",
    date: new Date().toISOString(),
    node: process.version,
    cores: availableParallelism(),
    load: { before: loadavg().map((l) => Math.round(l * 100) / 100), after: [] },
  };
}

export function writeResults(file: string, started: Omit<ResultsFile, "figures">): ResultsFile {
  const results: ResultsFile = {
    ...started,
    load: { ...started.load, after: loadavg().map((l) => Math.round(l * 100) / 100) },
    figures: uniqueIds(figures),
  };
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  return results;
}

export function readResults(file: string): ResultsFile {
  const parsed = JSON.parse(readFileSync(file, "utf8")) as ResultsFile;
  if (parsed.format !== RESULTS_FORMAT || !Array.isArray(parsed.figures))
    throw new Error(`${file}: not a benchmark results file of format ${RESULTS_FORMAT}`);
  return parsed;
}

/** The interval a figure is taken to lie in: its spread, widened to ±ASSUMED_SPREAD when it was measured once. */
function band(f: Figure): [number, number] {
  const [lo, hi] = f.spread;
  return f.rounds > 1 && lo !== hi
    ? [lo, hi]
    : [Math.min(lo, f.value) * (1 - ASSUMED_SPREAD), Math.max(hi, f.value) * (1 + ASSUMED_SPREAD)];
}

function show(f: Figure): string {
  const digits = f.unit === "x" ? 3 : 0;
  const [lo, hi] = f.spread;
  return `${f.value.toFixed(digits)}${f.unit === "x" ? "x" : ` ${f.unit}`}${lo !== hi ? ` [${lo.toFixed(digits)}–${hi.toFixed(digits)}]` : ""}`;
}

/**
 * The lines `compare` prints: each figure of B whose band does not overlap its band in A (better
 * or worse, by its direction), a verdict that changed, a floor whose own time moved by more than
 * its figure's spread, and the figures found in only one file. Empty when nothing moved.
 */
export function compareResults(a: ResultsFile, b: ResultsFile): { moved: string[]; unchanged: number } {
  const moved: string[] = [];
  let unchanged = 0;
  const before = new Map(a.figures.map((f) => [f.id, f]));
  for (const f of b.figures) {
    const old = before.get(f.id);
    before.delete(f.id);
    if (!old) {
      moved.push(`new       ${f.id}: ${show(f)}`);
      continue;
    }
    const [alo, ahi] = band(old);
    const [blo, bhi] = band(f);
    const lines: string[] = [];
    if (blo > ahi || bhi < alo) {
      const up = f.value > old.value;
      const better = (up && f.better === "higher") || (!up && f.better === "lower");
      const change =
        old.value === 0 ? "" : ` (${up ? "+" : ""}${(((f.value - old.value) / old.value) * 100).toFixed(1)} %)`;
      lines.push(`${better ? "better" : "worse "}    ${f.id}: ${show(old)} → ${show(f)}${change}`);
    }
    if (old.verdict !== f.verdict) lines.push(`verdict   ${f.id}: ${old.verdict} → ${f.verdict}`);
    if (old.floor && f.floor && old.floor.seconds > 0) {
      const drift = f.floor.seconds / old.floor.seconds - 1;
      const allowed = Math.max(
        ASSUMED_SPREAD,
        (f.spread[1] - f.spread[0]) / f.value,
        (old.spread[1] - old.spread[0]) / old.value,
      );
      if (Math.abs(drift) > allowed)
        lines.push(
          `floor     ${f.id}: the floor's own time ${(old.floor.seconds * 1000).toFixed(1)} → ${(f.floor.seconds * 1000).toFixed(1)} ms (${drift > 0 ? "+" : ""}${(drift * 100).toFixed(1)} %)`,
        );
    }
    if (lines.length === 0) unchanged += 1;
    moved.push(...lines);
  }
  for (const f of before.values()) moved.push(`gone      ${f.id}: ${show(f)}`);
  return { moved, unchanged };
}

/** `npm run bench -- compare A.json B.json`: prints the conditions of both and what moved; exit 0 either way. */
export function compareFiles(
  fileA: string,
  fileB: string,
  print: (line: string) => void = (l) => console.log(l),
): number {
  const a = readResults(fileA);
  const b = readResults(fileB);
  for (const [label, r, file] of [
    ["A", a, fileA],
    ["B", b, fileB],
  ] as const) {
    print(
      `${label}: ${file} — ${r.benchmarks.join(", ")} at ${r.commit.slice(0, 12)}${r.dirty ? " (uncommitted changes)" : ""}, ${r.date}, ${r.cores} cores, load ${r.load.before.join("/")} → ${r.load.after.join("/")}, node ${r.node}`,
    );
  }
  const { moved, unchanged } = compareResults(a, b);
  print(
    moved.length === 0
      ? `nothing moved beyond its spread (${unchanged} figures)`
      : `moved beyond its spread (${unchanged} figures did not):`,
  );
  for (const line of moved) print(`  ${line}`);
  return moved.length;
}
