/**
 * One pulse: verify what is published, scan, measure every signal, weigh them, seal the record,
 * append it to the history, re-sign the checkpoint, rewrite the static copies and note it on the
 * ledger. Every input is declared in `PulseOptions` (the clock included), so the same inputs give
 * the same bytes.
 */
import { existsSync } from "node:fs";
import { join, relative } from "node:path";
import { verifierKey } from "../../core/checkpoint.ts";
import { cycleLabel } from "../../core/cycle.ts";
import type { PulseRecord } from "../../core/pulse/history.ts";
import { buildPulseRecord } from "../../core/pulse/record.ts";
import { staticFiles } from "../../core/pulse/static-files.ts";
import { computeScores, requireScores, type ScoreResult } from "../../core/pulse/scoring.ts";
import { DATASET_KEY, loadSigningKey } from "../../store/keys.ts";
import { openLedger, stateDir, type OpenedLedger } from "../../store/open-ledger.ts";
import { writeFileAtomic } from "./atomic.ts";
import { loadConfig } from "./config.ts";
import { git, gitTopLevel } from "./git.ts";
import { GitHubClient, REPO_SLUG } from "./github.ts";
import {
  appendRecord,
  checkPublished,
  parseTrusted,
  pulsePaths,
  readPublished,
  type PublishedCheck,
} from "./published.ts";

export { verifyPublished, type VerifyResult } from "./published.ts";
import { scanGitHub, scanLocal, type ScanResult } from "./scan.ts";
import { generatedUntouched, historyAppendOnly, windowCommits } from "./signals/git-rules.ts";
import { measureGitHub } from "./signals/github.ts";
import { historyVerified } from "./signals/history.ts";
import { ledgerVerified } from "./signals/ledger.ts";
import { datasetSchemaValidity } from "./signals/schemas.ts";
import { sentinelHeartbeats } from "./signals/sentinels.ts";
import { SIGNALS, unmeasured, type Signal, type SignalName } from "./signals/types.ts";
import { CodedError, UsageError } from "../../core/errors.ts";

export interface PulseOptions {
  now: Date;
  mode: "local" | "github";
  /** A local git work tree, or `owner/name` on GitHub (scanned through the API). */
  repo: string;
  dataDir: string;
  configPath: string;
  ledgerPath: string;
  branch?: string;
  dryRun: boolean;
  trustNewKey: boolean;
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
}

export interface PulseRun {
  record: PulseRecord | null;
  scores: ScoreResult;
  signals: Record<SignalName, Signal>;
  scan: ScanResult;
  /** Files written, relative to the data folder (empty on a dry run). */
  written: string[];
  notes: string[];
}

/** The indexer will not write: the message says why and, where it can, how to proceed. Exit 1. */
export class PulseRefusal extends CodedError<"pulse-refused"> {
  /** What was measured before the refusal, when anything was (so a dry run can still show it). */
  readonly run: PulseRun | undefined;
  constructor(message: string, run?: PulseRun) {
    super("pulse-refused", message);
    this.run = run;
  }
}

interface Target {
  local: string | null;
  github: GitHubClient | null;
  remoteScan: boolean;
}

async function resolveTarget(options: PulseOptions): Promise<Target> {
  const token = options.env.GITHUB_TOKEN || undefined;
  const remote = REPO_SLUG.test(options.repo) && !existsSync(options.repo);
  let local: string | null = null;
  if (!remote) {
    local = await gitTopLevel(options.repo);
    if (local === null)
      throw new UsageError(`${options.repo} is not inside a git work tree (and not a GitHub owner/name)`);
  }
  if (options.mode === "github") {
    if (!token) throw new UsageError("--mode github needs GITHUB_TOKEN");
    const slug = remote ? options.repo : options.env.GITHUB_REPOSITORY;
    if (!slug) throw new UsageError("--mode github needs --repo owner/name or GITHUB_REPOSITORY");
    return { local, github: new GitHubClient(slug, token), remoteScan: remote };
  }
  // Local mode may still scan a GitHub repository by name; its signals stay local.
  return { local, github: remote ? new GitHubClient(options.repo, token) : null, remoteScan: remote };
}

async function currentBranch(target: Target, options: PulseOptions): Promise<string> {
  if (options.branch) return options.branch;
  if (target.local === null) return target.github!.defaultBranch();
  const name = (await git(target.local, ["rev-parse", "--abbrev-ref", "HEAD"])).trim();
  // Detached HEAD (a CI checkout of a commit): the ref the CI names, else git's own word for it.
  return name === "HEAD" ? options.env.GITHUB_REF_NAME || "HEAD" : name;
}

