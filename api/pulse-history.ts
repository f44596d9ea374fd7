/**
 * The pulse history as the API sees it: `<dataDir>/pulse/history.jsonl`, parsed and verified with
 * core/pulse/history.ts, held in memory and reloaded only when the file changes.
 *
 * - The file is stat'ed at most once per `checkIntervalMs` (1 s) of the injected clock, so the
 *   badge route costs a clock read and a comparison. A new inode, size, mtime or ctime reloads it.
 *   File times are only as fine as the kernel's clock tick, so while the file is "racy" (changed
 *   less than 2 s before it was loaded, as git handles its index) each check also compares the
 *   bytes with the ones loaded, and a same-size rewrite in the same tick is not missed.
 * - Fail closed: if any line fails verification the snapshot is `unverified`, carries the first
 *   bad line, and no record of it is served.
 * - A missing file is `absent` (no history yet); an empty file is a verified history of 0 records.
 * - Each snapshot has a memo for serialized responses (bodies and ETags), so routes compute a
 *   representation once per history version and not per request.
 */
import { closeSync, fstatSync, openSync, readFileSync, type BigIntStats } from "node:fs";
import { join } from "node:path";
import { historyLines, newestFirst, verifyHistory, type HistoryProblem, type PulseRecord } from "../core/pulse/history.ts";

export type HistoryStatus = "absent" | "verified" | "unverified";

/** Memo bounds per snapshot: entries, and bytes of the bodies (a 365-record page is ~160 KB). */
const MEMO_MAX_ENTRIES = 1024;
const MEMO_MAX_BYTES = 16 * 1024 * 1024;

export class HistorySnapshot {
  readonly status: HistoryStatus;
  /** Verified records, newest first by generatedAt (empty unless verified). */
  readonly newestFirst: readonly PulseRecord[];
  readonly latest: PulseRecord | null;
  /** Number of lines in the file (records when verified). */
  readonly lines: number;
  readonly firstProblem: HistoryProblem | null;
  readonly #ids: ReadonlySet<string>;
  readonly #memo = new Map<string, unknown>();
  #memoBytes = 0;

  constructor(status: HistoryStatus, records: readonly PulseRecord[], lines: number, firstProblem: HistoryProblem | null) {
    this.status = status;
    this.newestFirst = status === "verified" ? newestFirst(records) : [];
    this.latest = this.newestFirst[0] ?? null;
    this.lines = lines;
    this.firstProblem = firstProblem;
    this.#ids = new Set(this.newestFirst.map((r) => r.id));
  }

  has(id: string): boolean {
    return this.#ids.has(id);
  }

  /**
   * The value computed once for `key` in this history version. Bounded by entries and by the
   * `weigh`ed bytes (cleared when either is exceeded), so clients walking every cursor cannot
   * make the cache grow without limit.
   */
  memo<T>(key: string, build: () => T, weigh: (value: T) => number = () => 0): T {
    if (this.#memo.has(key)) return this.#memo.get(key) as T;
    const value = build();
    const bytes = weigh(value);
    if (this.#memo.size >= MEMO_MAX_ENTRIES || this.#memoBytes + bytes > MEMO_MAX_BYTES) {
      this.#memo.clear();
      this.#memoBytes = 0;
    }
    this.#memo.set(key, value);
    this.#memoBytes += bytes;
    return value;
  }
}

export function historyPath(dataDir: string): string {
  return join(dataDir, "pulse", "history.jsonl");
}

/** Verifies file text into a snapshot. */
export function snapshotOf(text: string): HistorySnapshot {
  const lines = historyLines(text);
  const report = verifyHistory(lines);
  const first = report.problems[0] ?? null;
  return first ? new HistorySnapshot("unverified", [], lines.length, first) : new HistorySnapshot("verified", report.records, lines.length, null);
}

function statKey(s: BigIntStats): string {
  return `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
}

const RACY_MS = 2000;

export interface HistorySourceOptions {
  now?: () => Date;
  checkIntervalMs?: number;
}

export class PulseHistorySource {
  readonly path: string;
  readonly #now: () => Date;
  readonly #interval: number;
  #snapshot: HistorySnapshot | null = null;
  #checkedAt = 0;
  #key = "";
  #bytes: Buffer | null = null;
  #racy = false;

  constructor(path: string, options: HistorySourceOptions = {}) {
    this.path = path;
    this.#now = options.now ?? (() => new Date());
    this.#interval = options.checkIntervalMs ?? 1000;
  }

  /** The current snapshot; looks at the file at most once per interval. */
  current(): HistorySnapshot {
    const t = this.#now().getTime();
    if (this.#snapshot && t >= this.#checkedAt && t - this.#checkedAt < this.#interval) return this.#snapshot;
    this.#checkedAt = t;
    return (this.#snapshot = this.#check());
  }

  #check(): HistorySnapshot {
    let fd: number;
    try {
      fd = openSync(this.path, "r");
    } catch (error) {
      this.#key = "";
      this.#bytes = null;
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return this.#keep("absent") ?? new HistorySnapshot("absent", [], 0, null);
      return this.#unreadable(error);
    }
    try {
      const stat = fstatSync(fd, { bigint: true });
      if (!stat.isFile()) return this.#unreadable(new Error("not a regular file"));
      const key = statKey(stat);
      if (key === this.#key && this.#snapshot && !this.#racy) return this.#snapshot;
      const bytes = readFileSync(fd);
      const sameBytes = this.#bytes !== null && bytes.equals(this.#bytes);
      this.#key = key;
      this.#bytes = bytes;
      this.#racy = Date.now() - Number(stat.mtimeMs) < RACY_MS;
      if (sameBytes && this.#snapshot) return this.#snapshot;
      return snapshotOf(bytes.toString("utf8"));
    } catch (error) {
      return this.#unreadable(error);
    } finally {
      closeSync(fd);
    }
  }

  #keep(status: HistoryStatus): HistorySnapshot | null {
    return this.#snapshot?.status === status && this.#snapshot.lines === 0 ? this.#snapshot : null;
  }

  /** Fail closed: a history that cannot be read is not served either. */
  #unreadable(error: unknown): HistorySnapshot {
    this.#key = "";
    this.#bytes = null;
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    return new HistorySnapshot("unverified", [], 0, { line: 0, problem: `the history file cannot be read (${code})` });
  }
}
