/**
 * The rule of the published pulse history — the one code that `npm run pulse` (before appending and
 * under `--verify`) and the API (before serving a badge or a page) both apply:
 *
 * - `data/pulse/history.jsonl`: one record per line (its JCS), oldest first, ending with "\n";
 * - `data/pulse/checkpoint`: a C2SP signed note (tlog-checkpoint) with origin
 *   `integrity-platform.example/pulse`, size = number of lines, root = RFC 9162 root over the lines,
 *   signed with a key of `data/keys/datasets.vkey`.
 *
 * `checkPublished` names every problem by file and line (the indexer and `--verify` refuse on any),
 * and says which records a reader may serve: exactly the lines the signed checkpoint covers, when
 * the checkpoint verifies, its root matches them and each of them verifies. Lines beyond the
 * checkpoint are never served (`lines-unsigned`); a history shorter than its checkpoint, a missing
 * or unsigned checkpoint, or a bad line within it leaves nothing to serve (`signed: null`).
 */
import { verifyCheckpoint, type NoteVerifier } from "../checkpoint.ts";
import { CompactRange } from "../compact-range.ts";
import { parseTrustedKeys } from "../datapackage/signature.ts";
import { formatDigest } from "../digest.ts";
import { equalBytes, leafHash } from "../merkle.ts";
import { historyLines, verifyHistory, type PulseRecord } from "./history.ts";

export const PULSE_ORIGIN = "integrity-platform.example/pulse";

export interface PublishedState {
  /** "" when the file does not exist. */
  historyText: string;
  checkpointText: string | null;
  vkeyText: string | null;
}

export type PublishedProblemCode =
  | "history-line"
  | "keys-malformed"
  | "checkpoint-missing"
  | "no-trusted-key"
  | "checkpoint-invalid"
  | "checkpoint-origin"
  | "lines-missing"
  | "lines-unsigned"
  | "root-mismatch";

export interface PublishedProblem {
  code: PublishedProblemCode;
  /** 1-based line of history.jsonl the problem is about; 0 for the checkpoint or the keys. */
  line: number;
  /** Starts with the file (and line) it is about. */
  message: string;
}

export interface PublishedCheck {
  lines: string[];
  records: PulseRecord[];
  rootHash: Uint8Array;
  trusted: NoteVerifier[];
  /** Each problem's message (the indexer and `--verify` refuse on any). */
  problems: string[];
  issues: PublishedProblem[];
  /** What a reader may serve: the records of the lines the checkpoint signs; null when nothing can be vouched for. */
  signed: { records: PulseRecord[]; size: number; rootHash: Uint8Array } | null;
}

const encoder = new TextEncoder();

/** Trusted keys of a .vkey text; a malformed line becomes a problem naming it. */
export function parseTrusted(text: string, problems: string[]): NoteVerifier[] {
  const keys: NoteVerifier[] = [];
  text.split("\n").forEach((line, i) => {
    try {
      keys.push(...parseTrustedKeys(line));
    } catch (error) {
      problems.push(`datasets.vkey line ${i + 1}: ${(error as Error).message.replace(/^datasets\.vkey:1: /, "")}`);
    }
  });
  return keys;
}

function rootOf(lines: readonly string[]): Uint8Array {
  const range = CompactRange.empty();
  for (const line of lines) range.append(leafHash(encoder.encode(line)));
  return range.root();
}

/** Verifies the history lines, the checkpoint's signature against the trusted keys, its size and root. */
export function checkPublished(state: PublishedState): PublishedCheck {
  const issues: PublishedProblem[] = [];
  const add = (code: PublishedProblemCode, line: number, message: string) => issues.push({ code, line, message });
  const lines = historyLines(state.historyText);
  const report = verifyHistory(lines);
  for (const p of report.problems) add("history-line", p.line, `history.jsonl line ${p.line}: ${p.problem}`);
  const keyProblems: string[] = [];
  const trusted = state.vkeyText === null ? [] : parseTrusted(state.vkeyText, keyProblems);
  for (const message of keyProblems) add("keys-malformed", 0, message);
  const n = lines.length;
  let signedSize: number | null = null;
  let signedRoot: Uint8Array = report.rootHash;

  if (state.checkpointText === null) {
    if (n > 0) add("checkpoint-missing", 0, `checkpoint: missing, but history.jsonl has ${n} line(s)`);
    else signedSize = 0; // nothing to vouch for: an empty history
  } else if (trusted.length === 0) {
    add(
      "no-trusted-key",
      0,
      `checkpoint: no trusted key to verify it with (${state.vkeyText === null ? "data/keys/datasets.vkey is missing" : "datasets.vkey lists no valid key"})`,
    );
  } else {
    try {
      const cp = verifyCheckpoint(state.checkpointText, trusted);
      if (cp.origin !== PULSE_ORIGIN) {
        add("checkpoint-origin", 0, `checkpoint: origin is "${cp.origin}", expected "${PULSE_ORIGIN}"`);
      } else if (cp.size > n) {
        add(
          "lines-missing",
          n + 1,
          `history.jsonl line ${n + 1}: missing — the checkpoint signs ${cp.size} line(s), the file has ${n} (lines removed?)`,
        );
      } else {
        const root = cp.size === n ? report.rootHash : rootOf(lines.slice(0, cp.size));
        if (!equalBytes(cp.rootHash, root)) {
          add(
            "root-mismatch",
            0,
            `checkpoint: signed root ${formatDigest(cp.rootHash)} does not match the root ${formatDigest(root)} of the ${cp.size} line(s) of history.jsonl (a line was changed or the lines reordered)`,
          );
        } else {
          signedSize = cp.size;
          signedRoot = root;
          if (cp.size < n)
            add(
              "lines-unsigned",
              cp.size + 1,
              `history.jsonl line ${cp.size + 1}: not covered by the checkpoint, which signs ${cp.size} line(s) of ${n}`,
            );
        }
      }
    } catch (error) {
      add("checkpoint-invalid", 0, `checkpoint: ${(error as Error).message}`);
    }
  }
  // A bad line the checkpoint covers leaves nothing to serve; one beyond it is never served anyway.
  const badSigned = signedSize !== null && report.problems.some((p) => p.line <= signedSize!);
  const signed =
    signedSize === null || badSigned
      ? null
      : { records: report.records.slice(0, signedSize), size: signedSize, rootHash: signedRoot };
  return {
    lines,
    records: report.records,
    rootHash: report.rootHash,
    trusted,
    problems: issues.map((i) => i.message),
    issues,
    signed,
  };
}
