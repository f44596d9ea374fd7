/**
 * `npm run pulse -- --backfill`: a history from the first start. The repository is measured as it
 * was at each of its past commits newer than the newest record — the same scan and signals as a
 * live pulse, in a scratch clone checked out at the commit, dated by the commit's time — and each
 * record is appended (signed, chained, append-only like any other) stamped with
 * `origin: {kind: "backfill", commit}`. A ledger is state, not history, so ledger verification and
 * sentinel heartbeats are not measured for a past commit (their weight is left out, as for any
 * unmeasured signal), and no `pulse.recorded` goes to the ledger.
 *
 * Without git history to measure (no work tree, or a shallow clone with nothing newer to measure) a
 * history shorter than `minRecords` is topped up with simulated records instead, six hours apart up to
 * `now`, each marked `origin: {kind: "sample", notice}` — shown as sample data wherever it appears.
 *
 * Commits are taken along the first-parent line, oldest first; of commits made within the same
 * second only the last is measured (a record must be strictly later than the one before).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cycleLabel } from "../../core/cycle.ts";
import type { PulseRecord } from "../../core/pulse/history.ts";
import { buildPulseRecord } from "../../core/pulse/record.ts";
import { Prng } from "../seed/prng.ts";
import { git, gitTopLevel } from "./git.ts";
import { PulseRefusal, publishRecord, runPulse, type PulseOptions } from "./indexer.ts";
import { checkPublished, pulsePaths, readPublished } from "./published.ts";

/** What a fresh history is topped up to when nothing can be measured. */
export const MIN_RECORDS = 30;
export const SAMPLE_HISTORY_NOTICE =
  "SAMPLE DATA: simulated pulse (no git history to measure); not a measurement of this repository";

export interface BackfillOptions {
  /** The repository whose past commits are measured. */
  repo: string;
  dataDir: string;
  configPath: string;
  /** Branch written in the records. */
  branch: string;
  /** At most this many commits, the most recent ones (default 100). */
  limit?: number;
  /** Top a history up to this many records with simulated ones when nothing could be measured. */
  minRecords?: number;
  /** The present: the newest simulated record's instant; commits after it are not measured. */
  now: Date;
  dryRun: boolean;
  trustNewKey: boolean;
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
}

export interface BackfillReport {
  measured: { commit: string; record: PulseRecord }[];
  simulated: PulseRecord[];
  /** Why nothing was measured, when nothing was. */
  reason: string | null;
}

interface Commit {
  sha: string;
  ms: number;
}

/** First-parent commits of HEAD strictly after `afterMs` (and not after `untilMs`), oldest first, one per second. */
export async function commitsToMeasure(
  repo: string,
  afterMs: number,
  untilMs: number,
  limit: number,
): Promise<Commit[]> {
  const out = await git(repo, ["log", "--first-parent", "--reverse", "--format=%H %ct"]);
  const all = out
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => {
      const [sha, seconds] = l.split(" ") as [string, string];
      return { sha, ms: Number(seconds) * 1000 };
    })
    .filter((c) => c.ms > afterMs && c.ms <= untilMs);
  // Keep the last commit of each second, and only ever-later instants.
  const picked: Commit[] = [];
  for (const c of all) {
    const last = picked.at(-1);
    if (last && c.ms <= last.ms) {
      if (c.ms === last.ms) picked[picked.length - 1] = c;
      continue;
    }
    picked.push(c);
  }
  return picked.slice(-limit);
}

/** The next record of the history: measured fields sealed with the chain link and its origin. */
function sealed(
  fields: Omit<PulseRecord, "id" | "hash" | "prev" | "origin">,
  origin: NonNullable<PulseRecord["origin"]>,
  prev: string | null,
): PulseRecord {
  return buildPulseRecord({ ...fields, origin, prev });
}

