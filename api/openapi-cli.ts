/**
 * `npm run openapi [-- --data DIR]`: prints the API description (OpenAPI 3.1 JSON) that
 * `GET /openapi.json` serves for that data folder (default: DATA_DIR or the repository's data/).
 * The portal's build runs it to render /docs; the document is generated, never edited.
 */
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { createApp } from "./app.ts";
import { openApiDocument } from "./openapi.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

const { values } = parseArgs({ options: { data: { type: "string" } }, strict: true });
const dataDir = resolve(values.data ?? process.env.DATA_DIR ?? join(ROOT, "data"));
const app = createApp({ dataDir, log: () => {}, trustedOrigins: [] });
process.stdout.write(`${JSON.stringify(openApiDocument(app), null, 2)}\n`);
