// @ts-check
/**
 * C2SP `tlog-proof`: one file (`.tlog-proof`) that proves offline that an entry is in a witnessed
 * checkpoint of the log:
 *
 *   c2sp.org/tlog-proof@v1
 *   extra <base64>            this project: the entry's 32-byte leaf hash (RFC 9162 HASH(0x00 ‖ data))
 *   index <N>
 *   <base64 hash>…            the RFC 9162 inclusion proof, leaf side first
 *   <empty line>
 *   <the checkpoint note, verbatim: body, empty line, the log's signature and the cosignatures>
 *
 * The extra line is not authenticated: it only says which leaf hash the proof is for, and the
 * inclusion proof must lead from it to the checkpoint's root. Given the entry's data, its leaf hash
 * must also be that hash. The checkpoint must meet the policy (./witness.js).
 */
import { equalBytes, fromBase64, toBase64 } from "./bytes.js";
import { VerifyError } from "./errors.js";
import { leafHash, verifyInclusion } from "./tiles.js";
import { checkWitnessed } from "./witness.js";

export const TLOG_PROOF_HEADER = "c2sp.org/tlog-proof@v1";
const INDEX = /^index (0|[1-9][0-9]*)$/;

/**
 * @param {{ index: number; proof: Uint8Array[]; checkpoint: string; extra?: Uint8Array }} p
 * @returns {string}
 */
export function formatTlogProof({ index, proof, checkpoint, extra }) {
  return [
    TLOG_PROOF_HEADER,
    ...(extra ? [`extra ${toBase64(extra)}`] : []),
    `index ${index}`,
    ...proof.map(toBase64),
    "",
    checkpoint,
  ].join("\n");
}

/**
 * @param {string} text
 * @returns {{ index: number; proof: Uint8Array[]; checkpoint: string; extra?: Uint8Array }}
 */
export function parseTlogProof(text) {
  const bad = (/** @type {string} */ why) =>
    new VerifyError("checkpoint-malformed", `not a c2sp.org/tlog-proof@v1: ${why}`);
  const lines = text.split("\n");
  let at = 0;
  if (lines[at++] !== TLOG_PROOF_HEADER) throw bad(`the first line is not ${TLOG_PROOF_HEADER}`);
  /** @type {Uint8Array | undefined} */
  let extra;
  if (lines[at]?.startsWith("extra ")) {
    const decoded = fromBase64((lines[at++] ?? "").slice(6));
    if (decoded === null) throw bad("the extra line is not base64");
    extra = decoded;
  }
  const m = INDEX.exec(lines[at++] ?? "");
  if (!m || !Number.isSafeInteger(Number(m[1]))) throw bad("no `index <N>` line");
  /** @type {Uint8Array[]} */
  const proof = [];
  for (; at < lines.length && lines[at] !== ""; at++) {
    const h = fromBase64(lines[at] ?? "");
    if (h === null || h.length !== 32) throw bad(`proof line ${at + 1} is not base64 of a 32-byte hash`);
    if (proof.length === 64) throw bad("more than 64 proof hashes");
    proof.push(h);
  }
  if (lines[at] !== "") throw bad("no empty line before the checkpoint");
  return { index: Number(m[1]), proof, checkpoint: lines.slice(at + 1).join("\n"), ...(extra ? { extra } : {}) };
}

/**
 * Verifies a tlog-proof offline under a policy; `data` (optional) is the entry's leaf data.
 * @param {string} text
 * @param {import("./witness.js").Policy} policy
 * @param {Uint8Array} [data]
 */
export async function verifyTlogProof(text, policy, data) {
  const p = parseTlogProof(text);
  const witnessed = await checkWitnessed(p.checkpoint, policy);
  const leaf = data !== undefined ? await leafHash(data) : p.extra;
  if (leaf === undefined || leaf.length !== 32)
    throw new VerifyError(
      "leaf-mismatch",
      "no leaf hash: give the entry's data, or a proof whose extra line holds the leaf hash",
    );
  if (data !== undefined && p.extra !== undefined && !equalBytes(p.extra, leaf))
    throw new VerifyError("leaf-mismatch", "the entry's data does not hash to the leaf hash the proof names");
  if (!(await verifyInclusion(leaf, p.index, witnessed.checkpoint.size, p.proof, witnessed.checkpoint.root))) {
    throw new VerifyError(
      "inclusion-failed",
      `the inclusion proof does not lead from leaf ${p.index} to the checkpoint's root`,
    );
  }
  return { ...witnessed, index: p.index, leaf, entryBound: data !== undefined };
}
