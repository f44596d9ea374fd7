/**
 * `virtual:integrity/openapi`: the API description (OpenAPI 3.1) for the /docs page, generated
 * when the build starts by the API's own generator (`node api/cli/openapi.ts --data <DATA_DIR>`,
 * what `npm run openapi` runs) in a child process, so the page shows exactly what the API's
 * `GET /openapi.json` serves for the same data, and nothing is written by hand.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";

const ID = "virtual:integrity/openapi";
const ASYNC_ID = "virtual:integrity/asyncapi";

/** Runs the generator (`--asyncapi`: the AsyncAPI document instead); throws with its error output when it fails. */
export function generateApiDescription(
  repoRoot: string,
  dataDir: string,
  which: "openapi" | "asyncapi" = "openapi",
): unknown {
  const args = which === "asyncapi" ? ["--asyncapi"] : ["--data", dataDir];
  const result = spawnSync(process.execPath, [join(repoRoot, "api", "cli", "openapi.ts"), ...args], {
    cwd: repoRoot,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.error) throw result.error;
  if (result.status !== 0)
    throw new Error(`the API description could not be generated (exit ${result.status}):\n${result.stderr}`);
  return JSON.parse(result.stdout);
}

/** The Vite plugin that serves the modules (`virtual:integrity/asyncapi`: the AsyncAPI document, for /asyncapi.json). */
export function apiDescriptionModule(repoRoot: string, dataDir: string) {
  const texts = new Map<string, string>();
  return {
    name: "integrity:openapi",
    resolveId: (source: string) => (source === ID || source === ASYNC_ID ? `\0${source}` : undefined),
    load(resolved: string) {
      const which = resolved === `\0${ID}` ? "openapi" : resolved === `\0${ASYNC_ID}` ? "asyncapi" : null;
      if (!which) return undefined;
      if (!texts.has(which)) texts.set(which, JSON.stringify(generateApiDescription(repoRoot, dataDir, which)));
      return `export default ${texts.get(which)};\n`;
    },
  };
}
