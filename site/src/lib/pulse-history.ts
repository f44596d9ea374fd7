/**
 * Reading the pulse history of a data directory under the rule the API serves it by
 * (core/pulse/published.ts): only the lines the signed `pulse/checkpoint` covers, never a line after
 * it. Apart from src/lib/pulse.ts, which knows the build's data directory through a Vite virtual
 * module, so that astro.config.mjs can check the history when the build starts, before any page is
 * rendered.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { newestFirst, type PulseRecord } from "../../../core/pulse/history.ts";
import { checkPublished } from "../../../core/pulse/published.ts";
import { CodedError } from "../../../core/errors.ts";

export interface PulseHistory {
  /** Absolute path of history.jsonl (whether or not it exists). */
  path: string;
  /** Oldest first, as in the file. */
  records: PulseRecord[];
  /** Newest first (by generatedAt), as the timeline lists them. */
  newest: PulseRecord[];
  latest: PulseRecord | null;
}

export class HistoryVerificationError extends CodedError<"history-unverified"> {
  constructor(message: string) {
    super("history-unverified", message);
  }
}

/** Reads the history under `dataDir` and keeps what its signed checkpoint covers; throws HistoryVerificationError naming the problem. */
export function readPulseHistory(dataDir: string): PulseHistory {
  const path = join(dataDir, "pulse", "history.jsonl");
  const read = (file: string) => (existsSync(file) ? readFileSync(file, "utf8") : null);
  const historyText = read(path) ?? "";
  if (historyText === "") return { path, records: [], newest: [], latest: null };
  const check = checkPublished({
    historyText,
    checkpointText: read(join(dataDir, "pulse", "checkpoint")),
    vkeyText: read(join(dataDir, "keys", "datasets.vkey")),
  });
  if (!check.signed) {
    const shown = check.problems.slice(0, 10).map((p) => `  ${p}`);
    const more = check.problems.length > 10 ? [`  … and ${check.problems.length - 10} more`] : [];
    throw new HistoryVerificationError([`the pulse history cannot be vouched for; refusing to publish it`, ...shown, ...more].join("\n"));
  }
  const records = check.signed.records;
  const newest = newestFirst(records);
  return { path, records, newest, latest: newest[0] ?? null };
}
