/**
 * Why a consensus decision refused: a code from a closed union, a message that names what was
 * wrong (the office and its GI, the tally, …), and the same facts as data. Nothing branches on the
 * message. `REFUSAL_KIND` groups the codes the way an API answers them (phase 2 maps kinds to HTTP).
 */
import type { JsonObject } from "../ledger/entry.ts";

export const REFUSAL_KIND = {
  // The thing named does not exist.
  "unknown-session": "not-found",
  "unknown-proof": "not-found",
  // The request is well-formed but the ledger's state forbids it now.
  "office-exists": "conflict",
  "key-in-use": "conflict",
  "session-closed": "conflict",
  "already-voted": "conflict",
  "voting-closed": "conflict",
  "proof-exists": "conflict",
  "proof-state": "conflict",
  "already-signed": "conflict",
  "outcome-disagrees": "conflict",
  "cycle-regressed": "conflict",
  // The request can never succeed as stated.
  "invalid-key": "unprocessable",
  "unknown-office": "unprocessable",
  "gi-unmeasured": "unprocessable",
  "gi-below-minimum": "unprocessable",
  "priority-mix": "unprocessable",
  "round-participant": "unprocessable",
  "validator-is-participant": "unprocessable",
  "proof-mismatch": "unprocessable",
  // The signer is not entitled: not a participant, or the signature is not its registered key's.
  "not-a-participant": "forbidden",
  "bad-signature": "forbidden",
} as const;

export type RefusalCode = keyof typeof REFUSAL_KIND;
export type RefusalKind = (typeof REFUSAL_KIND)[RefusalCode];
export const REFUSAL_CODES = Object.keys(REFUSAL_KIND).sort() as RefusalCode[];

export interface ConsensusRefusal {
  code: RefusalCode;
  message: string;
  details: JsonObject;
}

export function refusal(code: RefusalCode, message: string, details: JsonObject = {}): ConsensusRefusal {
  return { code, message, details };
}
