// @ts-check
/**
 * Verifies one ledger entry as a downloader receives it from the published tiles, in named steps:
 *
 *   key         the trusted ledger key (pinned, or published beside the log — keys.js)
 *   checkpoint  `checkpoint` is a C2SP checkpoint (`<origin>\n<size>\n<base64 root>\n…`) in a signed
 *               note by a trusted key, for the log expected: its origin is the signing key's name
 *               (C2SP tlog-checkpoint), or the origin asked for
 *   since       (with an earlier checkpoint the reader saw) it opens under the same keys and origin
 *               rule, for the same log
 *   consistency the log has not been rolled back (its size is at least the earlier one's) and the
 *               earlier tree is a prefix of the current one: the RFC 9162 consistency proof between
 *               the two roots, built from the current tiles, verifies (§2.1.4.2)
 *   entry       the entry is inside the checkpoint's tree, and its bytes are in its bundle
 *   tiles       the level-0 tile holds the entry's leaf hash, and the inclusion proof is built from the tiles
 *   inclusion   the proof leads from the entry's leaf hash to the signed root (RFC 9162 §2.1.3.2)
 *
 * Which bundle: the C2SP entry bundle `tile/entries/<N>[.p/<W>]` when the log serves it, since its
 * bytes are the entry's leaf data and so verifiable (they must hash to the level-0 tile's hash;
 * C2SP gives that URL no other content, so whatever is there is taken as leaf data). Only when the log
 * serves no entry bundle for the entry, the envelope bundle `envelopes/<N>[.p/<W>]` — as this project
 * publishes its ledger (docs/ledger-tiles.md): the entry's public envelope
 * `{"hash","prev","seq","ts","type"}` without its government-keyed payload, which must be the
 * envelope of this entry (its `seq`). Then the leaf hash is the level-0 tile's, proven into the
 * signed root, and the envelope cannot be bound to it (the leaf and the envelope's `hash` are both
 * hashes over the payload). The report then has `entryVerified` false and a skipped `entry` check
 * saying the envelope is NOT verified; callers must say so.
 *
 * Nothing from the server is taken on its word: the tiles only supply hashes that must hash up to the
 * root a trusted key signed.
 */
import { NoteError } from "../../../core/tlog/note.js";
import { parseCheckpoint as parseBody } from "../../../core/tlog/checkpoint.js";
import { decodeUtf8, equalBytes, toBase64 } from "./bytes.js";
import { VerifyError } from "./errors.js";
import { trustStatement } from "./keys.js";
import { CHECKPOINT_LIMIT } from "./limits.js";
import { openNote } from "./note.js";
import { Report } from "./report.js";
import { CHECKPOINT_FILE, leafHash, TileReader, verifyConsistency, verifyInclusion } from "./tiles.js";

export { CHECKPOINT_FILE };
/** Where the ledger key is published relative to the log's folder: the site's /keys/, or data/keys/. */
export const LEDGER_KEY_PATHS = ["../keys/ledger.vkey", "../../keys/ledger.vkey"];

/**
 * @typedef {object} Checkpoint
 * @property {string} origin
 * @property {number} size
 * @property {Uint8Array} root
 */

/**
 * @typedef {object} LedgerOptions
 * @property {import("./source.js").Source} source the log's folder (holding `checkpoint`, `tile/` and, for envelope bundles, `envelopes/`)
 * @property {import("./keys.js").KeySet} keys
 * @property {number} [entry] the entry's index (0-based, its position in the log); without it only the checkpoint (and `since`) is checked
 * @property {string} [origin] the log's origin expected; default: the name of the key that signed the checkpoint
 * @property {{ bytes: Uint8Array; from: string }} [since] a signed checkpoint the reader saw earlier (`from` names it): the current one must extend it
 */

/**
 * The report of a ledger entry: `entryVerified` is true only when the bundle's bytes are the entry's
 * leaf data (bound to the proven leaf hash); for an envelope bundle it is false, and `entryText` is
 * shown NOT verified.
 * @typedef {Report & { checkpoint?: Checkpoint; since?: Checkpoint; entryText?: string | null; entryVerified?: boolean; signedBy?: string[] }} LedgerReport
 */

/**
 * @param {LedgerOptions} options
 * @returns {Promise<LedgerReport>}
 */
