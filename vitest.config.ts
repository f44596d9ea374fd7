import { BaseSequencer, type TestSpecification } from "vitest/node";
import { defineConfig } from "vitest/config";

/**
 * The portal crawl's two files start first, then the deployment rehearsal. They are the suite's
 * longest (a minute each for the crawls: axe on every page; half a minute for the rehearsal's two
 * regenerations, builds and browser), and longest first keeps both workers busy to the end. Vitest orders by the last
 * run's durations when it has them, but a fresh clone has none and it then orders by file size,
 * which puts these two small files last.
 */
const FIRST = [
  "test/portal-crawl.test.ts",
  "test/portal-crawl-narrow.test.ts",
  "test/deployment-rehearsal.test.ts",
  "test/site-build.test.ts",
];

class CrawlFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const at = FIRST.findIndex((name) => spec.moduleId.endsWith(`/${name}`));
      return at === -1 ? FIRST.length : at;
    };
    return sorted
      .map((spec, i) => ({ spec, i }))
      .sort((a, b) => rank(a.spec) - rank(b.spec) || a.i - b.i)
      .map(({ spec }) => spec);
  }
}

export default defineConfig({
  test: {
    include: ["{core,store,pipeline,api,cli,test,bench}/**/*.test.ts", "packages/*/src/**/*.test.ts"],
    // Every response of an app created in a test is checked against its /openapi.json.
    setupFiles: ["test/support/api/contract/setup.ts"],
    // One id per run: the site build of the repository's data is made once per run and shared.
    globalSetup: ["test/global-setup.ts"],
    // Three test files at a time on two cores: most of the suite's wall time is waiting (child
    // processes, a browser, a server's answers), and a third file fills the time the other two wait
    // (a full run took 299 s with two, 248 s with three, on the 2-core machine). No test asserts a
    // time; generous timeouts absorb the contention.
    maxWorkers: 3,
    sequence: { sequencer: CrawlFirst },
    // Test files share a worker's module cache instead of a fresh process each: most files import
    // the same app, schemas and ledger, and re-importing them per file was a minute of CPU a run.
    // No test mocks modules or changes process-wide state, so sharing changes no outcome.
    isolate: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
