/**
 * The embedded default's sample: the seed and size in `data/sources/sample.json`, and its present —
 * the newest pulse's instant, or the file's `now` when that is later or there is no pulse. The
 * documents are dated by the later of the ledger's last entry and the newest pulse, so seeding up
 * to the newest pulse makes the simulated sentinels alive at that instant. `npm start`, the
 * regeneration workflow (`npm run seed -- --sample`) and the tests that rebuild the sample all read
 * it here, so they seed the same ledger.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { historyLines, newestFirst, verifyHistory } from "../../core/pulse/history.ts";

export interface SampleOptions {
  seed: string;
  size: number;
  /** ISO 8601 instant: the sample's present. */
  now: string;
}

export function sampleOptions(dataDir: string): SampleOptions {
  const file = JSON.parse(readFileSync(join(dataDir, "sources", "sample.json"), "utf8")) as SampleOptions;
  const history = join(dataDir, "pulse", "history.jsonl");
  const text = existsSync(history) ? readFileSync(history, "utf8") : "";
  const newest = newestFirst(verifyHistory(historyLines(text)).records)[0]?.generatedAt;
  return { seed: file.seed, size: file.size, now: newest && newest > file.now ? newest : file.now };
}
