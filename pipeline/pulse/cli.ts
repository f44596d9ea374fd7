/**
 * `npm run pulse -- [options]`: the integrity pulse indexer. See `--help`. Exit 0 on success, 1 when
 * it refuses (history or checkpoint does not verify, untrusted key, nothing measured) or a check
 * fails, 2 on a usage error. The only clock read is here, once: `--now`, else SOURCE_DATE_EPOCH,
 * else the system clock.
 */
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { defaultLedgerPath } from "../../store/open-ledger.ts";
import { checkAppendOnly } from "./append-only.ts";
import { backfillPulses } from "./backfill.ts";
import { gitTopLevel } from "./git.ts";
import { PulseRefusal, runPulse, verifyPublished, type PulseRun } from "./indexer.ts";
import { pulsePaths } from "./published.ts";
import { UsageError } from "../../core/errors.ts";

const PROJECT_ROOT = fileURLToPath(new URL("../..", import.meta.url));

const HELP = `Integrity pulse indexer: measures GI and MII, appends a signed record to data/pulse/history.jsonl.

usage: npm run pulse -- [options]

  --mode local|github     local (default): git, the ledger and the published files only, no network.
                          github: adds CI, security-alert, issue and pull-request signals through the
                          GitHub API (needs GITHUB_TOKEN, and --repo owner/name or GITHUB_REPOSITORY)
  --repo PATH|owner/name  repository to scan (default: this checkout). owner/name scans through the
                          git trees API, where lines cannot be measured: it prints what it measured
                          and writes no record
  --data DIR              data folder (default: DATA_DIR, else data/ of this checkout)
  --config FILE           scoring configuration (default: <data>/sources/scoring.json)
  --ledger PATH           ledger to verify and to note the pulse on (default: LEDGER_DB or
                          <STATE_DIR>/ledger.sqlite); a missing ledger is not created
  --branch NAME           branch written in the record (default: the checked-out branch)
  --now ISO-8601          the pulse's instant (default: SOURCE_DATE_EPOCH, else the clock)
  --dry-run               measure and print the record; write nothing
  --trust-new-key         add the current dataset-signing key to data/keys/datasets.vkey
  --verify                only verify history, checkpoint and static copies; exit 0 or 1
  --check-append-only     only check that history.jsonl at --base REV (default HEAD~1) is a prefix
                          of the current file; exit 0 or 1
  --backfill              measure the repository at each past commit newer than the newest record
                          (first-parent, oldest first, at most --limit N, default 100) and append a
                          record per commit, dated by the commit and marked as a backfill; with no
                          git history to measure, top a history shorter than 30 records up with
                          simulated records marked as sample data
  --help
`;

function parseNow(value: string | undefined, env: NodeJS.ProcessEnv): Date {
  if (value !== undefined) {
    const ms = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?Z$/.test(value) ? Date.parse(value) : NaN;
    if (!Number.isFinite(ms))
      throw new UsageError(`--now ${JSON.stringify(value)} is not an ISO 8601 UTC instant (…Z)`);
    return new Date(ms);
  }
  const epoch = env.SOURCE_DATE_EPOCH;
  if (epoch !== undefined && epoch !== "") {
    if (!/^\d+$/.test(epoch)) throw new UsageError(`SOURCE_DATE_EPOCH ${JSON.stringify(epoch)} is not whole seconds`);
    return new Date(Number(epoch) * 1000);
  }
  return new Date();
}

function printRun(run: PulseRun, dryRun: boolean, out: (line: string) => void): void {
  out(`scanned ${run.scan.source}: ${JSON.stringify(run.scan.stats)}`);
  out(
    `  apps: ${run.scan.apps.join(", ") || "none"}; packages: ${run.scan.packages.join(", ") || "none"}; workflows: ${run.scan.workflows.join(", ") || "none"}`,
  );
  out("signals:");
  for (const [name, input] of Object.entries(run.scores.scoring.inputs)) {
    const signal = run.signals[name as keyof typeof run.signals];
    out(
      `  ${name.padEnd(28)} ${input.measured ? String(input.value).padEnd(7) : "—".padEnd(7)} w=${input.weight}  ${signal.reason}`,
    );
  }
  for (const note of run.notes) out(`note: ${note}`);
  out(
    `GI ${run.scores.giScore ?? "unmeasured"}, MII ${run.scores.miiScore ?? "unmeasured"} (scoring version ${run.scores.scoring.version})`,
  );
  if (!run.record) return;
  if (dryRun) {
    out("dry run: nothing written. The record would be:");
    out(JSON.stringify(run.record, null, 2));
  } else {
    out(`recorded pulse ${run.record.cycle} ${run.record.id} ${run.record.hash}`);
    for (const file of run.written) out(`  wrote data/${file}`);
  }
}

