/**
 * The published pulse history and what vouches for it:
 *
 * - `data/pulse/history.jsonl`: one record per line (its JCS), oldest first, ending with "\n";
 * - `data/pulse/checkpoint`: a C2SP signed note (tlog-checkpoint) with origin
 *   `integrity-platform.example/pulse`, size = number of lines, root = RFC 9162 root over the lines,
 *   signed with the dataset-signing key;
 * - `data/keys/datasets.vkey`: the trusted dataset keys, one note verifier key per line (blank lines
 *   and `#` comments ignored — the same file and format the area manifests are signed against).
 *
 * `checkPublished` is pure and names every problem by file and line; the indexer refuses to append
 * to anything it finds fault with.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseVerifierKey, signCheckpoint, verifyCheckpoint, type NoteSigner, type NoteVerifier } from "../../core/checkpoint.ts";
import { formatDigest } from "../../core/digest.ts";
import { equalBytes } from "../../core/merkle.ts";
import { historyLine, historyLines, verifyHistory, type PulseRecord } from "../../core/pulse/history.ts";

export const PULSE_ORIGIN = "integrity-platform.example/pulse";

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

export interface PublishedState {
  /** "" when the file does not exist. */
  historyText: string;
  checkpointText: string | null;
  vkeyText: string | null;
}

function readIfExists(path: string): string | null {
  return existsSync(path) ? readFileSync(path, "utf8") : null;
}

export function readPublished(paths: PulsePaths): PublishedState {
  return { historyText: readIfExists(paths.history) ?? "", checkpointText: readIfExists(paths.checkpoint), vkeyText: readIfExists(paths.vkey) };
}

export interface PublishedCheck {
  lines: string[];
  records: PulseRecord[];
  rootHash: Uint8Array;
  trusted: NoteVerifier[];
  /** Each problem starts with the file (and line) it is about. */
  problems: string[];
}

/** Trusted keys of a .vkey text; malformed lines become problems naming the line. */
export function parseTrusted(text: string, problems: string[]): NoteVerifier[] {
  const keys: NoteVerifier[] = [];
  text.split("\n").forEach((raw, i) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    try {
      keys.push(parseVerifierKey(line));
    } catch (error) {
      problems.push(`datasets.vkey line ${i + 1}: ${(error as Error).message}`);
    }
  });
  return keys;
}

/** Verifies the history lines, the checkpoint's signature against the trusted keys, its size and root. */
export function checkPublished(state: PublishedState): PublishedCheck {
  const problems: string[] = [];
  const lines = historyLines(state.historyText);
  const report = verifyHistory(lines);
  for (const p of report.problems) problems.push(`history.jsonl line ${p.line}: ${p.problem}`);
  const trusted = state.vkeyText === null ? [] : parseTrusted(state.vkeyText, problems);
  const n = lines.length;

  if (state.checkpointText === null) {
    if (n > 0) problems.push(`checkpoint: missing, but history.jsonl has ${n} line(s)`);
  } else if (trusted.length === 0) {
    problems.push(`checkpoint: no trusted key to verify it with (${state.vkeyText === null ? "data/keys/datasets.vkey is missing" : "datasets.vkey lists no valid key"})`);
  } else {
    try {
      const cp = verifyCheckpoint(state.checkpointText, trusted);
      if (cp.origin !== PULSE_ORIGIN) problems.push(`checkpoint: origin is "${cp.origin}", expected "${PULSE_ORIGIN}"`);
      if (cp.size > n) {
        problems.push(`history.jsonl line ${n + 1}: missing — the checkpoint signs ${cp.size} line(s), the file has ${n} (lines removed?)`);
      } else if (cp.size < n) {
        problems.push(`history.jsonl line ${cp.size + 1}: not covered by the checkpoint, which signs ${cp.size} line(s) of ${n}`);
      } else if (!equalBytes(cp.rootHash, report.rootHash)) {
        problems.push(
          `checkpoint: signed root ${formatDigest(cp.rootHash)} does not match the root ${formatDigest(report.rootHash)} of the ${n} line(s) of history.jsonl (a line was changed or the lines reordered)`,
        );
      }
    } catch (error) {
      problems.push(`checkpoint: ${(error as Error).message}`);
    }
  }
  return { lines, records: report.records, rootHash: report.rootHash, trusted, problems };
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
  if (check.problems.length > 0) throw new Error(`refusing to append to a history that does not verify: ${check.problems[0]}`);
  const lines = [...check.lines, historyLine(record)];
  const report = verifyHistory(lines);
  if (report.problems.length > 0) {
    const p = report.problems[0]!;
    throw new Error(`the new record would break the history: history.jsonl line ${p.line}: ${p.problem}`);
  }
  const checkpointText = signCheckpoint({ origin: PULSE_ORIGIN, size: lines.length, rootHash: report.rootHash }, signer);
  return { historyText: lines.map((l) => `${l}\n`).join(""), checkpointText };
}
