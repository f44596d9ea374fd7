/**
 * The ledger's public anchor in the data folder: `keys/ledger.vkey` (the note verifier keys of the
 * ledger's checkpoint signer, one per line, like datasets.vkey) and `ledger/checkpoint` (the latest
 * signed checkpoint of the ledger the data was generated from). With these two public files anyone
 * can check that a later checkpoint extends this one (a consistency proof, `npm run ledger --
 * consistency`), without the keyed export. The pipeline run publishes them; a checkpoint replaces
 * the published one only if the ledger's root at the published size is still the published root,
 * so a rewritten history is refused, never published. Beside the checkpoint, the ledger is published
 * as C2SP tlog-tiles for the checkpoint's size (`ledger/tile/…`, pipeline/ledger-tiles.ts), written
 * before the checkpoint that needs them.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync, appendFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { verifierKey, verifyCheckpoint, type Checkpoint, type NoteVerifier } from "../core/checkpoint.ts";
import { CompactRange } from "../core/compact-range.ts";
import { formatDigest } from "../core/digest.ts";
import { sealEntry } from "../core/ledger/entry.ts";
import type { LedgerReader } from "../core/ledger/store.ts";
import { equalBytes } from "../core/merkle.ts";
import { ledgerTilesProblems, publishLedgerTiles, type BundleContent, type LedgerTilesResult } from "./ledger-tiles.ts";
import { parseTrustedKeys } from "./sign.ts";
import { CodedError } from "../core/errors.ts";

/** Why the ledger's anchor cannot be published; callers branch on `code`, never on the message. */
export type LedgerPublicationCode =
  /** The published checkpoint (or the one to publish) does not verify with keys/ledger.vkey. */
  | "unverified"
  /** The ledger is not an extension of the published checkpoint: a rewritten or another history. */
  | "not-an-extension"
  /** The ledger's origin is not the published checkpoint's. */
  | "origin-changed"
  /** The signing key is not listed in keys/ledger.vkey, and trusting a new key was not asked for. */
  | "key-not-listed";

export class LedgerPublicationError extends CodedError<LedgerPublicationCode> {}

export const LEDGER_VKEY = join("keys", "ledger.vkey");
export const LEDGER_CHECKPOINT = join("ledger", "checkpoint");
/** The log's prefix folder: the checkpoint and `tile/` beneath it. */
export const LEDGER_DIR = "ledger";

/** A signed checkpoint of the ledger's tree, and the key to trust for it (absent: a listed key must have signed it). */
export interface SignedTree {
  note: string;
  signer?: { name: string; publicKeyHex: string };
}

export interface PublishOptions {
  dataDir: string;
  ledger: LedgerReader;
  /** Signs a checkpoint of the ledger's current tree; called only when the published one is behind. */
  sign: () => SignedTree | Promise<SignedTree>;
  /** Append an unlisted signing key to keys/ledger.vkey instead of refusing (as --trust-new-key does for datasets.vkey). */
  trustNewKey: boolean;
  /** What entry bundles hold (pipeline/ledger-tiles.ts); default the public envelope. */
  bundle?: BundleContent;
}

export interface PublishResult {
  checkpoint: "unchanged" | "written";
  /** "present": already listed; "created": the file was new; "added": appended under trustNewKey. */
  vkey: "present" | "created" | "added";
  size: number;
  /** The tiles brought to the checkpoint's size. */
  tiles: LedgerTilesResult;
}

/** Publishes the ledger's checkpoint when the published one is missing or behind; throws saying why it cannot. */
export async function publishLedgerCheckpoint(options: PublishOptions): Promise<PublishResult> {
  const { dataDir, ledger } = options;
  const vkeyPath = join(dataDir, LEDGER_VKEY);
  const cpPath = join(dataDir, LEDGER_CHECKPOINT);
  const published = existsSync(cpPath) ? openPublished(cpPath, trustedKeys(vkeyPath)) : null;
  if (published) {
    const problem = await extensionProblem(ledger, published);
    if (problem) throw new LedgerPublicationError("not-an-extension", problem);
    if (published.size === (await ledger.size())) {
      const tiles = await publishTiles(options, published, published.size);
      return { checkpoint: "unchanged", vkey: "present", size: published.size, tiles };
    }
  }
  const signed = await options.sign();
  const vkey = signed.signer ? trustKey(vkeyPath, signed.signer, options.trustNewKey) : "present";
  let checkpoint: Checkpoint;
  try {
    checkpoint = verifyCheckpoint(signed.note, trustedKeys(vkeyPath));
  } catch (error) {
    throw new LedgerPublicationError(
      "unverified",
      `the ledger checkpoint does not verify with ${vkeyPath}: ${(error as Error).message}`,
    );
  }
  if (published && checkpoint.origin !== published.origin) {
    throw new LedgerPublicationError(
      "origin-changed",
      `the ledger's origin is "${checkpoint.origin}", the published checkpoint's "${published.origin}"`,
    );
  }
  const problem = await extensionProblem(ledger, checkpoint);
  if (problem) throw new LedgerPublicationError("not-an-extension", problem);
  const tiles = await publishTiles(options, checkpoint, published?.size ?? 0);
  mkdirSync(dirname(cpPath), { recursive: true });
  const tmp = `${cpPath}.${process.pid}.tmp`;
  writeFileSync(tmp, signed.note);
  renameSync(tmp, cpPath);
  return { checkpoint: "written", vkey, size: checkpoint.size, tiles };
}