export async function main(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const err = (line: string) => process.stderr.write(`${line}\n`);
  let args;
  try {
    args = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        mode: { type: "string", default: "local" },
        repo: { type: "string" },
        data: { type: "string" },
        config: { type: "string" },
        ledger: { type: "string" },
        branch: { type: "string" },
        now: { type: "string" },
        "dry-run": { type: "boolean", default: false },
        "trust-new-key": { type: "boolean", default: false },
        verify: { type: "boolean", default: false },
        "check-append-only": { type: "boolean", default: false },
        backfill: { type: "boolean", default: false },
        limit: { type: "string" },
        base: { type: "string", default: "HEAD~1" },
        help: { type: "boolean", default: false },
      },
    }).values;
  } catch (error) {
    err(`pulse: ${(error as Error).message}\n\n${HELP}`);
    return 2;
  }
  if (args.help) {
    out(HELP);
    return 0;
  }
  const dataDir = resolve(args.data ?? (env.DATA_DIR || join(PROJECT_ROOT, "data")));
  try {
    if (args.mode !== "local" && args.mode !== "github")
      throw new UsageError(`--mode must be local or github, not ${JSON.stringify(args.mode)}`);

    if (args.verify) {
      const result = verifyPublished(dataDir);
      if (result.ok) out(`pulse history verified: ${result.records} record(s), checkpoint and static copies match`);
      else for (const p of result.problems) err(`pulse: ${p}`);
      return result.ok ? 0 : 1;
    }

    if (args["check-append-only"]) {
      const repo = await gitTopLevel(resolve(args.repo ?? PROJECT_ROOT));
      if (repo === null) throw new UsageError(`${args.repo ?? PROJECT_ROOT} is not inside a git work tree`);
      const result = await checkAppendOnly(repo, pulsePaths(dataDir).history, args.base);
      (result.ok ? out : err)(`${result.ok ? "" : "pulse: "}${result.message}`);
      return result.ok ? 0 : 1;
    }

    const now = parseNow(args.now, env);
    if (args.backfill) {
      const limit = args.limit === undefined ? undefined : Number(args.limit);
      if (limit !== undefined && !(Number.isSafeInteger(limit) && limit > 0))
        throw new UsageError(`--limit must be a positive integer, not ${JSON.stringify(args.limit)}`);
      const repo = resolve(args.repo ?? PROJECT_ROOT);
      const report = await backfillPulses({
        repo,
        dataDir,
        configPath: resolve(args.config ?? join(dataDir, "sources", "scoring.json")),
        branch: args.branch ?? "main",
        ...(limit === undefined ? {} : { limit }),
        now,
        dryRun: args["dry-run"],
        trustNewKey: args["trust-new-key"],
        env,
        log: (line) => err(line),
      });
      out(
        `backfill: ${report.measured.length} record(s) measured at past commits, ${report.simulated.length} simulated${report.reason ? ` (${report.reason})` : ""}${args["dry-run"] ? "; dry run, nothing written" : ""}`,
      );
      return 0;
    }
    const run = await runPulse({
      now,
      mode: args.mode,
      repo: args.repo ?? PROJECT_ROOT,
      dataDir,
      configPath: resolve(args.config ?? join(dataDir, "sources", "scoring.json")),
      ledgerPath: resolve(args.ledger ?? defaultLedgerPath(env)),
      ...(args.branch ? { branch: args.branch } : {}),
      dryRun: args["dry-run"],
      trustNewKey: args["trust-new-key"],
      env,
      log: (line) => err(line),
    });
    printRun(run, args["dry-run"], out);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      err(`pulse: ${error.message}`);
      return 2;
    }
    if (error instanceof PulseRefusal) {
      if (error.run) printRun(error.run, args["dry-run"], out);
      err(`pulse: ${error.message}`);
      return 1;
    }
    err(`pulse: ${(error as Error).message}`);
    return 1;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
