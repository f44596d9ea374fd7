/**
 * The import rules of the project, as data (docs/structure.md explains them).
 * `npm run lint:imports` checks the tree against them; `npm test` runs it beside the type check, the
 * formatter's check and vitest (test/run.ts).
 *
 * Layers, lowest first: core → store → pipeline | api | site → cli. A layer imports only layers
 * below it; pipeline and api never import each other; nothing imports cli/ (entry points). Inside
 * store/, the ledger engine (store/ledger/) imports no driver, and no driver another.
 * Tests (`*.test.ts`, test/), test support (test/support/) and benchmarks (bench/) may import
 * anything; production code never imports them.
 */

// Code that only tests and benchmarks run: it may import anything, and production may not import it.
const TEST_CODE = "(\\.test\\.ts$)|(^test/)|(^bench/)";
const TEST_SUPPORT = "(\\.test\\.ts$)|(^test/)";

/** A rule that a production module under `from` imports nothing under `to`. */
function layer(name, comment, from, to) {
  return { name, comment, severity: "error", from: { path: from, pathNot: TEST_CODE }, to: { path: to } };
}

/**
 * The floors inside a layer, lowest first. A floor lists its rooms: a folder (`"routes/"`), a loose
 * file (`"app.ts"`) or the layer's loose files together (`"*.ts"`). A room imports only rooms on the
 * floors below its own and itself: nothing on a higher floor, nor another room of its own floor.
 */
const CORE_FLOORS = [
  ["tlog/"],
  ["*.ts"],
  ["areas/", "money/", "ledger/", "witness/", "release/"],
  ["schemas/", "format/"],
  ["datapackage/"],
  ["access/", "economy/", "compliance/", "philosophy/", "pulse/"],
  ["avm/", "consensus/"],
  ["balance/", "health/"],
  ["migration/"],
  ["events/"],
];
const API_FLOORS = [
  ["clients/", "sources/", "workers/"],
  ["problems/"],
  ["http/"],
  ["middleware/"],
  ["simulation/", "openapi/"],
  ["fallback/", "routes/"],
  ["app.ts"],
  ["server/", "cli/"],
  ["start.ts"],
];

/** The regular expression of a room of `floors` under `layer` (`core/`, `api/`). */
function roomPattern(room) {
  if (room === "*.ts") return "[^/]+\\.ts$";
  if (room.endsWith("/")) return room.replace(/[.]/g, "\\.");
  return room.replace(/[.]/g, "\\.") + "$";
}

