/**
 * The static copies of the sealed deliberation proofs (`<dataDir>/consensus/proofs/<id>.json`,
 * written by the pipeline: pipeline/proof-copies.ts), published at the API's own path
 * `/v1/consensus/proofs/<id>`, byte for byte, so the /consensus page links each proof and a static
 * host answers it. Before copying, each file is checked with what needs no ledger
 * (core/consensus/verify-proof.ts `verifyProofSeal`: canonical form, the seal's Merkle root over
 * the proof's parts, the sealing entry, the checkpoint under keys/ledger.vkey, the entry's
 * inclusion); one that does not check fails the build, naming the file and the check. The
 * signatures against the registered keys need the ledger: `npm run consensus -- verify-proof`.
 *
 * No Astro or Vite import here: astro.config.mjs uses this module.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { PROOF_COPIES_DIR, verifyProofSeal } from "../../../core/consensus/verify-proof.ts";
import { parseTrustedKeys } from "../../../core/datapackage/index.ts";
import { CodedError } from "../../../core/errors.ts";

export class ProofCopyError extends CodedError<"proof-copy-unverified"> {
  constructor(message: string) {
    super("proof-copy-unverified", message);
  }
}

/** Where the build publishes a proof: the path `GET /v1/consensus/proofs/{delib_id}` answers on the API. */
export const PROOF_SITE_DIR = "v1/consensus/proofs";
export const proofSitePath = (delibId: string) => `/${PROOF_SITE_DIR}/${delibId}`;

const COPY = /^(DP-[0-9]+-[0-9]+)\.json$/;

/** The proof ids with a static copy in the data folder (empty before the pipeline wrote any). */
export function proofCopyIds(dataDir: string): Set<string> {
  const dir = join(dataDir, PROOF_COPIES_DIR);
  if (!existsSync(dir)) return new Set();
  return new Set(readdirSync(dir).flatMap((name) => COPY.exec(name)?.[1] ?? []));
}

/** Checks every copy and writes it to `<outDir>/v1/consensus/proofs/<id>`; the number published. */
export async function publishProofCopies(dataDir: string, outDir: string): Promise<number> {
  const dir = join(dataDir, PROOF_COPIES_DIR);
  if (!existsSync(dir)) return 0;
  const names = readdirSync(dir).sort();
  const stray = names.find((n) => !COPY.test(n));
  if (stray) throw new ProofCopyError(`${join(dir, stray)}: not a proof copy (<delib_id>.json)`);
  if (names.length === 0) return 0;
  const vkeyPath = join(dataDir, "keys", "ledger.vkey");
  if (!existsSync(vkeyPath))
    throw new ProofCopyError(`${vkeyPath} is missing: the proof copies in ${dir} cannot be checked`);
  const keys = parseTrustedKeys(readFileSync(vkeyPath, "utf8"), vkeyPath);
  await mkdir(join(outDir, PROOF_SITE_DIR), { recursive: true });
  for (const name of names) {
    const id = COPY.exec(name)![1]!;
    const bytes = readFileSync(join(dir, name));
    const result = verifyProofSeal(bytes, keys);
    if (!result.ok) throw new ProofCopyError(`${join(dir, name)} does not verify: ${result.message}`);
    if (result.delib_id !== id) throw new ProofCopyError(`${join(dir, name)} holds proof ${result.delib_id}`);
    await writeFile(join(outDir, proofSitePath(id)), bytes);
  }
  return names.length;
}
