/**
 * The one error of the published-data contract. Callers branch on `code`, and `subject` says which
 * published file is at fault (the manifest, its signature, or the trusted key file), so a verifier
 * can name it to the user.
 */
import { CodedError } from "../errors.ts";
export type DataPackageErrorCode =
  /** A line of the trusted key file is not a note verifier key. */
  | "keys-malformed"
  /** The trusted key file lists no key. */
  | "keys-empty"
  /** The signature file is not a signed note. */
  | "signature-malformed"
  /** No trusted key signed the note. */
  | "signature-untrusted"
  /** A trusted key's signature does not verify (or two trusted keys share one id). */
  | "signature-invalid"
  /** The signature is valid but signs another area's manifest. */
  | "signature-other-area"
  /** The signature is valid but signs other manifest bytes: the manifest changed. */
  | "signature-other-manifest"
  /** The manifest is not JSON, or not the contract's manifest shape. */
  | "manifest-malformed"
  /** A resource path breaks the path rule. */
  | "path-invalid"
  /** A resource takes a name the publication itself uses (the manifest, its signature, an alias, index.html). */
  | "path-reserved"
  /** Two resources share a path or a name. */
  | "path-duplicate"
  /** The manifest lists a file the contract does not publish in this area. */
  | "file-unknown"
  /** The manifest gives a file another access tier than the contract. */
  | "access-mismatch"
  /** The manifest gives a file another media type than the contract. */
  | "mediatype-mismatch";

export type DataPackageSubject = "manifest" | "signature" | "keys";

export class DataPackageError extends CodedError<DataPackageErrorCode> {
  readonly subject: DataPackageSubject;
  constructor(code: DataPackageErrorCode, subject: DataPackageSubject, message: string) {
    super(code, message);
    this.subject = subject;
  }
}
