/**
 * A small benchmark harness: time a piece of work against its floor in the same run, alternating
 * the two and keeping the best of several rounds (the machine is shared and noisy), and print the
 * ratio next to its target.
 */
import { readFileSync } from "node:fs";
import {
  meetsTarget,
  ratio,
  recordComparison,
  recordReading,
  type Comparison,
  type PairedRound,
  type Reading,
} from "./results.ts";

export type { Comparison, PairedRound, Reading } from "./results.ts";

/**
 * The peak resident size of this process in MB, its own: what a measured child process reports. On
 * Linux, `getrusage`'s maxRSS (`process.resourceUsage().maxRSS`) folds in the resident size the
 * process had before it executed its program, which for a child is its parent's at the fork: a
 * child of a parent holding 800 MB reads 768 MB from maxRSS and 43 MB from its own high-water mark.
 * So the mark of the process's memory (`VmHWM` in /proc/self/status) is read where there is one.
 */
export function peakRssMb(): number {
  try {
    const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync("/proc/self/status", "utf8"));
    if (hwm) return Number(hwm[1]) / 1024;
  } catch {
    // Not Linux: maxRSS is the process's own there.
  }
  return process.resourceUsage().maxRSS / 1024;
}

export function bestOf(rounds: number, fn: () => void): number {
  let best = Infinity;
  for (let i = 0; i < rounds; i++) {
    const t0 = process.hrtime.bigint();
    fn();
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    if (seconds < best) best = seconds;
  }
  return best;
}

/** Runs subject and floor alternately `rounds` times after one warm-up each; best time of each, and every round's. */
export function compare(
  rounds: number,
  subject: () => void,
  floor: () => void,
): { subject: number; floor: number; rounds: PairedRound[] } {
  subject();
  floor();
  const all: PairedRound[] = [];
  for (let i = 0; i < rounds; i++) {
    const f = bestOf(1, floor);
    all.push({ floor: f, subject: bestOf(1, subject) });
  }
  return { subject: Math.min(...all.map((r) => r.subject)), floor: Math.min(...all.map((r) => r.floor)), rounds: all };
}

/**
 * For work long enough that the machine's speed drifts between runs: the floor runs before the first
 * round and after every round, each round is compared with the mean of the floor runs around it,
 * and the round of median ratio is the verdict (all rounds returned, to print). After one warm-up each.
 */
export function comparePaired(
  rounds: number,
  subject: () => void,
  floor: () => void,
): { median: PairedRound; rounds: PairedRound[] } {
  subject();
  floor();
  const paired: PairedRound[] = [];
  let before = bestOf(1, floor);
  for (let i = 0; i < rounds; i++) {
    const s = bestOf(1, subject);
    const after = bestOf(1, floor);
    paired.push({ subject: s, floor: (before + after) / 2 });
    before = after;
  }
  const median = [...paired].sort((a, b) => a.subject / a.floor - b.subject / b.floor)[Math.floor(rounds / 2)]!;
  return { median, rounds: paired };
}

export { meetsTarget, ratio } from "./results.ts";

function rate(items: number, seconds: number): string {
  const perSecond = items / seconds;
  return perSecond >= 1e6
    ? `${(perSecond / 1e6).toFixed(2)}M/s`
    : perSecond >= 1e3
      ? `${(perSecond / 1e3).toFixed(1)}k/s`
      : `${perSecond.toFixed(0)}/s`;
}

export function printComparisons(title: string, comparisons: Comparison[]): void {
  for (const c of comparisons) recordComparison(title, c);
  console.log(`\n${title}`);
  for (const c of comparisons) {
    const r = ratio(c);
    const target = c.target === undefined ? "report only" : `target ${c.kind === "speed" ? ">=" : "<="} ${c.target}x`;
    const verdict = meetsTarget(c) === undefined ? "" : meetsTarget(c) ? "  PASS" : "  MISS";
    console.log(`  ${c.name}`);
    console.log(`    ${c.subject}: ${(c.subjectSeconds * 1000).toFixed(1)} ms (${rate(c.items, c.subjectSeconds)})`);
    console.log(`    ${c.floor}: ${(c.floorSeconds * 1000).toFixed(1)} ms (${rate(c.items, c.floorSeconds)})`);
    console.log(
      `    ratio ${r.toFixed(3)}x ${c.kind === "speed" ? "of the floor's speed" : "of the floor's time"} (${target})${verdict}`,
    );
  }
}

/** `bestOf` for work that awaits (the ledger store is asynchronous). */
export async function bestOfAsync(rounds: number, fn: () => Promise<unknown>): Promise<number> {
  let best = Infinity;
  for (let i = 0; i < rounds; i++) {
    const t0 = process.hrtime.bigint();
    await fn();
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    if (seconds < best) best = seconds;
  }
  return best;
}

/** `compare` for a subject that awaits (the floor may too). */
export async function compareAsync(
  rounds: number,
  subject: () => Promise<unknown>,
  floor: () => unknown,
): Promise<{ subject: number; floor: number; rounds: PairedRound[] }> {
  await subject();
  await floor();
  const all: PairedRound[] = [];
  for (let i = 0; i < rounds; i++) {
    const f = await bestOfAsync(1, async () => floor());
    all.push({ floor: f, subject: await bestOfAsync(1, subject) });
  }
  return { subject: Math.min(...all.map((r) => r.subject)), floor: Math.min(...all.map((r) => r.floor)), rounds: all };
}

/** Prints readings that are not ratios (peak memory), each against its target, and records them. */
export function printReadings(title: string, readings: Reading[]): void {
  console.log(`\n${title}`);
  for (const r of readings) {
    const figure = recordReading(title, r);
    const target =
      r.target === undefined ? "report only" : `target ${r.better === "lower" ? "<=" : ">="} ${r.target} ${r.unit}`;
    const runs = r.values.length > 1 ? ` (runs: ${r.values.map((v) => v.toFixed(0)).join(", ")})` : "";
    console.log(
      `  ${r.name}: ${figure.value.toFixed(0)} ${r.unit}${runs} (${target})${figure.verdict === "report" ? "" : `  ${figure.verdict}`}`,
    );
  }
}
