/**
 * Shared by the HTTP benchmarks (pulse, api): servers in a child process (this process runs
 * autocannon, so each gets a core of the two), requests per second with autocannon, alternating
 * rounds keeping each target's best (the machine is shared and noisy), and the comparison rows.
 */
import { spawn } from "node:child_process";
import autocannon from "autocannon";
import type { Comparison } from "./harness.ts";

export const CONNECTIONS = 50;
/** Requests per "round" in the printed comparison: the harness prints time for this many. */
export const PER_ROUND = 100_000;

/**
 * Runs `file` as a child with `role` in BENCH_ROLE; the child prints one JSON line (its URLs) when
 * ready and runs until SIGTERM.
 */
export function startBenchServer<T>(file: string, role: string): Promise<{ urls: T; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [...process.execArgv, file], {
    env: { ...process.env, BENCH_ROLE: role },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
      const newline = out.indexOf("\n");
      if (newline < 0) return;
      resolve({
        urls: JSON.parse(out.slice(0, newline)) as T,
        stop: async () => {
          child.kill("SIGTERM");
          await exited;
        },
      });
    });
    child.once("exit", (code) => reject(new Error(`bench server exited (${code}) before it was ready`)));
  });
}

/** Requests per second answered with 2xx over `seconds`; fails on errors or non-2xx. */
export async function measure(url: string, seconds: number): Promise<number> {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: seconds });
  if (result.errors > 0 || result.non2xx > 0)
    throw new Error(`${url}: ${result.errors} errors, ${result.non2xx} non-2xx responses`);
  return result["2xx"] / result.duration;
}

/** Each target's best requests/s over `rounds` alternating rounds of `seconds / rounds`, after a warm-up. */
export async function bestRates<N extends string>(
  targets: Record<N, string>,
  options: { seconds: number; rounds: number; warmup: number },
): Promise<Record<N, number>> {
  const names = Object.keys(targets) as N[];
  for (const name of names) await measure(targets[name], options.warmup);
  const best = Object.fromEntries(names.map((n) => [n, 0])) as Record<N, number>;
  for (let round = 0; round < options.rounds; round++) {
    for (const name of names)
      best[name] = Math.max(best[name], await measure(targets[name], options.seconds / options.rounds));
  }
  return best;
}

export function rateComparison(
  name: string,
  subject: string,
  subjectRps: number,
  floor: string,
  floorRps: number,
  target?: number,
): Comparison {
  return {
    name,
    subject,
    floor,
    subjectSeconds: PER_ROUND / subjectRps,
    floorSeconds: PER_ROUND / floorRps,
    items: PER_ROUND,
    kind: "speed",
    ...(target !== undefined ? { target } : {}),
  };
}

/** Stops the child's servers on SIGTERM/SIGINT, then `cleanup`, then exits. */
export function stopOnSignal(servers: { close(graceMs?: number): Promise<void> }[], cleanup: () => void): void {
  const stop = () => {
    void Promise.all(servers.map((s) => s.close(100))).finally(() => {
      cleanup();
      process.exit(0);
    });
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}
