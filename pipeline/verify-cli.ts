/**
 * `npm run verify -- data/areas [--keys data/keys/datasets.vkey] [--schemas data/schemas]
 *  [--profiles DIR] [--areas a,b] [--keyed DIR] [--public]`: offline verification of downloaded data areas
 * (pipeline/verify.ts, with the validators of pipeline/validate/). Needs only the area folders, the trusted keys, the JSON Schemas and the
 * Frictionless profiles (default `FRICTIONLESS_PROFILES`, else vendor/vectors/frictionless) —
 * not the ledger, not the sources.
 *
 * `--keyed DIR`: the areas folder holding the keyed files (`$KEYED_DATA_DIR/areas`); keyed files that
 * are not present are skipped and counted. `--public`: fail when a keyed file sits in the public
 * folder of an area that is not SAMPLE data (the guard for the public repository and the CDN).
 *
 * Prints `<area>: ok (<n> resources)` or `<area>: FAILED <file>: <problem>` (the first file that
 * fails in that area); exit status 0 when every area verifies, 1 when one fails, 2 on bad usage.
 */
import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import { verifyAreas } from "./verify.ts";

const USAGE =
  "usage: npm run verify -- <areas dir> [--keys FILE] [--schemas DIR] [--profiles DIR] [--areas a,b] [--keyed DIR] [--public]";

export function main(
  argv: readonly string[],
  out: (line: string) => void = console.log,
  err: (line: string) => void = console.error,
): number {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: {
        keys: { type: "string" },
        schemas: { type: "string" },
        profiles: { type: "string" },
        areas: { type: "string" },
        keyed: { type: "string" },
        public: { type: "boolean" },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    err(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const dir = positionals[0] ?? "data/areas";
  if (positionals.length > 1 || !existsSync(dir)) {
    err(`${positionals.length > 1 ? "one areas folder, please" : `${dir}: not found`}\n${USAGE}`);
    return 2;
  }
  let results;
  try {
    results = verifyAreas(dir, {
      ...(values.keys ? { keys: values.keys } : {}),
      ...(values.schemas ? { schemas: values.schemas } : {}),
      ...(values.profiles ? { profiles: values.profiles } : {}),
      ...(values.areas
        ? {
            areas: values.areas
              .split(",")
              .map((a) => a.trim())
              .filter(Boolean),
          }
        : {}),
      ...(values.keyed ? { keyed: values.keyed } : {}),
      ...(values.public ? { publicOnly: true } : {}),
    });
  } catch (error) {
    err(`verify: ${(error as Error).message}`);
    return 1;
  }
  if (results.length === 0) {
    err(`verify: no areas under ${dir}`);
    return 1;
  }
  for (const r of results) {
    if (r.ok)
      out(
        `${r.area}: ok (${r.resources} resources${r.keyedAbsent > 0 ? `; ${r.keyedAbsent} keyed not present here` : ""})`,
      );
    else err(`${r.area}: FAILED ${r.file}: ${r.problem}`);
  }
  return results.every((r) => r.ok) ? 0 : 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = main(process.argv.slice(2));
}
