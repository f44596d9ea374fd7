// @ts-check
/**
 * Witnessed checkpoints, checked with WebCrypto: a C2SP `tlog-policy` (which logs, which witnesses,
 * the quorum) and C2SP `tlog-cosignature` v1 lines. A checkpoint is accepted only when one of the
 * policy's logs signed it (for its own origin) and the witnesses whose cosignatures verify meet the
 * quorum; the verdict names them. A line by a policy witness that does not verify refuses the
 * checkpoint; lines of other keys are ignored. The parser and the checks are the project's one
 * (src/tlog/policy.js and src/tlog/cosignature.js, built from the repository's core/tlog/); here
 * their refusals become VerifyErrors.
 */
import { VerifyError } from "./errors.js";
import { refusal } from "./note.js";
import { runAsync, webCrypto } from "../../../core/tlog/crypto.js";
import { CosignatureError } from "../../../core/tlog/cosignature.js";
import { NoteError } from "../../../core/tlog/note.js";
import {
  checkWitnessed as checkWith,
  meets,
  parsePolicy as parseWith,
  PolicyError,
} from "../../../core/tlog/policy.js";

export { meets };

/**
 * @typedef {import("../../../core/tlog/policy.js").PolicyWitness} Witness
 * @typedef {import("../../../core/tlog/policy.js").Policy} Policy
 */

/**
 * Parses a tlog-policy text. Malformed: a VerifyError "key-malformed" (the trust configuration cannot be used).
 * @param {string} text
 * @param {string} from where it came from, for messages
 * @returns {Promise<Policy>}
 */
export async function parsePolicy(text, from) {
  try {
    return await runAsync(parseWith(text), webCrypto);
  } catch (error) {
    if (!(error instanceof PolicyError)) throw error;
    throw new VerifyError("key-malformed", `${from}:${error.line}: ${error.reason}`);
  }
}

/** @param {Policy} policy */
export function describeQuorum(policy) {
  const group = policy.groups.get(policy.quorum);
  if (policy.quorum === "none") return "quorum none";
  return `quorum ${policy.quorum}: ${group ? `${group.k} of ${group.members.join(", ")}` : `witness ${policy.quorum}`}`;
}

/**
 * Checks a checkpoint note under a policy. Throws a VerifyError when no policy log signed it (for its
 * origin), when a policy witness's cosignature does not verify, or (`quorum-not-met`) when the
 * witnesses that cosigned do not meet the quorum; the message names who cosigned.
 * @param {string} note
 * @param {Policy} policy
 * @returns {Promise<{ checkpoint: import("./ledger.js").Checkpoint; log: string; cosigned: { id: string; timestamp: number }[]; quorum: string }>}
 */
export async function checkWitnessed(note, policy) {
  let witnessed;
  try {
    witnessed = await runAsync(checkWith(note, policy), webCrypto);
  } catch (error) {
    throw refused(error, policy);
  }
  const { checkpoint, log, cosigned, met } = witnessed;
  const quorum = describeQuorum(policy);
  const who =
    cosigned.length > 0
      ? cosigned.map((c) => `${c.id} (${new Date(c.timestamp * 1000).toISOString()})`).join(", ")
      : "no witness of the policy";
  if (!met) throw new VerifyError("quorum-not-met", `${quorum} is NOT met: cosigned by ${who}`);
  return {
    checkpoint: { origin: checkpoint.origin, size: checkpoint.size, root: checkpoint.rootHash },
    log: `${log.name}+${log.id}`,
    cosigned,
    quorum,
  };
}

/**
 * A refusal of the check as the verifier's error.
 * @param {unknown} error
 * @param {Policy} policy
 * @returns {unknown}
 */
function refused(error, policy) {
  if (error instanceof PolicyError) return new VerifyError("checkpoint-untrusted", error.message);
  if (error instanceof CosignatureError) {
    const w = /** @type {Witness} */ (error.cosigner);
    const by = `the cosignature by ${w.id}`;
    return new VerifyError(
      "signature-invalid",
      error.fault === "length"
        ? `${by} (${error.signer}) is not a timestamp and an Ed25519 signature`
        : error.fault === "timestamp"
          ? `${by}: timestamp out of range`
          : `${by} (${error.signer}) does not verify: the checkpoint or the cosignature was changed`,
    );
  }
  if (error instanceof NoteError && error.code === "checkpoint-malformed")
    return new VerifyError("checkpoint-malformed", `not a checkpoint: ${error.message}`);
  return refusal(error, policy.logs);
}