async function openExistingLedger(options: PulseOptions): Promise<OpenedLedger | null> {
  // A pulse never creates the ledger: an empty embedded ledger would look "already seeded".
  if (!existsSync(options.ledgerPath)) return null;
  return openLedger({ path: options.ledgerPath, env: options.env, now: () => options.now, log: options.log });
}

export async function runPulse(options: PulseOptions): Promise<PulseRun> {
  const config = loadConfig(options.configPath);
  const paths = pulsePaths(options.dataDir);
  const state = readPublished(paths);
  const check = checkPublished(state);
  if (check.problems.length > 0 && !options.dryRun) {
    throw new PulseRefusal(
      `refusing to append: the published pulse history does not verify:\n  ${check.problems.join("\n  ")}`,
    );
  }

  const target = await resolveTarget(options);
  const scan = target.remoteScan
    ? await scanGitHub(target.github!, await target.github!.defaultBranch(), config.scan)
    : await scanLocal(target.local!, config.scan);

  const notes: string[] = [...scan.notes];
  const opened = await openExistingLedger(options);
  try {
    const signals = await measure(options, config, check, target, opened);
    const values: Record<string, number | null> = {};
    for (const score of ["gi", "mii"] as const) {
      for (const key of Object.keys(config[score]))
        values[`${score}.${key}`] = signals.byName[`${score}.${key}` as SignalName].value;
    }
    const scores = computeScores(config, values);
    const run: PulseRun = {
      record: null,
      scores,
      signals: signals.byName,
      scan,
      written: [],
      notes: [...notes, ...signals.notes],
    };

    if (scan.stats.totalLines === null) {
      throw new PulseRefusal(
        `${scan.source}: lines could not be measured, and a record needs totalLines; scan a local clone with --repo PATH`,
        run,
      );
    }
    let sealed;
    try {
      sealed = requireScores(scores);
    } catch (error) {
      throw new PulseRefusal((error as Error).message, run);
    }
    const last = check.records.at(-1) ?? null;
    const record = buildPulseRecord({
      cycle: cycleLabel(options.now),
      branch: await currentBranch(target, options),
      giScore: sealed.giScore,
      miiScore: sealed.miiScore,
      stats: { ...scan.stats, totalLines: scan.stats.totalLines },
      generatedAt: options.now.toISOString(),
      ...(signals.openIssues === null ? {} : { openIssues: signals.openIssues }),
      ...(signals.openSecurityAlerts === null ? {} : { openSecurityAlerts: signals.openSecurityAlerts }),
      scoring: sealed.scoring,
      prev: last?.hash ?? null,
    });
    run.record = record;
    if (options.dryRun) return run;

    run.written = publishRecord(options, check, state.vkeyText, record);
    if (opened) {
      const payload = {
        id: record.id,
        cycle: record.cycle,
        hash: record.hash,
        giScore: record.giScore,
        miiScore: record.miiScore,
        generatedAt: record.generatedAt,
      };
      try {
        await opened.ledger.append([{ type: "pulse.recorded", payload }]);
      } catch (error) {
        // The history is the record of truth and is already written; say exactly what is missing.
        throw new Error(
          `pulse ${record.id} is in history.jsonl, but appending pulse.recorded to ${options.ledgerPath} failed: ${(error as Error).message}`,
        );
      }
      run.notes.push(
        `ledger ${options.ledgerPath}: pulse.recorded appended (entry ${(await opened.ledger.size()) - 1})`,
      );
    } else {
      run.notes.push(`no ledger at ${options.ledgerPath}: pulse.recorded not appended`);
    }
    return run;
  } finally {
    await opened?.ledger.close();
  }
}

interface Measured {
  byName: Record<SignalName, Signal>;
  openIssues: number | null;
  openSecurityAlerts: number | null;
  notes: string[];
}

