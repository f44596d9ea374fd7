/**
 * Where the public conformance vectors are: `VECTORS_DIR`, else `../shared/vectors` beside the
 * project (see its README for their origins and licences). `npm test` checks they exist first
 * (test/preflight.ts).
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const VECTORS_DIR = process.env.VECTORS_DIR ?? fileURLToPath(new URL("../../../shared/vectors/", import.meta.url));

export function vectorsPath(...parts: string[]): string {
  return join(VECTORS_DIR, ...parts);
}
