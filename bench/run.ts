/**
 * `npm run bench -- [suite …] [--json FILE] [--events N]`: runs the named benchmark suites (all when
 * none is named; `--events` sets the pipeline benchmark's ledger size); with `--json FILE`, writes every figure they printed, with the commit, the load and the
 * cores, to FILE (bench/results.ts). `npm run bench -- compare A.json B.json` prints what moved
 * between two such files beyond its spread.
 */
import { compareFiles, startResults, writeResults } from "./results.ts";

const suites: Record<string, () => Promise<unknown>> = {
  core: () => import("./core.ts").then((m) => m.run()),
  pulse: () => import("./pulse.ts").then((m) => m.run()),
  pipeline: () => import("./pipeline.ts").then((m) => m.run()),
  simulation: () => import("./simulation.ts").then((m) => m.run()),
  avm: () => import("./avm.ts").then((m) => m.run()),
  groupcommit: () => import("./group-commit.ts").then((m) => m.run()),
  api: () => import("./api.ts").then((m) => m.run()),
  migration: () => import("./migration.ts").then((m) => m.run()),
  consensus: () => import("./consensus.ts").then((m) => m.run()),
  tiles: () => import("./tiles.ts").then((m) => m.run()),
  postgres: () => import("./postgres.ts").then((m) => m.run()),
  witness: () => import("./witness.ts").then((m) => m.run()),
};

const args = process.argv.slice(2);
if (args[0] === "compare") {
  if (args.length !== 3) {
    console.error("usage: npm run bench -- compare A.json B.json");
    process.exit(2);
  }
  compareFiles(args[1]!, args[2]!);
  process.exit(0);
}

let jsonFile: string | null = null;
const wanted: string[] = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--json") {
    jsonFile = args[++i] ?? null;
    if (!jsonFile) {
      console.error("--json needs a file name");
      process.exit(2);
    }
  } else if (args[i] === "--events") {
    // The pipeline benchmark's ledger size (bench/pipeline.ts), e.g. 10000000 for the 10M-event figures.
    const events = args[++i] ?? "";
    if (!/^[1-9][0-9]*$/.test(events)) {
      console.error("--events needs a positive number of events");
      process.exit(2);
    }
    process.env.BENCH_PIPELINE_SIZE = events;
  } else wanted.push(args[i]!);
}
const names = wanted.length > 0 ? wanted : Object.keys(suites);
for (const name of names) {
  if (!suites[name]) {
    console.error(`unknown suite "${name}"; suites: ${Object.keys(suites).join(", ")}`);
    process.exit(2);
  }
}
const started = startResults(names);
for (const name of names) await suites[name]!();
if (jsonFile) {
  const written = writeResults(jsonFile, started);
  console.log(`\n${written.figures.length} figures written to ${jsonFile}`);
}
