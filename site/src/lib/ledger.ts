/**
 * The ledger as the static build publishes it (docs/ledger-tiles.md): `<dataDir>/ledger/checkpoint`,
 * the C2SP tiles under `<dataDir>/ledger/tile/` and the envelope bundles under
 * `<dataDir>/ledger/envelopes/` (when the bundles hold envelopes, not leaf data), checked at build
 * time — the checkpoint against `keys/ledger.vkey`, and the tiles against the checkpoint
 * (core/tlog-tiles.ts `tilesProblems`: every tile and bundle present, every full tile hashing into
 * the level above, the root, every entry at `tile/entries/` hashing to its leaf, and no other file
 * under `tile/` or `envelopes/`) — then exactly those files are copied to `/ledger/`. Tiles that do
 * not agree with the checkpoint fail the build, naming the file.
 *
 * No Astro or Vite import here: astro.config.mjs uses this module.
 */
import { existsSync, readFileSync } from "node:fs";
import { filesUnder } from "../../../store/files.ts";
import { mkdir, copyFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { verifyCheckpoint } from "../../../core/checkpoint.ts";
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
  try {
    checkpoint = verifyCheckpoint(readFileSync(checkpointFile, "utf8"), parseTrustedKeys(readFileSync(vkeyFile, "utf8"), vkeyFile));
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
    if (problems.length > 0) throw new LedgerTilesBuildError(`${join(from, "tile")} does not agree with ${checkpointFile}:\n  ${problems.slice(0, 20).join("\n  ")}`);
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
  return ["tile", "envelopes"].flatMap((folder) => filesUnder(join(prefix, folder)).map((file) => `${folder}/${file}`)).sort();
}
