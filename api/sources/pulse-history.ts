/**
 * The pulse history as the API sees it: the history, its signed checkpoint and the trusted keys,
 * checked with core/pulse/published.ts (the rule `npm run pulse -- --verify` applies) and held in
 * memory; only what the checkpoint covers is served, anything unverifiable serves nothing. The files
 * are stat'ed at most once per `checkIntervalMs` and reloaded when one changes — while a file is
 * "racy" (changed within 2 s of loading, as git treats its index) its bytes are compared too. Each
 * snapshot memoizes its serialized responses.
 */
import { closeSync, fstatSync, openSync, readFileSync, type BigIntStats } from "node:fs";
import { dirname, join } from "node:path";
import { newestFirst, type HistoryProblem, type PulseRecord } from "../../core/pulse/history.ts";
import { checkPublished, type PublishedState } from "../../core/pulse/published.ts";

export type HistoryStatus = "absent" | "verified" | "unverified";

/** Memo bounds per snapshot: entries, and bytes of the bodies (a 365-record page is ~160 KB). */
const MEMO_MAX_ENTRIES = 1024;
const MEMO_MAX_BYTES = 16 * 1024 * 1024;

export class HistorySnapshot {
  readonly status: HistoryStatus;
  /** Verified records, newest first by generatedAt (empty unless verified). */
  readonly newestFirst: readonly PulseRecord[];
  readonly latest: PulseRecord | null;
  /** Number of lines in the file. */
  readonly lines: number;
  /** Lines after the ones the checkpoint signs: never served. */
  readonly unsignedLines: number;
  /** The first problem (for a verified snapshot: the first line beyond the checkpoint). */
  readonly firstProblem: HistoryProblem | null;
  readonly #ids: ReadonlySet<string>;
  readonly #memo = new Map<string, unknown>();
  #memoBytes = 0;

  constructor(
    status: HistoryStatus,
    records: readonly PulseRecord[],
    lines: number,
    firstProblem: HistoryProblem | null,
    unsignedLines = 0,
  ) {
    this.status = status;
    this.newestFirst = status === "verified" ? newestFirst(records) : [];
    this.latest = this.newestFirst[0] ?? null;
    this.lines = lines;
    this.unsignedLines = status === "verified" ? unsignedLines : 0;
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

/** Checks the three published files (core/pulse/published.ts) into a snapshot. */
export function snapshotOf(state: PublishedState): HistorySnapshot {
  const check = checkPublished(state);
  const first = check.issues[0];
  const problem = first ? { line: first.line, problem: first.message } : null;
  if (!check.signed) return new HistorySnapshot("unverified", [], check.lines.length, problem);
  return new HistorySnapshot(
    "verified",
    check.signed.records,
    check.lines.length,
    problem,
    check.lines.length - check.signed.size,
  );
}

function statKey(s: BigIntStats): string {
  return `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
}

const RACY_MS = 2000;

export interface HistorySourceOptions {
  now?: () => Date;
  checkIntervalMs?: number;
  /** Default: `checkpoint` beside the history. */
  checkpointPath?: string;
  /** Default: `<history folder>/../keys/datasets.vkey`. */
  keysPath?: string;
}

/** One file as last read: its stat key and bytes (null: absent). */
interface Read {
  key: string;
  bytes: Buffer | null;
  mtimeMs: number;
}

/** Reads a regular file with its stat; absent → null bytes; anything else that fails throws. */
function readFile(path: string): Read {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { key: "absent", bytes: null, mtimeMs: 0 };
    throw error;
  }
  try {
    const stat = fstatSync(fd, { bigint: true });
    if (!stat.isFile()) throw new Error("not a regular file");
    return { key: statKey(stat), bytes: readFileSync(fd), mtimeMs: Number(stat.mtimeMs) };
  } finally {
    closeSync(fd);
  }
}

function statOnly(path: string): string {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "absent";
    throw error;
  }
  try {
    return statKey(fstatSync(fd, { bigint: true }));
  } finally {
    closeSync(fd);
  }
}

const sameBytes = (a: Read[], b: Read[]) =>
  a.every((x, i) => (x.bytes === null ? b[i]!.bytes === null : b[i]!.bytes !== null && x.bytes.equals(b[i]!.bytes!)));

export class PulseHistorySource {
  readonly path: string;
  readonly #paths: [string, string, string];
  readonly #now: () => Date;
  readonly #interval: number;
  #snapshot: HistorySnapshot | null = null;
  #checkedAt = 0;
  #key = "";
  #reads: Read[] | null = null;
  #racy = false;

  constructor(path: string, options: HistorySourceOptions = {}) {
    this.path = path;
    this.#paths = [
      path,
      options.checkpointPath ?? join(dirname(path), "checkpoint"),
      options.keysPath ?? join(dirname(dirname(path)), "keys", "datasets.vkey"),
    ];
    this.#now = options.now ?? (() => new Date());
    this.#interval = options.checkIntervalMs ?? 1000;
  }

  /** The current snapshot; looks at the files at most once per interval. */
  current(): HistorySnapshot {
    const t = this.#now().getTime();
    if (this.#snapshot && t >= this.#checkedAt && t - this.#checkedAt < this.#interval) return this.#snapshot;
    this.#checkedAt = t;
    return (this.#snapshot = this.#check());
  }

  #check(): HistorySnapshot {
    try {
      const key = this.#paths.map(statOnly).join("|");
      if (key === this.#key && this.#snapshot && !this.#racy) return this.#snapshot;
      const reads = this.#paths.map(readFile);
      const same = this.#reads !== null && sameBytes(reads, this.#reads);
      this.#key = reads.map((r) => r.key).join("|");
      this.#reads = reads;
      this.#racy = Date.now() - Math.max(...reads.map((r) => r.mtimeMs)) < RACY_MS;
      if (same && this.#snapshot) return this.#snapshot;
      const [history, checkpoint, keys] = reads as [Read, Read, Read];
      if (history.bytes === null && checkpoint.bytes === null) return new HistorySnapshot("absent", [], 0, null);
      return snapshotOf({
        historyText: history.bytes?.toString("utf8") ?? "",
        checkpointText: checkpoint.bytes?.toString("utf8") ?? null,
        vkeyText: keys.bytes?.toString("utf8") ?? null,
      });
    } catch (error) {
      return this.#unreadable(error);
    }
  }

  /** Fail closed: a history that cannot be read is not served either. */
  #unreadable(error: unknown): HistorySnapshot {
    this.#key = "";
    this.#reads = null;
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    return new HistorySnapshot("unverified", [], 0, { line: 0, problem: `the history file cannot be read (${code})` });
  }
}
