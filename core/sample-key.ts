/**
 * Sample keys: secret seeds anyone can recompute from a public seed string,
 *
 *   secret seed = SHA-256("sample-key:" + seed + ":" + owner id)      (32 bytes, hex)
 *
 * The sample ledger's simulator signs with them (pipeline/seed/sample-keys.ts), and the API
 * reference's write examples sign with them (api/openapi/examples/), so that the examples carry real
 * signatures a reader can recompute. A signature by such a key proves nothing; never reuse them.
 */
import { hash } from "node:crypto";

/** The 32-byte secret seed (hex) of an owner's sample key. */
export function sampleSecretKey(seed: string, owner: string): string {
  return hash("sha256", `sample-key:${seed}:${owner}`, "hex");
}

/** The seed of the sample ledger `npm start` seeds (`npm run seed -- --sample`): its offices' keys. */
export const SAMPLE_SEED = "integrity-sample-1";
