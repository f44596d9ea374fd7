/**
 * Reading the pulse history of a data directory under the rule the API serves it by
 * (core/pulse/published.ts): only the lines the signed `pulse/checkpoint` covers, never a line after
 * it. Apart from src/lib/pulse.ts, which knows the build's data directory through a Vite virtual
 * module, so that astro.config.mjs can check the history when the build starts, before any page is
 * rendered.
 *
 * The static copies the build publishes under /v1/pulse/ are `staticFiles` of the signed records
 * (core/pulse/static-files.ts, what `npm run pulse -- --verify` compares data/v1/ with), never the
 * files in data/v1/ as such: those must be exactly that, or the build fails naming each file.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { newestFirst, type PulseRecord } from "../../../core/pulse/history.ts";
import { checkPublished } from "../../../core/pulse/published.ts";
import { expectedStaticFiles } from "../../../core/pulse/static-files.ts";
import { staticCopyProblems } from "../../../store/pulse-static.ts";
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

function listed(headline: string, problems: readonly string[]): string {
  const shown = problems.slice(0, 10).map((p) => `  ${p}`);
  const more = problems.length > 10 ? [`  … and ${problems.length - 10} more`] : [];
  return [headline, ...shown, ...more].join("\n");
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
    throw new HistoryVerificationError(
      listed(`the pulse history cannot be vouched for; refusing to publish it`, check.problems),
    );
  }
  const records = check.signed.records;
  const newest = newestFirst(records);
  return { path, records, newest, latest: newest[0] ?? null };
}

/**
 * The pulse's static files this build publishes, keyed by their path under the site (`v1/pulse/…`):
 * what the signed `records` give. Throws HistoryVerificationError naming each file under
 * `<dataDir>/v1/` that is missing, differs or is not one of them, so that a copy that could be
 * served elsewhere from data/v1/ never disagrees with the site.
 */
export function pulseStaticFiles(dataDir: string, records: readonly PulseRecord[]): Map<string, Uint8Array> {
  const problems = staticCopyProblems(dataDir, records);
  if (problems.length > 0) {
    throw new HistoryVerificationError(
      listed(
        `the pulse's static copies under ${join(dataDir, "v1")} are not what the signed history gives; refusing to publish them`,
        problems,
      ),
    );
  }
  return expectedStaticFiles(records);
}
