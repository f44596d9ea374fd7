/**
 * The witness's side of C2SP `tlog-witness` `add-checkpoint`, as pure functions: parse the request
 * body, then decide it against the log's trusted keys and the latest checkpoint the witness cosigned.
 *
 *   body     "old <N>\n" ‖ up to 63 lines of base64 hashes ‖ "\n" ‖ the signed checkpoint note
 *   404      the checkpoint's origin is not a log this witness follows
 *   403      no signature of a key trusted for that origin verifies
 *   400      a malformed or oversized body, or an old size above the checkpoint's
 *   409      the old size is not the size last cosigned (body: that size, text/x.tlog.size), or the
 *            sizes are equal and the roots differ
 *   422      the consistency proof from the old size does not verify (or is not empty from size 0)
 *   200      cosigned: the store takes the new checkpoint, the reply is the cosignature line(s)
 *
 * The caller runs `decide` and the store of its `store` inside one transaction, so two requests from
 * the same old size are never both cosigned (the spec's race).
 */
import { openNote, parseCheckpoint, parseVerifierKey, type Checkpoint, type NoteVerifier } from "../checkpoint.ts";
import { equalBytes, verifyConsistency } from "../merkle.ts";
import { fromBase64 } from "../tlog/bytes.js";

export const MAX_PROOF_LINES = 63;
/** The largest request body accepted: 63 proof lines and a checkpoint with many signatures fit well. */
export const MAX_BODY_BYTES = 64 * 1024;
const OLD_LINE = /^old (0|[1-9][0-9]*)$/;

export interface AddCheckpointRequest {
  oldSize: number;
  proof: Uint8Array[];
  /** The signed checkpoint note, verbatim. */
  note: string;
  /** The origin line (the note's first line). */
  origin: string;
}

/** What the witness holds for a log: the latest checkpoint it cosigned. */
export interface StoredCheckpoint {
  size: number;
  rootHash: Uint8Array;
}

export type Decision =
  | { status: 200; checkpoint: Checkpoint; body: string }
  | { status: 409; size: number; reason: string; evidence: boolean }
  | { status: 400 | 403 | 404 | 422; reason: string; evidence: boolean };

/** Parses a request body; a string is the reason it is malformed (a 400). */
export function parseAddCheckpoint(bytes: Uint8Array): AddCheckpointRequest | string {
  if (bytes.length > MAX_BODY_BYTES) return `body over ${MAX_BODY_BYTES} bytes`;
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return "body is not UTF-8";
  }
  const firstEnd = text.indexOf("\n");
  if (firstEnd < 0) return "no old size line";
  const old = OLD_LINE.exec(text.slice(0, firstEnd));
  if (!old) return "the first line is not `old <size>` (decimal, no leading zeros)";
  const oldSize = Number(old[1]);
  if (!Number.isSafeInteger(oldSize)) return "old size out of range";
  const proof: Uint8Array[] = [];
  let at = firstEnd + 1;
  for (;;) {
    const end = text.indexOf("\n", at);
    if (end < 0) return "no empty line before the checkpoint";
    const line = text.slice(at, end);
    at = end + 1;
    if (line === "") break;
    if (proof.length === MAX_PROOF_LINES) return `more than ${MAX_PROOF_LINES} consistency proof lines`;
    const hash = fromBase64(line);
    if (hash === null || hash.length !== 32) return "a consistency proof line is not base64 of a 32-byte hash";
    proof.push(hash);
  }
  const note = text.slice(at);
  const originEnd = note.indexOf("\n");
  if (originEnd <= 0) return "no checkpoint after the empty line";
  return { oldSize, proof, note, origin: note.slice(0, originEnd) };
}

/** The trusted verifier keys of a log's vkeys (Ed25519 signed-note keys, type 0x01). */
export function logVerifiers(vkeys: readonly string[]): NoteVerifier[] {
  return vkeys.map((v) => parseVerifierKey(v));
}

/**
 * Decides a parsed request. `trusted` is undefined for an origin the witness does not follow;
 * `stored` the latest checkpoint cosigned for it (undefined: none, i.e. size 0). Pure: the caller
 * stores `checkpoint` and signs `body` on a 200.
 */
export function decide(
  req: AddCheckpointRequest,
  trusted: NoteVerifier[] | undefined,
  stored: StoredCheckpoint | undefined,
): Decision {
  if (trusted === undefined || trusted.length === 0)
    return { status: 404, reason: `unknown origin ${JSON.stringify(req.origin.slice(0, 200))}`, evidence: false };
  let text: string;
  try {
    text = openNote(req.note, trusted).text;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "no-known-signature" || code === "bad-signature" || code === "ambiguous-key") {
      return { status: 403, reason: `no trusted signature verifies: ${(error as Error).message}`, evidence: false };
    }
    return { status: 400, reason: `malformed checkpoint note: ${(error as Error).message}`, evidence: false };
  }
  let checkpoint: Checkpoint;
  try {
    checkpoint = parseCheckpoint(text);
  } catch (error) {
    return { status: 400, reason: (error as Error).message, evidence: true };
  }
  if (req.oldSize > checkpoint.size)
    return {
      status: 400,
      reason: `old size ${req.oldSize} is above the checkpoint's size ${checkpoint.size}`,
      evidence: true,
    };
  const held = stored?.size ?? 0;
  if (req.oldSize !== held)
    return {
      status: 409,
      size: held,
      reason: `old size ${req.oldSize} is not the latest cosigned size ${held}`,
      evidence: true,
    };
  if (stored !== undefined && req.oldSize === checkpoint.size) {
    if (!equalBytes(stored.rootHash, checkpoint.rootHash)) {
      return {
        status: 409,
        size: held,
        reason: `size ${held} already cosigned with another root hash: a fork`,
        evidence: true,
      };
    }
    if (req.proof.length > 0)
      return { status: 422, reason: "a consistency proof between equal sizes is empty", evidence: true };
  } else if (req.oldSize === 0) {
    if (req.proof.length > 0)
      return { status: 422, reason: "the consistency proof from size 0 must be empty", evidence: true };
  } else if (!verifyConsistency(req.oldSize, checkpoint.size, stored!.rootHash, checkpoint.rootHash, req.proof)) {
    return {
      status: 422,
      reason: `the consistency proof from size ${req.oldSize} to ${checkpoint.size} does not verify`,
      evidence: true,
    };
  }
  return { status: 200, checkpoint, body: text };
}
