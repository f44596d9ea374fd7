// @ts-check
/**
 * The one base of the project's coded errors. Each domain declares the union of its codes and
 * `class XError extends CodedError<XCode>`; callers branch on `code`, never on the message, and
 * the API maps codes to problem types in one place (api/problems/refusals.ts). After sigstore-js's
 * `packages/verify/src/error.ts`: one error class, a `code` union. It lives here, beside the
 * transparency-log verifier that throws it, because this folder is copied whole into the published
 * verifier (docs/verify-downloads.md); core/errors.ts re-exports it.
 * @template {string} C
 */
export class CodedError extends Error {
  /**
   * @param {C} code
   * @param {string} message
   * @param {ErrorOptions} [options]
   */
  constructor(code, message, options) {
    super(message, options);
    /** @readonly */
    this.code = code;
    // The subclass's own name (NoteError, DataError, …) in stack traces and `String(error)`.
    this.name = new.target.name;
  }
}