export async function backfillPulses(options: BackfillOptions): Promise<BackfillReport> {
  const paths = pulsePaths(options.dataDir);
  const initial = checkPublished(readPublished(paths));
  if (initial.problems.length > 0) {
    throw new PulseRefusal(
      `refusing to backfill: the published pulse history does not verify:\n  ${initial.problems.join("\n  ")}`,
    );
  }
  const lastMs = initial.records.length > 0 ? Date.parse(initial.records.at(-1)!.generatedAt) : 0;
  const report: BackfillReport = { measured: [], simulated: [], reason: null };
  const pulseOptions = (now: Date, repo: string, dataDir: string): PulseOptions => ({
    now,
    mode: "local",
    repo,
    dataDir,
    configPath: options.configPath,
    ledgerPath: join(dataDir, ".no-ledger-at-a-past-commit.sqlite"),
    branch: options.branch,
    dryRun: true,
    trustNewKey: options.trustNewKey,
    env: options.env,
    log: options.log,
  });
  let prev = initial.records.at(-1)?.hash ?? null;
  const append = (record: PulseRecord) => {
    prev = record.hash;
    if (options.dryRun) return;
    const state = readPublished(paths);
    const check = checkPublished(state);
    publishRecord(
      { ...pulseOptions(options.now, options.repo, options.dataDir), dryRun: false },
      check,
      state.vkeyText,
      record,
    );
  };

  const top = await gitTopLevel(options.repo);
  const shallow = top !== null && (await git(top, ["rev-parse", "--is-shallow-repository"])).trim() === "true";
  const commits = top === null ? [] : await commitsToMeasure(top, lastMs, options.now.getTime(), options.limit ?? 100);
  if (top === null) report.reason = `${options.repo} is not inside a git work tree`;
  else if (commits.length === 0)
    report.reason = `no commit newer than the newest record${shallow ? " in this shallow clone" : ""}`;

  if (top !== null && commits.length > 0) {
    const scratch = mkdtempSync(join(tmpdir(), "pulse-backfill-"));
    try {
      // A clone that borrows the objects (nothing of the repository is written), checked out per commit.
      await git(scratch, ["clone", "--quiet", "--shared", "--no-checkout", top, join(scratch, "repo")]);
      const checkout = join(scratch, "repo");
      for (const c of commits) {
        await git(checkout, ["checkout", "--quiet", "--force", "--detach", c.sha]);
        const at = new Date(c.ms);
        let run;
        try {
          run = await runPulse(pulseOptions(at, checkout, join(checkout, "data")));
        } catch (error) {
          options.log(`backfill: ${c.sha.slice(0, 7)} not measured: ${(error as Error).message.split("\n")[0]}`);
          continue;
        }
        if (!run.record) continue;
        const { giScore, miiScore, stats, scoring } = run.record;
        const record = sealed(
          {
            cycle: cycleLabel(at),
            branch: options.branch,
            giScore,
            miiScore,
            stats,
            generatedAt: at.toISOString(),
            ...(scoring ? { scoring } : {}),
          },
          { kind: "backfill", commit: c.sha },
          prev,
        );
        append(record);
        report.measured.push({ commit: c.sha, record });
        options.log(`backfill: ${c.sha.slice(0, 7)} ${record.generatedAt} GI ${giScore} MII ${miiScore}`);
      }
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }

  // Simulate only where there is no history to measure: no work tree, or a shallow clone.
  const have = initial.records.length + report.measured.length;
  const want = options.minRecords ?? MIN_RECORDS;
  if ((top === null || shallow) && report.measured.length === 0 && have < want) {
    for (const record of simulatedHistory(want - have, prev, lastMs, options.now, options.branch)) {
      append(record);
      report.simulated.push(record);
    }
  }
  return report;
}

/**
 * `count` simulated records six hours apart, ending at `now` (and after `afterMs`), chained from
 * `prev`: a slow, seeded wander of GI and MII around 97 %, marked as sample data.
 */
export function simulatedHistory(
  count: number,
  prev: string | null,
  afterMs: number,
  now: Date,
  branch: string,
): PulseRecord[] {
  const step = 6 * 3_600_000;
  const rng = new Prng("simulated-pulse-history");
  const records: PulseRecord[] = [];
  let gi = 0.975;
  let mii = 0.97;
  for (let i = count - 1; i >= 0; i--) {
    const ms = now.getTime() - i * step;
    gi = Math.min(1, Math.max(0.9, gi + rng.gaussian(0.006)));
    mii = Math.min(1, Math.max(0.9, mii + rng.gaussian(0.006)));
    if (ms <= afterMs) continue;
    const at = new Date(ms);
    const round4 = (v: number) => Math.round(v * 10_000) / 10_000;
    const record = sealed(
      {
        cycle: cycleLabel(at),
        branch,
        giScore: round4(gi),
        miiScore: round4(mii),
        stats: { totalFiles: 0, totalLines: 0, appsCount: 0, packagesCount: 0, workflowsCount: 0 },
        generatedAt: at.toISOString(),
      },
      { kind: "sample", notice: SAMPLE_HISTORY_NOTICE },
      prev,
    );
    records.push(record);
    prev = record.hash;
  }
  return records;
}