async function measure(
  options: PulseOptions,
  config: ReturnType<typeof loadConfig>,
  check: PublishedCheck,
  target: Target,
  opened: OpenedLedger | null,
): Promise<Measured> {
  const byName = Object.fromEntries(SIGNALS.map((name) => [name, unmeasured("not measured")])) as Record<
    SignalName,
    Signal
  >;
  const ledger = opened?.ledger ?? null;
  byName["gi.ledger_verified"] = await ledgerVerified(ledger, options.ledgerPath);
  byName["gi.sentinel_heartbeats"] = await sentinelHeartbeats(
    ledger ? ledger.entries() : null,
    options.now,
    config.thresholds.heartbeatMaxAgeHours,
  );
  byName["gi.history_verified"] = historyVerified(check);
  byName["gi.schema_valid"] = datasetSchemaValidity(options.dataDir);

  if (target.local !== null) {
    const commits = await windowCommits(target.local, options.now, config.thresholds);
    byName["mii.history_append_only"] = await historyAppendOnly(target.local, commits, config.rules.historyFile);
    byName["mii.generated_untouched"] = generatedUntouched(commits, config.rules);
  } else {
    const why = "the repository was scanned through the GitHub API: no local git history";
    byName["mii.history_append_only"] = unmeasured(why);
    byName["mii.generated_untouched"] = unmeasured(why);
  }

  let openIssues: number | null = null;
  let openSecurityAlerts: number | null = null;
  const notes: string[] = [];
  if (options.mode === "github") {
    const gh = await measureGitHub(target.github!, options.now, config.thresholds);
    Object.assign(byName, gh.signals);
    openIssues = gh.openIssues;
    openSecurityAlerts = gh.openSecurityAlerts;
    notes.push(...gh.notes);
  } else {
    for (const name of ["gi.ci_success", "gi.security_alerts", "mii.ci_green_before_merge"] as const)
      byName[name] = unmeasured("GitHub mode only (--mode github)");
  }
  return { byName, openIssues, openSecurityAlerts, notes };
}

/**
 * Appends `record` to the history `check` describes: writes the vkey (when the key is new), the
 * history, the checkpoint and the static files. Also used by the backfill (backfill.ts).
 */
export function publishRecord(
  options: PulseOptions,
  check: PublishedCheck,
  vkeyText: string | null,
  record: PulseRecord,
): string[] {
  const paths = pulsePaths(options.dataDir);
  const key = loadSigningKey(DATASET_KEY, stateDir(options.env), options.env, options.log);
  const vkey = verifierKey(key.name, key.publicKeyHex);
  const trusted = check.trusted.some((k) => k.name === key.name && k.publicKeyHex === key.publicKeyHex);
  let newVkeyText: string | null = null;
  if (!trusted) {
    if (check.records.length > 0 && !options.trustNewKey) {
      throw new PulseRefusal(
        `the dataset-signing key ${vkey} (${key.source === "env" ? "from DATASET_SIGNING_KEY" : `source: ${key.source}`}) is not among the trusted keys in ${relative(process.cwd(), paths.vkey) || paths.vkey}, ` +
          `and the history already has ${check.records.length} record(s) signed by a trusted key. ` +
          `A fresh clone generates a new development key under ${stateDir(options.env)}/keys/; either sign with the trusted key ` +
          `(set DATASET_SIGNING_KEY or DATASET_SIGNING_KEY_FILE), or re-run with --trust-new-key to add this key to datasets.vkey ` +
          `(review and commit that change: everyone who verifies the history will trust it).`,
      );
    }
    const before = vkeyText ?? "";
    newVkeyText = `${before}${before === "" || before.endsWith("\n") ? "" : "\n"}${vkey}\n`;
    parseTrusted(newVkeyText, []);
    options.log(`${vkeyText === null ? "created" : "added this key to"} ${paths.vkey}: ${vkey}`);
  }
  let next;
  try {
    next = appendRecord(check, record, { name: key.name, secretKeyHex: key.secretKeyHex });
  } catch (error) {
    throw new PulseRefusal((error as Error).message);
  }
  // What is about to be written must pass the same check the next run (and --verify) will make.
  const after = checkPublished({
    historyText: next.historyText,
    checkpointText: next.checkpointText,
    vkeyText: newVkeyText ?? vkeyText,
  });
  if (after.problems.length > 0) throw new Error(`the new history would not verify: ${after.problems.join("; ")}`);
  const files = staticFiles([...check.records, record]);

  // Measuring takes a while; refuse if another writer changed the history meanwhile.
  const now = readPublished(paths);
  if (now.historyText !== check.lines.map((l) => `${l}\n`).join("") || now.vkeyText !== vkeyText) {
    throw new PulseRefusal(
      `${paths.history} or ${paths.vkey} changed while the pulse was measured (another indexer running?); nothing written`,
    );
  }

  const written: string[] = [];
  const write = (path: string, bytes: string | Uint8Array) => {
    writeFileAtomic(path, bytes);
    written.push(relative(options.dataDir, path).split("\\").join("/"));
  };
  // Keys first, so that at every step the checkpoint on disk verifies against the keys on disk.
  if (newVkeyText !== null) write(paths.vkey, newVkeyText);
  write(paths.history, next.historyText);
  write(paths.checkpoint, next.checkpointText);
  for (const [path, bytes] of files) write(join(options.dataDir, path), bytes);
  return written;
}
