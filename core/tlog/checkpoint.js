// @ts-check
/**
 * Signed tree heads: C2SP `tlog-checkpoint` bodies (https://c2sp.org/tlog-checkpoint) —
 * `<origin>\n<size>\n<base64 root>\n[extension lines]` — as ./note.js opens them.
 */
import { fromBase64, toBase64 } from "./bytes.js";
import { assertLine, assertNoteText, NoteError, openNote, preview } from "./note.js";

const ROOT_HASH_SIZE = 32;
const DECIMAL = /^(?:0|[1-9][0-9]*)$/;

/**
 * @typedef {object} Checkpoint
 * @property {string} origin
 * @property {number} size
 * @property {Uint8Array} rootHash
 * @property {string[]} [extensions]
 */

/**
 * The checkpoint's note text. Throws (invalid-input) on anything that would not parse back to the same value.
 * @param {Checkpoint} c
 * @returns {string}
 */
export function formatCheckpoint(c) {
  assertLine(c.origin, "origin");
  if (!Number.isSafeInteger(c.size) || c.size < 0) {
    throw new NoteError("invalid-input", `checkpoint size must be a non-negative safe integer, got ${String(c.size)}`);
  }
  if (!(c.rootHash instanceof Uint8Array) || c.rootHash.length !== ROOT_HASH_SIZE) {
    throw new NoteError("invalid-input", `checkpoint root hash must be ${ROOT_HASH_SIZE} bytes`);
  }
  const lines = [c.origin, String(c.size), toBase64(c.rootHash)];
  for (const ext of c.extensions ?? []) {
    assertLine(ext, "extension line");
    lines.push(ext);
  }
  return lines.join("\n") + "\n";
}

/**
 * Parses a checkpoint's note text; refused (checkpoint-malformed) on any deviation from the format.
 * @param {unknown} text
 * @returns {Checkpoint}
 */
export function parseCheckpoint(text) {
  assertNoteText(text, "checkpoint", "checkpoint-malformed");
  const lines = text.slice(0, -1).split("\n");
  const [origin, sizeLine, rootLine, ...extensions] = lines;
  if (origin === undefined || sizeLine === undefined || rootLine === undefined) {
    throw new NoteError(
      "checkpoint-malformed",
      `malformed checkpoint: ${lines.length} lines, need origin, size and root hash`,
    );
  }
  if (origin === "") throw new NoteError("checkpoint-malformed", "malformed checkpoint: empty origin line");
  // DECIMAL refuses signs, spaces and leading zeros; the safe-integer check refuses the rest.
  const size = Number(sizeLine);
  if (!DECIMAL.test(sizeLine) || !Number.isSafeInteger(size)) {
    throw new NoteError(
      "checkpoint-malformed",
      `malformed checkpoint: tree size ${preview(sizeLine)} is not a decimal safe integer`,
    );
  }
  const rootHash = fromBase64(rootLine);
  if (rootHash === null || rootHash.length !== ROOT_HASH_SIZE) {
    throw new NoteError(
      "checkpoint-malformed",
      `malformed checkpoint: root hash ${preview(rootLine)} is not base64 of ${ROOT_HASH_SIZE} bytes`,
    );
  }
  if (extensions.some((e) => e === ""))
    throw new NoteError("checkpoint-malformed", "malformed checkpoint: empty extension line");
  return extensions.length > 0 ? { origin, size, rootHash, extensions } : { origin, size, rootHash };
}

/**
 * Opens a signed checkpoint: refused unless a known key signed it and its text is a checkpoint.
 * @param {unknown} note
 * @param {readonly import("./note.js").NoteKey[]} keys
 * @returns {import("./crypto.js").Check<{ checkpoint: Checkpoint; text: string; signers: import("./note.js").ParsedKey[] }>}
 */
export function* openCheckpoint(note, keys) {
  const { text, signers } = yield* openNote(note, keys);
  return { checkpoint: parseCheckpoint(text), text, signers };
}
