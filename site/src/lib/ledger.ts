/**
 * The ledger as the static build publishes it (docs/ledger-tiles.md): `<dataDir>/ledger/checkpoint`,
 * the C2SP tiles under `<dataDir>/ledger/tile/` and the envelope bundles under
 * `<dataDir>/ledger/envelopes/` (when the bundles hold envelopes, not leaf data), checked at build
 * time — the checkpoint against `keys/ledger.vkey`, and the tiles against the checkpoint
 * (core/tlog-tiles.ts `tilesProblems`: every tile and bundle present, every full tile hashing into
 * the level above, the root, every entry at `tile/entries/` hashing to its leaf, and no other file
 * under `tile/` or `envelopes/`) — then exactly those files are copied to `/ledger/`. Tiles that do
 * not agree with the checkpoint fail the build, naming the file. With `keys/ledger.policy` (C2SP
 * tlog-policy, docs/witnesses.md) the checkpoint must also meet its witness quorum: the cosigned
 * checkpoint `npm run ledger -- witness` wrote is published as it is, cosignatures and all.
 *
 * No Astro or Vite import here: astro.config.mjs uses this module.
 */
import { existsSync, readFileSync } from "node:fs";
import { filesUnder } from "../../../store/files.ts";
import { mkdir, copyFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { verifyCheckpoint } from "../../../core/checkpoint.ts";
import { checkWitnessed, describeQuorum, parsePolicy } from "../../../core/witness/policy.ts";
import { parseTrustedKeys } from "../../../core/datapackage/index.ts";
import { tilesProblems } from "../../../core/tlog-tiles.ts";
import { CodedError } from "../../../core/errors.ts";

export class LedgerTilesBuildError extends CodedError<"ledger-tiles-unverified"> {
  constructor(message: string) {
    super("ledger-tiles-unverified", message);
  }
}

export interface PublishedLedger {
  size: number;
  /** False when the data folder has a checkpoint but no tiles yet (published without them). */
  tiles: boolean;
}

/** Verifies and copies the ledger's checkpoint and tiles to `<outDir>/ledger/`; null when there is no checkpoint. */
export async function publishLedger(dataDir: string, outDir: string): Promise<PublishedLedger | null> {
  const from = join(dataDir, "ledger");
  const checkpointFile = join(from, "checkpoint");
  if (!existsSync(checkpointFile)) return null;
  const vkeyFile = join(dataDir, "keys", "ledger.vkey");
  if (!existsSync(vkeyFile)) throw new LedgerTilesBuildError(`${checkpointFile}: no ${vkeyFile} to verify it with`);
  let checkpoint;
  const policyFile = join(dataDir, "keys", "ledger.policy");
  try {
    const note = readFileSync(checkpointFile, "utf8");
    checkpoint = verifyCheckpoint(note, parseTrustedKeys(readFileSync(vkeyFile, "utf8"), vkeyFile));
    // With a witness policy beside the key, only a checkpoint meeting its quorum is published.
    if (existsSync(policyFile)) {
      const policy = parsePolicy(readFileSync(policyFile, "utf8"));
      const witnessed = checkWitnessed(note, policy);
      if (!witnessed.met)
        throw new Error(
          `${describeQuorum(policy)} of ${policyFile} is not met: cosigned by ${witnessed.cosigned.map((c) => c.id).join(", ") || "no witness"}`,
        );
    }
  } catch (error) {
    throw new LedgerTilesBuildError(`${checkpointFile}: ${(error as Error).message}`);
  }
  const to = join(outDir, "ledger");
  await mkdir(to, { recursive: true });
  const tiles = existsSync(join(from, "tile"));
  if (tiles) {
    const read = (path: string): Uint8Array | null => {
      try {
        return readFileSync(join(from, path));
      } catch {
        return null;
      }
    };
    const files = tileFiles(from);
    const problems = tilesProblems(checkpoint.size, checkpoint.rootHash, read, files);
    if (problems.length > 0)
      throw new LedgerTilesBuildError(
        `${join(from, "tile")} does not agree with ${checkpointFile}:\n  ${problems.slice(0, 20).join("\n  ")}`,
      );
    // Every file listed is one of the checkpoint's tree (a stray fails the check above): exactly those are copied.
    for (const file of files) {
      await mkdir(dirname(join(to, file)), { recursive: true });
      await copyFile(join(from, file), join(to, file));
    }
  }
  await copyFile(checkpointFile, join(to, "checkpoint"));
  return { size: checkpoint.size, tiles };
}

/** Every file under `<prefix>/tile/` and `<prefix>/envelopes/`, as a path under the log's prefix with `/` (how `tilesProblems` names them). */
function tileFiles(prefix: string): string[] {
  return ["tile", "envelopes"]
    .flatMap((folder) => filesUnder(join(prefix, folder)).map((file) => `${folder}/${file}`))
    .sort();
}