/** The rules that hold a layer's floors: one per floor against the floors above, one against its neighbours. */
function floorRules(layer, floors) {
  const rules = [];
  floors.forEach((floor, i) => {
    const here = floor.map(roomPattern).join("|");
    const above = floors
      .slice(i + 1)
      .flat()
      .map(roomPattern)
      .join("|");
    const names = floor.join(" ");
    if (above)
      rules.push({
        name: `${layer}-floor-${i + 1}-not-up`,
        comment: `${layer}/ floor ${i + 1} (${names}) imports nothing on a higher floor (docs/structure.md).`,
        severity: "error",
        from: { path: `^${layer}/(${here})`, pathNot: TEST_CODE },
        to: { path: `^${layer}/(${above})` },
      });
    const folders = floor.filter((room) => room.endsWith("/"));
    if (folders.length > 1)
      rules.push({
        name: `${layer}-floor-${i + 1}-not-sideways`,
        comment: `The folders of ${layer}/ floor ${i + 1} (${folders.join(" ")}) do not import each other.`,
        severity: "error",
        from: { path: `^${layer}/(${folders.map(roomPattern).join("|")})`, pathNot: TEST_CODE },
        to: { path: `^${layer}/(${folders.map(roomPattern).join("|")})`, pathNot: `^${layer}/$1` },
      });
  });
  return rules;
}

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "An import circle ties its modules into one; break it by moving what both need below both.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    layer(
      "core-imports-only-core",
      "core/ is the bottom layer: pure rules, imported by all, importing none of them.",
      "^core/",
      "^(store|pipeline|api|site|cli|bench|test)/",
    ),
    {
      name: "core-no-io",
      comment:
        "core/ does no I/O: of Node's modules it may use only node:crypto (hashing and signatures are computation).",
      severity: "error",
      from: { path: "^core/", pathNot: TEST_CODE },
      to: { dependencyTypes: ["core"], pathNot: "^(node:)?crypto$" },
    },
    {
      name: "tlog-self-contained",
      comment:
        "core/tlog/ is the one transparency-log verifier, copied whole into the published integrity-verify package and run in browsers: it imports nothing outside itself, not even Node's modules.",
      severity: "error",
      from: { path: "^core/tlog/", pathNot: TEST_CODE },
      to: { pathNot: "^core/tlog/" },
    },
    layer(
      "store-imports-only-core",
      "store/ is the I/O layer shared by pipeline and api: it imports core only.",
      "^store/",
      "^(pipeline|api|site|cli|bench|test)/",
    ),
    layer(
      "store-engine-not-drivers",
      "The ledger engine (store/ledger/) knows a driver only through its contract (store/ledger/backend.ts): it imports core and itself, never a driver, the registry or the stores' location.",
      "^store/ledger/",
      "^store/(?!ledger/)",
    ),
    {
      name: "store-driver-not-another",
      comment:
        "A store driver (store/drivers/<driver>/) is a folder of its own: it imports no other driver and not the registry that lists it (store/drivers/driver.ts, the drivers' contract, it may).",
      severity: "error",
      from: { path: "^store/drivers/([^/]+)/", pathNot: TEST_CODE },
      to: { path: "^store/drivers/", pathNot: "^store/drivers/($1/|driver[.]ts$)" },
    },
    layer(
      "pipeline-not-api",
      "pipeline and api never import each other: they share core, store and the files in data/.",
      "^pipeline/",
      "^(api|site|cli|bench|test)/",
    ),
    layer(
      "api-not-pipeline",
      "pipeline and api never import each other: they share core, store and the files in data/.",
      "^api/",
      "^(pipeline|site|cli|bench|test)/",
    ),
    layer(
      "site-imports-core-and-store",
      "The portal reads data/ through core and store at build time; it never runs pipeline or api code.",
      "^site/",
      "^(pipeline|api|cli|bench|test)/",
    ),
    layer(
      "deploy-standalone",
      "deploy/ is a deployment's configuration and its local launcher: it runs the project's commands, never its modules.",
      "^deploy/",
      "^(core|store|pipeline|api|site|cli|packages|bench|test)/",
    ),
    {
      name: "packages-standalone",
      comment:
        "A package under packages/ is published on its own: it imports nothing of the project (its tests may) but core/tlog/, which its tarball carries a copy of (site/src/lib/verifier-tool.ts).",
      severity: "error",
      from: { path: "^packages/", pathNot: TEST_CODE },
      to: { path: "^(core|store|pipeline|api|site|cli|bench|test)/", pathNot: "^core/tlog/" },
    },
    ...floorRules("core", CORE_FLOORS),
    ...floorRules("api", API_FLOORS),
    {
      name: "nothing-imports-cli",
      comment: "cli/ holds entry points (npm run …): they sit on top and nothing imports them.",
      severity: "error",
      from: { pathNot: "(^cli/)|(\\.test\\.ts$)" },
      to: { path: "^cli/" },
    },
    {
      name: "production-not-test-support",
      comment: "Production code never imports tests, test support or benchmarks.",
      severity: "error",
      from: { pathNot: TEST_CODE },
      to: { path: TEST_SUPPORT + "|(^bench/)" },
    },
    {
      name: "production-not-test-framework",
      comment: "A module that imports the test runner or test generators is test support: it belongs in test/support/.",
      severity: "error",
      from: { pathNot: TEST_CODE },
      to: { path: "(^|node_modules/)(vitest|@vitest/[^/]+|fast-check)(/|$)" },
    },
    {
      name: "not-to-unresolvable",
      comment:
        "An import that resolves to nothing is a typo or a moved file (virtual: and astro: modules are the portal's build-time modules; hast is a types-only package, @types/hast, that the tool does not look up).",
      severity: "error",
      from: {},
      to: { couldNotResolve: true, pathNot: "^(virtual|astro):|^hast$" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)node_modules/|^site/dist/|^site/\\.astro/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".js", ".mjs", ".cjs", ".json"],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
