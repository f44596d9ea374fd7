/**
 * What a fold over the ledger keeps between runs, so that the next run folds only the entries
 * appended since (docs/data-areas.md "Incremental regeneration"): the facts accumulator's state, or
 * a rows step's sink state and the output it wrote. Each is kept in its own file under the state
 * folder (`.state/pipeline/` beside the ledger, never in the data folder), with
 *  - its watermark: the ledger size it covers, the RFC 9162 root of those entries and the tree's
 *    right edge, from which the pass rehashes what follows;
 *  - its identity: the digest of the fold's code (pipeline/step-code.ts) and inputs, the state
 *    format and the V8 serializer that wrote it.
 * A state is used only when all of that still holds and the watermark is a prefix of the ledger;
 * anything else — no file, a file that does not parse, another identity, a ledger that does not
 * extend the watermark — is a full fold, never an error.
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { deserialize, serialize } from "node:v8";
import { formatDigest } from "../../core/digest.ts";
import type { LedgerReader } from "../../core/ledger/store.ts";
import { StreamingRoot } from "../../core/merkle-stream.ts";
import { writeFileAtomic } from "../../store/files.ts";

/** Bumped whenever what a state file holds changes shape. */
export const FOLD_STATE_FORMAT = 1;

/** The ledger prefix a state covers. */
export interface Watermark {
  size: number;
  /** `sha256:<hex>` RFC 9162 root of the first `size` entries. */
  root: string;
  /** The tree's right edge (core/merkle-stream.ts), largest subtree first. */
  edge: Uint8Array[];
}

export interface FoldState<T> {
  /** What the state was made by: code, inputs and format; compared whole. */
  identity: string;
  watermark: Watermark;
  fold: T;
}

interface StoredState<T> extends FoldState<T> {
  format: number;
  v8: string;
}

/** The file of a fold's state: the facts, or a rows step by its id. */
export function stateFile(dir: string, fold: string): string {
  return join(dir, `${fold.replaceAll("/", "__")}.state`);
}

/**
 * The fold's state when it can be continued on `ledger` (size `ledgerSize`): same identity, and a
 * watermark whose root the ledger gives for its size and whose edge gives the same root. Otherwise
 * null, with why in `log`.
 */
export async function loadFoldState<T>(
  file: string,
  identity: string,
  ledger: LedgerReader,
  ledgerSize: number,
  log: (line: string) => void,
): Promise<FoldState<T> | null> {
  if (!existsSync(file)) return null;
  let stored: StoredState<T>;
  try {
    stored = deserialize(readFileSync(file)) as StoredState<T>;
  } catch (error) {
    log(`${file}: unreadable (${(error as Error).message}); full fold`);
    return null;
  }
  const why = await unusable(stored, identity, ledger, ledgerSize);
  if (why) {
    log(`${file}: ${why}; full fold`);
    return null;
  }
  return { identity, watermark: stored.watermark, fold: stored.fold };
}

async function unusable<T>(
  stored: StoredState<T>,
  identity: string,
  ledger: LedgerReader,
  ledgerSize: number,
): Promise<string | null> {
  if (typeof stored !== "object" || stored === null) return "not a state";
  if (stored.format !== FOLD_STATE_FORMAT || stored.v8 !== process.versions.v8)
    return "written by another state format or runtime";
  if (stored.identity !== identity) return "made by other code or inputs";
  const w = stored.watermark;
  if (!w || !Number.isSafeInteger(w.size) || w.size < 0 || !Array.isArray(w.edge)) return "no watermark";
  if (w.size > ledgerSize) return `its watermark (${w.size} entries) is beyond the ledger (${ledgerSize})`;
  let edgeRoot: string;
  try {
    edgeRoot = formatDigest(StreamingRoot.resume(w.size, w.edge).root());
  } catch {
    return "its tree edge does not fit its size";
  }
  if (edgeRoot !== w.root) return "its tree edge does not give its root";
  let ledgerRoot: string;
  try {
    ledgerRoot = formatDigest(await ledger.rootHash(w.size));
  } catch (error) {
    return `its watermark cannot be checked against the ledger (${(error as Error).message})`;
  }
  if (ledgerRoot !== w.root) return `its watermark (${w.size} entries, ${w.root}) is not a prefix of the ledger`;
  return null;
}

/** Writes the fold's state atomically. */
export function saveFoldState<T>(file: string, state: FoldState<T>): void {
  const stored: StoredState<T> = { format: FOLD_STATE_FORMAT, v8: process.versions.v8, ...state };
  writeFileAtomic(file, serialize(stored));
}

/** Removes a state that no longer describes its output (the next run folds from the start). */
export function dropFoldState(file: string): void {
  rmSync(file, { force: true });
}
