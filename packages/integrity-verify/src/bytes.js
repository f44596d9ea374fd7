// @ts-check
/** Byte helpers on Uint8Array and WebCrypto's SHA-256: the same in Node >= 20 and in a browser. */
import { concat } from "../../../core/tlog/bytes.js";

export { concat, decodeUtf8, equalBytes, fromBase64, toBase64, toHex, utf8 } from "../../../core/tlog/bytes.js";

/**
 * SHA-256 of the concatenated parts.
 * @param {Uint8Array[]} parts
 * @returns {Promise<Uint8Array>}
 */
export async function sha256(...parts) {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", concat(...parts)));
}