export async function verifyLedgerEntry({ source, keys, entry, origin, since }) {
  /** @type {LedgerReport} */
  const report = new Report(entry === undefined ? "ledger checkpoint" : `ledger entry ${entry}`);
  report.pass("key", keys.from, `${keys.keys.map((k) => `${k.name}+${k.id}`).join(", ")}; ${trustStatement(keys)}`);
  const checkpointName = source.describe(CHECKPOINT_FILE);
  let checkpoint;
  try {
    const bytes = await source.read(CHECKPOINT_FILE, CHECKPOINT_LIMIT);
    if (bytes === null) throw new VerifyError("missing", "missing: no signed checkpoint here");
    const opened = await openCheckpoint(bytes, keys, origin);
    checkpoint = opened.checkpoint;
    report.checkpoint = checkpoint;
    report.signedBy = opened.signedBy;
    report.pass(
      "checkpoint",
      checkpointName,
      `${checkpoint.origin}, ${checkpoint.size} entries, root ${toBase64(checkpoint.root)}, signed by ${opened.signedBy.join(", ")}`,
    );
  } catch (error) {
    report.fail("checkpoint", checkpointName, error);
    return report;
  }

  const tiles = new TileReader(source, checkpoint.size);
  if (since !== undefined) {
    let earlier;
    try {
      const opened = await openCheckpoint(since.bytes, keys, origin);
      earlier = opened.checkpoint;
      if (earlier.origin !== checkpoint.origin) {
        throw new VerifyError(
          "checkpoint-other-origin",
          `the earlier checkpoint is for the log ${JSON.stringify(earlier.origin)}, the current one for ${JSON.stringify(checkpoint.origin)}`,
        );
      }
      report.since = earlier;
      report.pass(
        "since",
        since.from,
        `${earlier.origin}, ${earlier.size} entries, root ${toBase64(earlier.root)}, signed by ${opened.signedBy.join(", ")}`,
      );
    } catch (error) {
      report.fail("since", since.from, error);
      return report;
    }
    try {
      await checkConsistency(tiles, earlier, checkpoint);
      report.pass(
        "consistency",
        checkpointName,
        `extends the checkpoint you saw at size ${earlier.size} (root ${toBase64(earlier.root)})`,
      );
    } catch (error) {
      report.fail("consistency", checkpointName, error);
      return report;
    }
  }
  if (entry === undefined) return report;
  let data, leaf, envelope;
  try {
    if (!Number.isSafeInteger(entry) || entry < 0 || entry >= checkpoint.size) {
      throw new VerifyError("entry-out-of-range", `the signed log holds entries 0 to ${checkpoint.size - 1}`);
    }
    ({ data, envelope } = await bundleEntry(tiles, entry));
    report.entryText = decodeUtf8(data);
    if (envelope && !isEnvelope(report.entryText, entry)) {
      throw new VerifyError(
        "tile-malformed",
        `${source.describe("envelopes/")}: the bundle's entry ${entry} is not that entry's envelope ({hash, prev, seq, ts, type} with seq ${entry})`,
      );
    }
    leaf = envelope ? await tiles.hashAt(0, entry) : await leafHash(data);
    report.entryVerified = !envelope;
    if (envelope) {
      report.pass(
        "entry",
        `entry ${entry}`,
        `inside the signed tree; leaf hash ${toBase64(leaf)} from the level-0 tile`,
      );
      report.skip(
        "entry",
        `entry ${entry}`,
        "the bundle holds the entry's public envelope, NOT verified: without its payload (not public) it cannot be bound to the leaf hash, so its seq, ts, type, prev and hash may have been changed",
      );
    } else report.pass("entry", `entry ${entry}`, `${data.length} bytes, leaf hash ${toBase64(leaf)}`);
  } catch (error) {
    report.fail("entry", `entry ${entry}`, error);
    return report;
  }

  let proof;
  try {
    const tiled = await tiles.hashAt(0, entry);
    if (!equalBytes(tiled, leaf))
      throw new VerifyError(
        "leaf-mismatch",
        "the level-0 tile holds another hash for this entry: the entry or the tile was changed",
      );
    proof = await tiles.inclusionProof(entry);
    report.pass("tiles", source.describe("tile/"), `inclusion proof of ${proof.length} hashes read from the tiles`);
  } catch (error) {
    report.fail("tiles", source.describe("tile/"), error);
    return report;
  }

  try {
    if (!(await verifyInclusion(leaf, entry, checkpoint.size, proof, checkpoint.root))) {
      throw new VerifyError(
        "inclusion-failed",
        "the proof does not lead to the signed root: a tile or the entry was changed",
      );
    }
    report.pass("inclusion", `entry ${entry}`, `included in the signed tree of ${checkpoint.size} entries`);
  } catch (error) {
    report.fail("inclusion", `entry ${entry}`, error);
  }
  return report;
}

/**
 * Opens a checkpoint note under the trusted keys, for the log expected: its origin is the name of a
 * key that signed it (C2SP tlog-checkpoint), or `origin` when given.
 * @param {Uint8Array} bytes
 * @param {import("./keys.js").KeySet} keys
 * @param {string | undefined} origin
 * @returns {Promise<{ checkpoint: Checkpoint; signedBy: string[] }>}
 */
