import { CodedError } from "./tlog/errors.js";

/**
 * The one base of the project's coded errors (`CodedError<C>`: a message and a `code` from the
 * domain's union). It is written in core/tlog/errors.js, with the verifier that ships in the
 * published package; every domain imports it from here.
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
