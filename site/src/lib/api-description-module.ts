/**
 * `virtual:integrity/openapi`: the API description (OpenAPI 3.1) for the /docs page, generated
 * when the build starts by the API's own generator (`node api/openapi-cli.ts --data <DATA_DIR>`,
 * what `npm run openapi` runs) in a child process, so the page shows exactly what the API's
 * `GET /openapi.json` serves for the same data, and nothing is written by hand.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";

const ID = "virtual:integrity/openapi";

/** Runs the generator; throws with its error output when it fails. */
export function generateApiDescription(repoRoot: string, dataDir: string): unknown {
  const result = spawnSync(process.execPath, [join(repoRoot, "api", "openapi-cli.ts"), "--data", dataDir], {
    cwd: repoRoot,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`the API description could not be generated (exit ${result.status}):\n${result.stderr}`);
  return JSON.parse(result.stdout);
}

/** The Vite plugin that serves the module. */
export function apiDescriptionModule(repoRoot: string, dataDir: string) {
  let text: string | undefined;
  return {
    name: "integrity:openapi",
    resolveId: (source: string) => (source === ID ? `\0${ID}` : undefined),
    load(resolved: string) {
      if (resolved !== `\0${ID}`) return undefined;
      text ??= JSON.stringify(generateApiDescription(repoRoot, dataDir));
      return `export default ${text};\n`;
    },
  };
}
