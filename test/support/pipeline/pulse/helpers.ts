/**
 * Shared by the pulse tests: throwaway folders, real git repositories with fixed commit dates, a
 * data folder holding the real scoring configuration and pulse schemas, and a real ledger.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { NewEvent } from "../../../../core/ledger/store.ts";
import { openLedger } from "../../../../store/open-ledger.ts";
import type { PulseOptions } from "../../../../pipeline/pulse/indexer.ts";

export const PROJECT_ROOT = fileURLToPath(new URL("../../../..", import.meta.url));
/** A fixed dataset-signing seed, so that runs in different folders sign identically. */
export const TEST_DATASET_KEY = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";

export function tempDir(prefix = "pulse-test-"): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function writeFiles(root: string, files: Record<string, string | Uint8Array>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

function run(repo: string, args: string[], date?: string): string {
  return execFileSync(
    "git",
    [
      "-C",
      repo,
      "-c",
      "user.name=Pulse Test",
      "-c",
      "user.email=pulse@example.test",
      "-c",
      "commit.gpgsign=false",
      ...args,
    ],
    {
      encoding: "utf8",
      env: { ...process.env, ...(date ? { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date } : {}) },
    },
  );
}

export function gitInit(repo: string): void {
  mkdirSync(repo, { recursive: true });
  run(repo, ["init", "--quiet", "--initial-branch=main"]);
}

/** Writes the files (null deletes), stages everything and commits at `date`; returns the sha. */
export function commit(
  repo: string,
  files: Record<string, string | Uint8Array | null>,
  message: string,
  date: string,
): string {
  for (const [path, content] of Object.entries(files)) {
    if (content === null) rmSync(join(repo, path));
    else writeFiles(repo, { [path]: content });
  }
  run(repo, ["add", "--all"]);
  run(repo, ["commit", "--quiet", "--allow-empty", "-m", message], date);
  return run(repo, ["rev-parse", "HEAD"]).trim();
}

/** A data folder with the real scoring configuration and the published pulse schemas, nothing else. */
export function makeDataDir(dir: string): string {
  const data = join(dir, "data");
  mkdirSync(join(data, "sources"), { recursive: true });
  mkdirSync(join(data, "schemas"), { recursive: true });
  copyFileSync(join(PROJECT_ROOT, "data/sources/scoring.json"), join(data, "sources/scoring.json"));
  for (const name of ["pulse-badge", "pulse-history", "pulse-record"]) {
    copyFileSync(join(PROJECT_ROOT, `data/schemas/${name}.schema.json`), join(data, `schemas/${name}.schema.json`));
  }
  return data;
}

/** A real ledger at `path`, keyed from `env`'s STATE_DIR, holding `events` and one checkpoint. */
export async function makeLedger(path: string, env: NodeJS.ProcessEnv, events: NewEvent[]): Promise<void> {
  const { ledger } = await openLedger({ path, env });
  try {
    await ledger.append(events);
    await ledger.checkpoint();
  } finally {
    await ledger.close();
  }
}

const KEY = "a".repeat(64);
/** Registers every sentinel named, then appends their heartbeats in time order. */
export function sentinelEvents(
  beats: { sentinel: string; ts: string; status?: "operational" | "degraded" | "offline" }[],
): NewEvent[] {
  const ids = [...new Set(beats.map((b) => b.sentinel))];
  const first = beats.map((b) => b.ts).sort()[0]!;
  return [
    ...ids.map((sentinel) => ({
      type: "sentinel.registered",
      ts: first,
      payload: { sentinel, cathedral: "FOR-ACADEMICS", algorithm: "ed25519", public_key: KEY },
    })),
    ...[...beats]
      .sort((a, b) => (a.ts < b.ts ? -1 : 1))
      .map((b) => ({
        type: "sentinel.heartbeat",
        ts: b.ts,
        payload: {
          sentinel: b.sentinel,
          status: b.status ?? "operational",
          gi_score: 0.97,
          apps: 3,
          packages: 1,
          workflows: 2,
          drift: 0.5,
        },
      })),
  ];
}

/** Indexer options for a run over `repo` into `data`, everything else inside `dir`. */
export function options(
  dir: string,
  repo: string,
  data: string,
  now: string,
  extra: Partial<PulseOptions> = {},
): PulseOptions {
  return {
    now: new Date(now),
    mode: "local",
    repo,
    dataDir: data,
    configPath: join(data, "sources/scoring.json"),
    ledgerPath: join(dir, "ledger.sqlite"),
    dryRun: false,
    trustNewKey: false,
    env: { STATE_DIR: join(dir, "state"), DATASET_SIGNING_KEY: TEST_DATASET_KEY },
    log: () => {},
    ...extra,
  };
}