/** The tiles of `checkpoint`, resumed from those written for the published size `from`. */
function publishTiles(options: PublishOptions, checkpoint: Checkpoint, from: number): Promise<LedgerTilesResult> {
  return publishLedgerTiles({
    dir: join(options.dataDir, LEDGER_DIR),
    ledger: options.ledger,
    size: checkpoint.size,
    root: checkpoint.rootHash,
    from,
    ...(options.bundle ? { bundle: options.bundle } : {}),
  });
}

/**
 * What `--check` reports about the published anchor: each problem names the file. Empty when the
 * checkpoint verifies with keys/ledger.vkey, the ledger extends it, it covers the whole ledger, and
 * the tiles beside it are exactly those of its size (pipeline/ledger-tiles.ts).
 */
export async function ledgerPublicationProblems(
  dataDir: string,
  ledger: LedgerReader,
  bundle?: BundleContent,
): Promise<string[]> {
  const vkeyPath = join(dataDir, LEDGER_VKEY);
  const cpPath = join(dataDir, LEDGER_CHECKPOINT);
  if (!existsSync(vkeyPath)) return [`${vkeyPath} is missing`];
  if (!existsSync(cpPath)) return [`${cpPath} is missing`];
  let published: Checkpoint;
  try {
    published = openPublished(cpPath, trustedKeys(vkeyPath));
  } catch (error) {
    return [(error as Error).message];
  }
  const problem = await extensionProblem(ledger, published);
  if (problem) return [problem];
  const tiles = await ledgerTilesProblems({
    dir: join(dataDir, LEDGER_DIR),
    ledger,
    size: published.size,
    root: published.rootHash,
    ...(bundle ? { bundle } : {}),
  });
  if (tiles.length > 0) return tiles;
  const size = await ledger.size();
  if (published.size < size)
    return [
      `${cpPath} covers ${published.size} entries, the ledger has ${size}: the pipeline would publish a newer checkpoint`,
    ];
  return [];
}

function trustedKeys(vkeyPath: string): NoteVerifier[] {
  return existsSync(vkeyPath) ? parseTrustedKeys(readFileSync(vkeyPath, "utf8"), vkeyPath) : [];
}

function openPublished(cpPath: string, trusted: NoteVerifier[]): Checkpoint {
  if (trusted.length === 0)
    throw new LedgerPublicationError("unverified", `${cpPath}: no key in ${LEDGER_VKEY} to verify it with`);
  try {
    return verifyCheckpoint(readFileSync(cpPath, "utf8"), trusted);
  } catch (error) {
    throw new LedgerPublicationError("unverified", `${cpPath}: ${(error as Error).message}`);
  }
}

/** Null when the ledger's first `checkpoint.size` entries have the checkpoint's root; otherwise why not. */
async function extensionProblem(ledger: LedgerReader, checkpoint: Checkpoint): Promise<string | null> {
  const size = await ledger.size();
  if (checkpoint.size > size) {
    return `the published ledger checkpoint covers ${checkpoint.size} entries, the ledger has only ${size}: it is not the ledger that was published`;
  }
  const root = await rootAt(ledger, checkpoint.size);
  if (equalBytes(root, checkpoint.rootHash)) return null;
  return (
    `the ledger's root at size ${checkpoint.size} is ${formatDigest(root)}, the published checkpoint signs ${formatDigest(checkpoint.rootHash)}: ` +
    `the ledger is not an extension of what was published (a rewritten history is never published; a new ledger needs the old ${LEDGER_CHECKPOINT} removed deliberately)`
  );
}

/** The root of the first `size` entries: from the reader, or (an export knows only its own size) streamed. */
async function rootAt(ledger: LedgerReader, size: number): Promise<Uint8Array> {
  try {
    return await ledger.rootHash(size);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
  }
  const range = CompactRange.empty();
  for await (const entry of ledger.entries(0, size)) range.append(sealEntry(entry).leafHash);
  return range.root();
}

/** Lists the signing key in keys/ledger.vkey: created with it, already there, or appended when trusted. */
function trustKey(
  path: string,
  signer: { name: string; publicKeyHex: string },
  trustNewKey: boolean,
): PublishResult["vkey"] {
  const vkey = verifierKey(signer.name, signer.publicKeyHex);
  if (!existsSync(path)) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `${vkey}\n`, { flag: "wx" });
    return "created";
  }
  const text = readFileSync(path, "utf8");
  if (parseTrustedKeys(text, path).some((k) => k.name === signer.name && k.publicKeyHex === signer.publicKeyHex))
    return "present";
  if (!trustNewKey) {
    throw new LedgerPublicationError(
      "key-not-listed",
      `the ledger signing key ${vkey} is not listed in ${path}. Sign with a listed key (set LEDGER_SIGNING_KEY or ` +
        `LEDGER_SIGNING_KEY_FILE), or pass --trust-new-key to append this key to ${path} (review and commit that change).`,
    );
  }
  appendFileSync(path, `${text === "" || text.endsWith("\n") ? "" : "\n"}${vkey}\n`);
  return "added";
}
