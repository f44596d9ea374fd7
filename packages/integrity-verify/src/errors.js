// @ts-check
/**
 * The one error of the verifier. Callers branch on `code`, never on the message; `exitCodeOf` maps
 * a code to the command's exit status: 1 when what was downloaded does not verify, 2 when the check
 * could not run (bad usage, no key, a fetch that failed or passed its deadline). An answer past its size
 * cap ("too-large") is 1: what was served is not what was signed.
 */

/**
 * @typedef {"usage"
 *   | "fetch-failed"
 *   | "fetch-timeout"
 *   | "too-large"
 *   | "key-missing"
 *   | "key-malformed"
 *   | "missing"
 *   | "signature-malformed"
 *   | "signature-untrusted"
 *   | "signature-invalid"
 *   | "signature-other-area"
 *   | "signature-other-manifest"
 *   | "manifest-malformed"
 *   | "path-invalid"
 *   | "file-unlisted"
 *   | "size-mismatch"
 *   | "hash-mismatch"
 *   | "checkpoint-malformed"
 *   | "checkpoint-untrusted"
 *   | "checkpoint-other-origin"
 *   | "checkpoint-rolled-back"
 *   | "checkpoint-inconsistent"
 *   | "quorum-not-met"
 *   | "entry-out-of-range"
 *   | "tile-malformed"
 *   | "leaf-mismatch"
 *   | "inclusion-failed"} VerifyErrorCode
 */

/** Codes that mean the check could not run, not that the download is bad. */
const CANNOT_RUN = new Set(["usage", "fetch-failed", "fetch-timeout", "key-missing", "key-malformed"]);

export class VerifyError extends Error {
  /**
   * @param {VerifyErrorCode} code
   * @param {string} message
   */
  constructor(code, message) {
    super(message);
    this.name = "VerifyError";
    /** @readonly */
    this.code = code;
  }
}

/**
 * The exit status for a failure code: 2 when the check could not run, 1 when it ran and failed.
 * @param {VerifyErrorCode} code
 * @returns {1 | 2}
 */
export function exitCodeOf(code) {
  return CANNOT_RUN.has(code) ? 2 : 1;
}
