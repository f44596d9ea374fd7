/** A file read once in chunks: hashed and fed to a piece validator (CSV or JSON array) in the same pass. */
import { createHash } from "node:crypto";
import { readChunks, type FileDigest } from "../../store/digest-cache.ts";
import { DataError } from "./data-error.ts";

/** What reads text in pieces of any size and throws a DataError at the first problem. */
export interface PieceValidator {
  feed(text: string): void;
  end(): void;
}

/**
 * Streams the file at `path` (named `file` to the user) through the validator, hashing it in the same
 * pass: its size and sha256 always, and its first problem, if any.
 */
export function checkStreamedFile(
  path: string,
  file: string,
  validator: PieceValidator,
): FileDigest & { problem: DataError | null } {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const h = createHash("sha256");
  let bytes = 0;
  let problem: DataError | null = null;
  const step = (fn: () => void) => {
    if (problem) return;
    try {
      fn();
    } catch (error) {
      if (error instanceof DataError) problem = error;
      else if (error instanceof TypeError) problem = new DataError("encoding", file, "not valid UTF-8");
      else problem = new DataError("unreadable", file, (error as Error).message);
    }
  };
  readChunks(path, (chunk) => {
    h.update(chunk);
    bytes += chunk.length;
    step(() => validator.feed(decoder.decode(chunk, { stream: true })));
  });
  step(() => {
    validator.feed(decoder.decode());
    validator.end();
  });
  return { bytes, hash: `sha256:${h.digest("hex")}`, problem };
}
