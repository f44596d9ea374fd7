/**
 * The API's version, the project's own (package.json): what /health reports and what the OpenAPI
 * and AsyncAPI descriptions carry as `info.version`.
 */
import { readFileSync } from "node:fs";

export const VERSION: string = (
  JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }
).version;
