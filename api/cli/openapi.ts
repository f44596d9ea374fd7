/**
 * `npm run openapi [-- --data DIR]`: prints the API description (OpenAPI 3.1 JSON) that
 * `GET /openapi.json` serves for that data folder (default: DATA_DIR or the repository's data/).
 * `npm run openapi -- --asyncapi`: prints the AsyncAPI document `GET /asyncapi.json` serves (the
 * default simulation limits). The portal's build runs both, to render /docs and to publish the
 * static /asyncapi.json; the documents are generated, never edited.
 */
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { createApp } from "../app.ts";
import { openApiDocument } from "../openapi/document.ts";
import { simulationAsyncApi } from "../simulation/asyncapi.ts";
import { VERSION } from "../openapi/version.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

const { values } = parseArgs({ options: { data: { type: "string" }, asyncapi: { type: "boolean" } }, strict: true });
if (values.asyncapi) {
  process.stdout.write(`${JSON.stringify(simulationAsyncApi(undefined, VERSION), null, 2)}\n`);
  process.exit(0);
}
const dataDir = resolve(values.data ?? process.env.DATA_DIR ?? join(ROOT, "data"));
const app = createApp({ dataDir, log: () => {}, trustedOrigins: [] });
process.stdout.write(`${JSON.stringify(openApiDocument(app), null, 2)}\n`);
