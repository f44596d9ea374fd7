/**
 * The append-only pulse history: one record per line of `data/pulse/history.jsonl`, each line the
 * record's JCS. A record's `hash` is `sha256:` of its JCS without `id` and `hash`; `prev` chains it
 * to the record before; the lines are the leaves of an RFC 9162 tree whose root the signed
 * checkpoint carries.
 */
import { canonicalize } from "../canonical.ts";
import { digestOf } from "../digest.ts";
import { CompactRange } from "../compact-range.ts";
import { leafHash } from "../merkle.ts";
import { PulseRecord } from "../schemas/pulse.ts";
import { formatIssues } from "../zod-issues.ts";

export type { PulseRecord };

export function pulseHash(record: Omit<PulseRecord, "hash"> | PulseRecord): string {
  const { id: _id, hash: _hash, ...payload } = record as PulseRecord;
  return digestOf(payload);
}

export function sealPulse(fields: Omit<PulseRecord, "hash">): PulseRecord {
  return { ...fields, hash: pulseHash(fields) };
}

/** The history line of a record: its JCS. */
export function historyLine(record: PulseRecord): string {
  return canonicalize(record);
}

export interface HistoryProblem {
  /** 1-based line number in history.jsonl. */
  line: number;
  problem: string;
}

export interface HistoryReport {
  records: PulseRecord[];
  problems: HistoryProblem[];
  /** Root of the tree over the lines, as the checkpoint signs it. */
  rootHash: Uint8Array;
}

const encoder = new TextEncoder();

/** Splits file text into lines; the file must end with a newline (or be empty). */
export function historyLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines.pop() !== "") lines.push("\u0000missing final newline");
  return lines;
}

/** Verifies every line: JSON, schema, canonical form, hash, chain, time order, unique ids. */
export function verifyHistory(lines: readonly string[]): HistoryReport {
  const records: PulseRecord[] = [];
  const problems: HistoryProblem[] = [];
  const range = CompactRange.empty();
  const ids = new Set<string>();
  let prev: PulseRecord | null = null;
  lines.forEach((text, i) => {
    const line = i + 1;
    range.append(leafHash(encoder.encode(text)));
    if (text.startsWith("\u0000")) return problems.push({ line, problem: "the file does not end with a newline" });
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return problems.push({ line, problem: "not valid JSON" });
    }
    const result = PulseRecord.safeParse(parsed);
    if (!result.success) {
      return problems.push({ line, problem: `not a pulse record: ${formatIssues(result.error.issues, "(record)")}` });
    }
    const record = result.data;
    if (canonicalize(parsed) !== text) problems.push({ line, problem: "line is not in canonical (JCS) form" });
    const expected = pulseHash(record);
    if (record.hash !== expected)
      problems.push({ line, problem: `hash mismatch: recorded ${record.hash}, payload hashes to ${expected}` });
    const expectedPrev = prev?.hash ?? null;
    if ((record.prev ?? null) !== expectedPrev)
      problems.push({ line, problem: `prev is ${record.prev ?? null}, expected ${expectedPrev}` });
    if (prev && record.generatedAt <= prev.generatedAt) {
      problems.push({
        line,
        problem: `generatedAt ${record.generatedAt} is not after the previous record's ${prev.generatedAt}`,
      });
    }
    if (ids.has(record.id)) problems.push({ line, problem: `duplicate id ${record.id}` });
    ids.add(record.id);
    records.push(record);
    prev = record;
  });
  return { records, problems, rootHash: range.root() };
}

export const HISTORY_DEFAULT_LIMIT = 90;
export const HISTORY_MAX_LIMIT = 365;

export interface HistoryPage {
  items: PulseRecord[];
  /** id to pass as `before` for the next (older) page, or null at the end. */
  next: string | null;
}

/**
 * One page of the history, newest first. `before` is the id of the last record of the previous
 * page; an unknown id yields null so the caller can answer 400.
 */
export function historyPage(newestFirst: readonly PulseRecord[], limit: number, before?: string): HistoryPage | null {
  let start = 0;
  if (before !== undefined) {
    const at = newestFirst.findIndex((r) => r.id === before);
    if (at < 0) return null;
    start = at + 1;
  }
  const items = newestFirst.slice(start, start + limit);
  const last = items[items.length - 1];
  return { items, next: start + limit < newestFirst.length && last ? last.id : null };
}

/** Newest first by generatedAt (the file is oldest first; ties keep file order reversed). */
export function newestFirst(records: readonly PulseRecord[]): PulseRecord[] {
  return records
    .map((r, i) => [r, i] as const)
    .sort((a, b) =>
      a[0].generatedAt === b[0].generatedAt ? b[1] - a[1] : a[0].generatedAt < b[0].generatedAt ? 1 : -1,
    )
    .map(([r]) => r);
}
