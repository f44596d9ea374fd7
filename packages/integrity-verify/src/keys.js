// @ts-check
/**
 * The trust anchor. A key pinned by the user (`--key`, the page's key box) is what a verdict rests
 * on; without one, the published key is read from beside the data (`<site>/keys/<name>.vkey`), which
 * proves only that the files agree with what that same site publishes as its key.
 */
import { decodeUtf8 } from "./bytes.js";
import { VerifyError } from "./errors.js";
import { KEY_LIMIT } from "./limits.js";
import { parseVerifierKeys } from "./note.js";

/**
 * @typedef {object} KeySet
 * @property {import("./note.js").TrustedKey[]} keys
 * @property {string} from where the keys came from
 * @property {boolean} pinned whether the user gave them (true) or they were read beside the data (false)
 * @property {string} [howToPin] how the reader pins a key of their own, in their terms (the command's
 *   "--key"; the page's key box); the command's by default
 */

/**
 * Keys given as text by the user: the key lines themselves.
 * @param {string} text
 * @param {string} from
 * @returns {Promise<KeySet>}
 */
export async function pinnedKeys(text, from) {
  return { keys: await parseVerifierKeys(text, from), from, pinned: true };
}

/**
 * The published key file read from beside the data: the first of `paths` (relative to `source`) that exists.
 * @param {import("./source.js").Source} source
 * @param {string[]} paths
 * @returns {Promise<KeySet>}
 */
export async function publishedKeys(source, paths) {
  for (const path of paths) {
    const bytes = await source.read(path, KEY_LIMIT);
    if (bytes === null) continue;
    const text = decodeUtf8(bytes);
    const from = source.describe(path);
    if (text === null) throw new VerifyError("key-malformed", `${from}: not UTF-8 text`);
    return { keys: await parseVerifierKeys(text, from), from, pinned: false };
  }
  throw new VerifyError(
    "key-missing",
    `no published key at ${paths.map((p) => source.describe(p)).join(" or ")}: pin one with --key`,
  );
}

/**
 * How far a verdict under these keys goes, in words.
 * @param {KeySet} set
 */
export function trustStatement(set) {
  return set.pinned
    ? `the key you pinned (${set.from})`
    : `read from beside the data (${set.from}): this proves only that the data agrees with the key that same source publishes; ${set.howToPin ?? "pin a key obtained separately (--key)"} to know who signed`;
}
