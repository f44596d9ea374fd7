/**
 * Node's compile cache for the test run: the suite starts about two hundred Node processes (the
 * API, the CLIs, the seed, the site build, the type check), and each one strips the types of the
 * same TypeScript files and compiles the same modules again. With NODE_COMPILE_CACHE set, each
 * process after the first reads both from disk: a CLI starts in half the CPU time, the API in
 * about 60%. Node checks every entry against its source's hash, so a stale entry is never used; the
 * folder lives under node_modules/.cache, kept between runs and never committed.
 */
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const REPO_ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));

/** The variable Node reads, and where the suite keeps its cache. */
export const COMPILE_CACHE_VAR = "NODE_COMPILE_CACHE";
export const COMPILE_CACHE_DIR = join(REPO_ROOT, "node_modules", ".cache", "node-compile");

/** Sets the cache for this process's children, unless the person running the tests chose one. */
export function useCompileCache(env: NodeJS.ProcessEnv = process.env): void {
  env[COMPILE_CACHE_VAR] ??= COMPILE_CACHE_DIR;
}
