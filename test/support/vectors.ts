/**
 * Where the public conformance vectors are: `VECTORS_DIR`, else the verbatim copy this repository
 * carries in `vendor/vectors/` (its README, NOTICE and PROVENANCE.tsv give origins, licences and
 * digests; test/vectors-provenance.test.ts checks them), so a clone alone runs every test.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const VECTORS_DIR = process.env.VECTORS_DIR ?? fileURLToPath(new URL("../../vendor/vectors/", import.meta.url));

export function vectorsPath(...parts: string[]): string {
  return join(VECTORS_DIR, ...parts);
}
