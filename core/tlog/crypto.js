// @ts-check
/**
 * The verifier's checks are written once, as generators that yield each cryptographic step they need
 * (a SHA-256, an RFC 9162 node hash, an Ed25519 verification) and receive its answer. A runner answers
 * them: `runSync` with a synchronous implementation (the project's over node:crypto: `nodeCrypto` of core/merkle.ts),
 * `runAsync` with an asynchronous one (`webCrypto` below: WebCrypto, the same in Node >= 20 and in a
 * browser). So one text of each check serves the server, the published verifier and the portal.
 */
import { concat } from "./bytes.js";

/**
 * One step a check asks for: `["sha256", data]` → the digest; `["node", left, right]` → SHA-256(0x01 ‖
 * left ‖ right); `["ed25519", publicKey, message, signature]` → whether the signature verifies.
 * @typedef {["sha256", Uint8Array] | ["node", Uint8Array, Uint8Array] | ["ed25519", Uint8Array, Uint8Array, Uint8Array]} Step
 */

/**
 * A check: yields steps, returns T.
 * @template T
 * @typedef {Generator<Step, T, unknown>} Check
 */

/**
 * @typedef {object} SyncCrypto
 * @property {(data: Uint8Array) => Uint8Array} sha256
 * @property {(left: Uint8Array, right: Uint8Array) => Uint8Array} nodeHash
 * @property {(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array) => boolean} verifyEd25519
 */

/**
 * @typedef {object} AsyncCrypto
 * @property {(data: Uint8Array) => Promise<Uint8Array>} sha256
 * @property {(left: Uint8Array, right: Uint8Array) => Promise<Uint8Array>} nodeHash
 * @property {(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array) => Promise<boolean>} verifyEd25519
 */

/**
 * The answer to one step.
 * @param {Step} step
 * @param {SyncCrypto | AsyncCrypto} crypto
 */
function answer(step, crypto) {
  switch (step[0]) {
    case "sha256":
      return crypto.sha256(step[1]);
    case "node":
      return crypto.nodeHash(step[1], step[2]);
    case "ed25519":
      return crypto.verifyEd25519(step[1], step[2], step[3]);
  }
}

/**
 * Runs a check to its end with a synchronous implementation.
 * @template T
 * @param {Check<T>} check
 * @param {SyncCrypto} crypto
 * @returns {T}
 */
export function runSync(check, crypto) {
  let next = check.next();
  while (!next.done) next = check.next(answer(next.value, crypto));
  return next.value;
}

/**
 * Runs a check to its end with an asynchronous implementation.
 * @template T
 * @param {Check<T>} check
 * @param {AsyncCrypto} crypto
 * @returns {Promise<T>}
 */
export async function runAsync(check, crypto) {
  let next = check.next();
  while (!next.done) next = check.next(await answer(next.value, crypto));
  return next.value;
}

/**
 * Step helpers for the checks: `const h = yield* sha256(data)`.
 * @param {Uint8Array} data
 * @returns {Check<Uint8Array>}
 */
export function* sha256(data) {
  return /** @type {Uint8Array} */ (yield ["sha256", data]);
}

/**
 * @param {Uint8Array} left
 * @param {Uint8Array} right
 * @returns {Check<Uint8Array>}
 */
export function* nodeHash(left, right) {
  return /** @type {Uint8Array} */ (yield ["node", left, right]);
}

/**
 * @param {Uint8Array} publicKey 32 bytes
 * @param {Uint8Array} message
 * @param {Uint8Array} signature
 * @returns {Check<boolean>}
 */
export function* verifyEd25519(publicKey, message, signature) {
  return /** @type {boolean} */ (yield ["ed25519", publicKey, message, signature]);
}

/** @type {WeakMap<Uint8Array, Promise<CryptoKey>>} */
const importedKeys = new WeakMap();

/**
 * WebCrypto's SHA-256 and Ed25519 (the same in Node >= 20 and in a browser); each public key is
 * imported once.
 * @type {AsyncCrypto}
 */
export const webCrypto = {
  sha256: async (data) => new Uint8Array(await crypto.subtle.digest("SHA-256", concat(data))),
  nodeHash: async (left, right) =>
    new Uint8Array(await crypto.subtle.digest("SHA-256", concat(Uint8Array.of(1), left, right))),
  verifyEd25519: async (publicKey, message, signature) => {
    let key = importedKeys.get(publicKey);
    if (key === undefined) {
      key = crypto.subtle.importKey("raw", concat(publicKey), { name: "Ed25519" }, false, ["verify"]);
      importedKeys.set(publicKey, key);
    }
    return crypto.subtle.verify({ name: "Ed25519" }, await key, concat(signature), concat(message));
  },
};
