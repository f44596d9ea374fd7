/**
 * Vitest global setup: one id per run, inherited by every test worker, under which the site build
 * of the repository's own data is made once and shared (test/support/site/helpers.ts `buildSite`);
 * and one throwaway PostgreSQL cluster for the run (test/support/postgres.ts), its URL handed to the
 * workers in PG_TEST_URL. Both are removed when the run ends. And Node's compile cache for the
 * processes the tests start (test/support/compile-cache.ts).
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { useCompileCache } from "./support/compile-cache.ts";
import { PG_TEST_URL_VAR, startCluster } from "./support/postgres.ts";
import { SHARED_BUILDS, TEST_RUN_VAR } from "./support/site/helpers.ts";

export default async function setup(): Promise<() => void> {
  const run = `${process.pid}-${Date.now().toString(36)}`;
  process.env[TEST_RUN_VAR] = run;
  // Already set under `npm test` (test/run.ts); set here for `npx vitest` too.
  useCompileCache();
  const cluster = await startCluster();
  process.env[PG_TEST_URL_VAR] = cluster.url;
  return () => {
    cluster.remove();
    rmSync(join(SHARED_BUILDS, run), { recursive: true, force: true });
  };
}
