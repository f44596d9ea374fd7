// @ts-check
/**
 * Byte helpers on Uint8Array: UTF-8, canonical base64, hex. Only what every JavaScript runtime has
 * (TextEncoder, atob, btoa), so the same code runs in Node and in a browser.
 */

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export const utf8 = new TextEncoder();
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * UTF-8 text of bytes, or null when they are not valid UTF-8.
 * @param {Uint8Array} bytes
 * @returns {string | null}
 */
export function decodeUtf8(bytes) {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return null;
  }
}

/**
 * Standard padded base64.
 * @param {Uint8Array} bytes
 * @returns {string}
 */
export function toBase64(bytes) {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

/**
 * The bytes of standard padded base64 in its one canonical spelling (zero trailing bits), or null.
 * @param {string} text
 * @returns {Uint8Array<ArrayBuffer> | null}
 */
export function fromBase64(text) {
  if (typeof text !== "string" || !BASE64.test(text)) return null;
  const bytes = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  return toBase64(bytes) === text ? bytes : null;
}

/**
 * Lowercase hex.
 * @param {Uint8Array} bytes
 * @returns {string}
 */
export function toHex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * The bytes of the parts, one after another.
 * @param {Uint8Array[]} parts
 * @returns {Uint8Array<ArrayBuffer>}
 */
export function concat(...parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * Whether two byte strings are equal, in time that depends on their length only.
 * @param {Uint8Array} a
 * @param {Uint8Array} b
 * @returns {boolean}
 */
export function equalBytes(a, b) {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= /** @type {number} */ (a[i]) ^ /** @type {number} */ (b[i]);
  return diff === 0;
}
