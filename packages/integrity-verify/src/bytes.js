// @ts-check
/** Byte helpers on Uint8Array and WebCrypto's SHA-256: the same in Node >= 20 and in a browser. */

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export const utf8 = new TextEncoder();
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * UTF-8 text of bytes, or null when they are not valid UTF-8.
 * @param {Uint8Array} bytes
 */
export function decodeUtf8(bytes) {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return null;
  }
}

/** @param {Uint8Array} bytes */
export function toBase64(bytes) {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

/**
 * The bytes of canonical base64 (one spelling per value), or null.
 * @param {string} text
 */
export function fromBase64(text) {
  if (!BASE64.test(text)) return null;
  const bytes = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  return toBase64(bytes) === text ? bytes : null;
}

/** @param {Uint8Array} bytes */
export function toHex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
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
 * SHA-256 of the concatenated parts.
 * @param {Uint8Array[]} parts
 * @returns {Promise<Uint8Array>}
 */
export async function sha256(...parts) {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", concat(...parts)));
}

/**
 * @param {Uint8Array} a
 * @param {Uint8Array} b
 */
export function equalBytes(a, b) {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
