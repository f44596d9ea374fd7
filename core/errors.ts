import { CodedError } from "./tlog/errors.js";

/**
 * The one base of the project's coded errors. Each domain declares the union of its codes and
 * `class XError extends CodedError<XCode>`; callers branch on `code`, never on the message, and
 * the API maps codes to problem types in one place (api/problems/refusals.ts). After sigstore-js's
 * `packages/verify/src/error.ts`: one error class, a `code` union.
 * It is written in core/tlog/errors.js, with the verifier that ships in the published package;
 * every domain imports it from here.
 */
export { CodedError };

/** Whether `error` is a coded error whose code is `code`. */
export function hasCode<C extends string>(error: unknown, code: C): error is CodedError<C> {
  return error instanceof CodedError && error.code === code;
}

/**
 * A command line the program cannot run: a missing or malformed flag, an unknown command. The one
 * usage error of every CLI (they print its message without a stack and exit with status 2).
 */
export class UsageError extends CodedError<"usage"> {
  constructor(message: string) {
    super("usage", message);
  }
}
