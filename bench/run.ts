/** `npm run bench -- [suite …]`: runs the named benchmark suites (all when none is named). */
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

const wanted = process.argv.slice(2);
const names = wanted.length > 0 ? wanted : Object.keys(suites);
for (const name of names) {
  const suite = suites[name];
  if (!suite) {
    console.error(`unknown suite "${name}"; suites: ${Object.keys(suites).join(", ")}`);
    process.exit(2);
  }
  await suite();
}
