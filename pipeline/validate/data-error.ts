/**
 * The one error of data validation: a published file that fails a check. `file` is how the file is
 * named to the user, `code` what kind of check failed (callers branch on it, never on the text).
 */
import { CodedError } from "../../core/errors.ts";
export type DataErrorCode =
  /** The file (or the manifest, or its signature) is not there. */
  | "missing"
  /** Not UTF-8, or it starts with a byte order mark. */
  | "encoding"
  /** Not JSON, not one JSON array, or not RFC 4180 CSV with CRLF line ends. */
  | "syntax"
  /** A document, an array item or a CSV row does not match its JSON Schema. */
  | "schema"
  /** A CSV header, row or cell breaks its Table Schema. */
  | "table"
  /** An output with nothing in it. */
  | "empty"
  /** Size or sha256 differ from what the manifest records. */
  | "digest"
  /** The manifest's signature does not verify with a trusted key, or covers other bytes or another area. */
  | "signature"
  /** The trusted key file cannot be read as note verifier keys. */
  | "keys"
  /** The manifest disagrees with the published-data contract (files, tiers, media types, paths, schemas). */
  | "contract"
  /** The manifest does not conform to the Frictionless Data Package v2 profiles. */
  | "profile"
  /** A keyed file in the public data folder. */
  | "misplaced"
  /** The file could not be read to the end. */
  | "unreadable";

export class DataError extends CodedError<DataErrorCode> {
  readonly file: string;
  readonly problem: string;
  constructor(code: DataErrorCode, file: string, problem: string) {
    super(code, `${file}: ${problem}`);
    this.file = file;
    this.problem = problem;
  }
}
