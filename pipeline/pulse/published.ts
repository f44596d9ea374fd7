/**
 * The published pulse history on disk: where its files are, reading them, and appending a record
 * with a new signed checkpoint. The rule that decides whether they verify — and which records a
 * reader may serve — is core/pulse/published.ts, the same code the API applies; the static copies
 * are compared with what the history gives by core/pulse/static-files.ts, the same code the site
 * build applies.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { signCheckpoint, type NoteSigner } from "../../core/checkpoint.ts";
import { historyLine, verifyHistory, type PulseRecord } from "../../core/pulse/history.ts";
import { checkPublished, PULSE_ORIGIN, type PublishedCheck, type PublishedState } from "../../core/pulse/published.ts";
import { staticCopyProblems } from "../../store/pulse-static.ts";

export {
  checkPublished,
  parseTrusted,
  PULSE_ORIGIN,
  type PublishedCheck,
  type PublishedState,
} from "../../core/pulse/published.ts";

export interface PulsePaths {
  data: string;
  history: string;
  checkpoint: string;
  vkey: string;
  /** Folder of the static CDN copies: data/v1/pulse/. */
  v1: string;
}

export function pulsePaths(dataDir: string): PulsePaths {
  return {
    data: dataDir,
    history: join(dataDir, "pulse", "history.jsonl"),
    checkpoint: join(dataDir, "pulse", "checkpoint"),
    vkey: join(dataDir, "keys", "datasets.vkey"),
    v1: join(dataDir, "v1", "pulse"),
  };
}

function readIfExists(path: string): string | null {
  return existsSync(path) ? readFileSync(path, "utf8") : null;
}

export function readPublished(paths: PulsePaths): PublishedState {
  return {
    historyText: readIfExists(paths.history) ?? "",
    checkpointText: readIfExists(paths.checkpoint),
    vkeyText: readIfExists(paths.vkey),
  };
}

export interface NextPublished {
  historyText: string;
  checkpointText: string;
}

/**
 * The history with `record` appended and its new signed checkpoint. Throws naming the line when the
 * new history would not verify (e.g. generatedAt not after the last record's).
 */
export function appendRecord(check: PublishedCheck, record: PulseRecord, signer: NoteSigner): NextPublished {
  if (check.problems.length > 0)
    throw new Error(`refusing to append to a history that does not verify: ${check.problems[0]}`);
  const lines = [...check.lines, historyLine(record)];
  const report = verifyHistory(lines);
  if (report.problems.length > 0) {
    const p = report.problems[0]!;
    throw new Error(`the new record would break the history: history.jsonl line ${p.line}: ${p.problem}`);
  }
  const checkpointText = signCheckpoint(
    { origin: PULSE_ORIGIN, size: lines.length, rootHash: report.rootHash },
    signer,
  );
  return { historyText: lines.map((l) => `${l}\n`).join(""), checkpointText };
}

export interface VerifyResult {
  ok: boolean;
  /** The history's and checkpoint's problems (a line after the signed checkpoint included), else each static copy that is not what the history gives. */
  problems: string[];
  records: number;
}

/**
 * `npm run pulse -- --verify` and, for the pulse, `npm run pipeline -- --check`: the history, its
 * checkpoint against the trusted keys — every line signed — and the static copies under data/v1/
 * (each missing, differing or extra file named).
 */
export function verifyPublished(dataDir: string): VerifyResult {
  const check = checkPublished(readPublished(pulsePaths(dataDir)));
  const problems = check.problems.length > 0 ? [...check.problems] : staticCopyProblems(dataDir, check.records);
  return { ok: problems.length === 0, problems, records: check.records.length };
}