async function openCheckpoint(bytes, keys, origin) {
  const note = decodeUtf8(bytes);
  if (note === null) throw new VerifyError("checkpoint-malformed", "not UTF-8 text");
  let opened;
  try {
    opened = await openNote(note, keys.keys);
  } catch (error) {
    // A checkpoint that does not open under the key is untrusted, whatever the reason.
    if (error instanceof VerifyError && error.code !== "signature-malformed")
      throw new VerifyError("checkpoint-untrusted", error.message);
    throw error instanceof VerifyError ? new VerifyError("checkpoint-malformed", error.message) : error;
  }
  const checkpoint = parseCheckpoint(opened.text);
  // A key signs for its log: a checkpoint naming another log is not this one's, whoever signed it.
  const signers = opened.signedBy.map((s) => s.slice(0, s.lastIndexOf("+")));
  if (origin !== undefined ? checkpoint.origin !== origin : !signers.includes(checkpoint.origin)) {
    throw new VerifyError(
      "checkpoint-other-origin",
      `the checkpoint is for the log ${JSON.stringify(checkpoint.origin)}, not ${origin !== undefined ? JSON.stringify(origin) : `the signing key's (${signers.map((n) => JSON.stringify(n)).join(", ")})`}`,
    );
  }
  return { checkpoint, signedBy: opened.signedBy };
}

/**
 * Refuses a current checkpoint that is not an extension of the earlier one: smaller (rolled back),
 * or whose tree does not hold the earlier tree as its prefix (RFC 9162 §2.1.4: the consistency proof,
 * built from the current tiles, must lead to both signed roots; equal sizes need equal roots).
 * @param {TileReader} tiles the tiles of the current tree
 * @param {Checkpoint} earlier
 * @param {Checkpoint} current
 */
async function checkConsistency(tiles, earlier, current) {
  if (current.size < earlier.size) {
    throw new VerifyError(
      "checkpoint-rolled-back",
      `the log's checkpoint (size ${current.size}) is older than the one you saw (size ${earlier.size}): the server or a cache serves a rolled-back log`,
    );
  }
  const proof = await tiles.consistencyProof(earlier.size);
  if (!(await verifyConsistency(earlier.size, current.size, earlier.root, current.root, proof))) {
    throw new VerifyError(
      "checkpoint-inconsistent",
      current.size === earlier.size
        ? `the log's checkpoint has the size of the one you saw (${earlier.size}) but another root: the log was rewritten`
        : `the log at size ${current.size} does not extend the one you saw at size ${earlier.size}: its first ${earlier.size} entries differ (the log was rewritten), or a tile was changed`,
    );
  }
}

/**
 * Entry `entry`'s bytes: from its C2SP entry bundle (leaf data) when the log serves one, else from its
 * envelope bundle (`envelope` true). A bundle present but malformed fails; only a missing one is passed over.
 * @param {TileReader} tiles
 * @param {number} entry
 * @returns {Promise<{ data: Uint8Array; envelope: boolean }>}
 */
async function bundleEntry(tiles, entry) {
  try {
    return { data: await tiles.entry(entry), envelope: false };
  } catch (error) {
    if (!(error instanceof VerifyError && error.code === "missing")) throw error;
    try {
      return { data: await tiles.envelope(entry), envelope: true };
    } catch (second) {
      if (second instanceof VerifyError && second.code === "missing")
        throw new VerifyError("missing", `${error.message}, and no envelope bundle either (${second.message})`);
      throw second;
    }
  }
}

/**
 * True when a bundle entry is a ledger entry's public envelope for index `entry`: a JSON object of
 * exactly hash, prev, seq, ts and type, with `seq` the entry's index.
 * @param {string | null} text
 * @param {number} entry
 */
function isEnvelope(text, entry) {
  if (text === null) return false;
  try {
    const value = JSON.parse(text);
    return (
      typeof value === "object" &&
      value !== null &&
      !Array.isArray(value) &&
      Object.keys(value).sort().join() === "hash,prev,seq,ts,type" &&
      value.seq === entry
    );
  } catch {
    return false;
  }
}

/**
 * A checkpoint's note text: origin, decimal size, base64 of a 32-byte root, extension lines (read by
 * the project's one reader, src/tlog/checkpoint.js).
 * @param {string} text
 * @returns {Checkpoint}
 */
export function parseCheckpoint(text) {
  try {
    const { origin, size, rootHash } = parseBody(text);
    return { origin, size, root: rootHash };
  } catch (error) {
    if (!(error instanceof NoteError)) throw error;
    throw new VerifyError("checkpoint-malformed", `not a checkpoint: ${error.message}`);
  }
}
