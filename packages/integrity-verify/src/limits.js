// @ts-check
/**
 * How much the verifier reads, and how long it waits. Every read names the most bytes it accepts (a
 * file: the `bytes` the signed manifest records; a hash tile: its width × 32; an entry bundle: its
 * width × (2 + 65535), the most its uint16 lengths can say; a checkpoint, a signature or a key file: a
 * few KiB; a manifest: 4 MiB), and every fetch has a deadline for the whole answer, headers and body.
 * A source that sends more stops being read at the cap ("too-large"); one that is slower than the
 * deadline is given up ("fetch-timeout"). Both errors name the limit they hit.
 */

/**
 * @typedef {object} ReadLimit
 * @property {number} maxBytes the most bytes accepted
 * @property {string} what what sets the cap, in words ("the manifest's bytes for this file")
 * @property {boolean} [exact] the file must be exactly `maxBytes` long: a source that knows a file's
 *   size before reading it (a folder, a chosen file) reports another size as a mismatch, unread
 */

/** Seconds a fetch may take, headers and body, unless the caller says otherwise. */
export const DEFAULT_TIMEOUT_SECONDS = 30;

/** A signed checkpoint: an origin line, a size, a root and a few signature lines. */
export const CHECKPOINT_LIMIT = { maxBytes: 2048, what: "the cap for a signed checkpoint" };
/** A manifest's signed note. */
export const SIGNATURE_LIMIT = { maxBytes: 16 * 1024, what: "the cap for a signed note" };
/** A key file (note verifier keys, one a line). */
export const KEY_LIMIT = { maxBytes: 16 * 1024, what: "the cap for a key file" };
/** A Data Package manifest (the published ones are about 13 KB). */
/** A C2SP tlog-policy, a .tlog-proof, or a witness's answer: a few lines each. */
export const NOTE_FILE_LIMIT = { maxBytes: 64 * 1024, what: "the cap for a policy, a proof or a witness's answer" };

export const MANIFEST_LIMIT = { maxBytes: 4 * 1024 * 1024, what: "the cap for a manifest" };

/**
 * A file the manifest lists: exactly its recorded size.
 * @param {number} bytes
 * @returns {ReadLimit}
 */
export const fileLimit = (bytes) => ({
  maxBytes: bytes,
  what: "the size the signed manifest records for this file",
  exact: true,
});

/**
 * A hash tile of `width` hashes.
 * @param {number} width
 * @returns {ReadLimit}
 */
export const hashTileLimit = (width) => ({ maxBytes: width * 32, what: `a tile of ${width} hashes × 32 bytes` });

/**
 * An entry or envelope bundle of `width` records, each a uint16 length and at most 65535 bytes.
 * @param {number} width
 * @returns {ReadLimit}
 */
export const bundleLimit = (width) => ({
  maxBytes: width * (2 + 0xffff),
  what: `a bundle of ${width} records of at most 65537 bytes`,
});

/**
 * A bytes count for people.
 * @param {number} n
 */
export function formatBytes(n) {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}
