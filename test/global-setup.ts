/**
 * Vitest global setup: one id per run, inherited by every test worker, under which the site build
 * of the repository's own data is made once and shared (test/support/site/helpers.ts `buildSite`);
 * the shared builds of the run are removed when it ends.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { SHARED_BUILDS, TEST_RUN_VAR } from "./support/site/helpers.ts";

export default function setup(): () => void {
  const run = `${process.pid}-${Date.now().toString(36)}`;
  process.env[TEST_RUN_VAR] = run;
  return () => rmSync(join(SHARED_BUILDS, run), { recursive: true, force: true });
}
