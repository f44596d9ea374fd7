// @ts-check
/**
 * Witnessed checkpoints, checked with WebCrypto: a C2SP `tlog-policy` (which logs, which witnesses,
 * the quorum) and C2SP `tlog-cosignature` v1 lines (Ed25519, key ID SHA-256(name ‖ 0x0A ‖ 0x04 ‖
 * key)[:4], signed message "cosignature/v1\ntime <T>\n" ‖ the checkpoint body). A checkpoint is
 * accepted only when one of the policy's logs signed it (for its own origin) and the witnesses whose
 * cosignatures verify meet the quorum; the verdict names them. A line by a policy witness that does
 * not verify refuses the checkpoint; lines of other keys are ignored.
 */
import { concat, fromBase64, sha256, toHex, utf8 } from "./bytes.js";
import { VerifyError } from "./errors.js";
import { openNote, parseVerifierKeys } from "./note.js";
import { parseCheckpoint } from "./ledger.js";

const SIGNATURE_PREFIX = "\u2014 ";
const NAME = /^[^\s+]+$/u;
const KEY_ID = /^[0-9a-fA-F]{8}$/;
const DECIMAL = /^[1-9][0-9]*$/;

/**
 * @typedef {object} Witness
 * @property {string} id the name in the policy
 * @property {string} name the key's name (the cosignature lines')
 * @property {string} keyId 8 lowercase hex
 * @property {CryptoKey} key
 * @property {string} vkey
 * @property {string} [url]
 * @typedef {object} Policy
 * @property {import("./note.js").TrustedKey[]} logs
 * @property {Map<string, Witness>} witnesses
 * @property {Map<string, { k: number; members: string[] }>} groups
 * @property {string} quorum
 */

/**
 * Parses a tlog-policy text. Malformed: a VerifyError "key-malformed" (the trust configuration cannot be used).
 * @param {string} text
 * @param {string} from where it came from, for messages
 * @returns {Promise<Policy>}
 */
export async function parsePolicy(text, from) {
  const bad = (/** @type {number} */ line, /** @type {string} */ why) =>
    new VerifyError("key-malformed", `${from}:${line}: ${why}`);
  if (/[^\t\n\x20-\x7e\x80-\uffff]/u.test(text)) throw bad(0, "a control character other than tab and newline");
  /** @type {Policy} */
  const policy = { logs: [], witnesses: new Map(), groups: new Map(), quorum: "" };
  const keys = new Set();
  const listed = new Set();
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] ?? "").replace(/^[ \t]+|[ \t]+$/g, "");
    if (line === "" || line.startsWith("#")) continue;
    const [word, ...args] = line.split(/[ \t]+/);
    const fresh = (/** @type {string} */ name) => {
      if (name === "none" || policy.witnesses.has(name) || policy.groups.has(name))
        throw bad(i + 1, `${name} is predefined or defined twice`);
    };
    const once = (/** @type {string} */ hex) => {
      if (keys.has(hex)) throw bad(i + 1, "a duplicate key");
      keys.add(hex);
    };
    if (word === "log" && (args.length === 1 || args.length === 2)) {
      const [key] = await parseVerifierKeys(args[0] ?? "", `${from}:${i + 1}`);
      once(`log ${toHex(fromBase64((args[0] ?? "").split("+").slice(2).join("+")) ?? new Uint8Array())}`);
      policy.logs.push(/** @type {import("./note.js").TrustedKey} */ (key));
    } else if (word === "witness" && (args.length === 2 || args.length === 3)) {
      const [id = "", vkey = "", url] = args;
      fresh(id);
      const w = await parseCosignerKey(vkey, `${from}:${i + 1}`);
      once(`witness ${w.hex}`);
      policy.witnesses.set(id, { id, name: w.name, keyId: w.keyId, key: w.key, vkey, ...(url ? { url } : {}) });
    } else if (word === "group" && args.length >= 3) {
      const [id = "", threshold = "", ...members] = args;
      fresh(id);
      for (const m of members) {
        if (m === "none" || !(policy.witnesses.has(m) || policy.groups.has(m)))
          throw bad(i + 1, `${m} is not a witness or group defined above`);
        if (listed.has(m)) throw bad(i + 1, `${m} is listed as a member more than once`);
        listed.add(m);
      }
      const k =
        threshold === "all"
          ? members.length
          : threshold === "any"
            ? 1
            : DECIMAL.test(threshold)
              ? Number(threshold)
              : NaN;
      if (!(k >= 1 && k <= members.length))
        throw bad(i + 1, `threshold ${threshold}: all, any, or 1 to ${members.length}`);
      policy.groups.set(id, { k, members });
    } else if (word === "quorum" && args.length === 1) {
      const [name = ""] = args;
      if (policy.quorum !== "") throw bad(i + 1, "a second quorum line");
      if (name !== "none" && !policy.witnesses.has(name) && !policy.groups.has(name))
        throw bad(i + 1, `${name} is not defined above`);
      policy.quorum = name;
    } else throw bad(i + 1, `not a policy line: ${JSON.stringify(line.slice(0, 80))}`);
  }
  if (policy.quorum === "") throw bad(lines.length, "no quorum line");
  return policy;
}

/**
 * A cosigner vkey: `<name>+<key id>+base64(0x04 ‖ 32-byte Ed25519 key)`.
 * @param {string} vkey
 * @param {string} where
 */
async function parseCosignerKey(vkey, where) {
  const plus1 = vkey.indexOf("+");
  const plus2 = plus1 < 0 ? -1 : vkey.indexOf("+", plus1 + 1);
  const name = vkey.slice(0, Math.max(plus1, 0));
  const id = plus2 < 0 ? "" : vkey.slice(plus1 + 1, plus2).toLowerCase();
  const data = plus2 < 0 ? null : fromBase64(vkey.slice(plus2 + 1));
  if (!NAME.test(name) || !KEY_ID.test(id) || data === null || data.length !== 33 || data[0] !== 0x04) {
    throw new VerifyError("key-malformed", `${where}: not a cosigner vkey <name>+<key id>+base64(0x04 ‖ Ed25519 key)`);
  }
  if (toHex((await sha256(utf8.encode(name), Uint8Array.of(0x0a), data)).subarray(0, 4)) !== id)
    throw new VerifyError("key-malformed", `${where}: the key ID does not match the name and key`);
  const key = await crypto.subtle.importKey("raw", data.subarray(1), { name: "Ed25519" }, false, ["verify"]);
  return { name, keyId: id, key, hex: toHex(data.subarray(1)) };
}

/**
 * Whether the witnesses `cosigned` (policy names) meet `name` (default: the quorum).
 * @param {Policy} policy
 * @param {Set<string>} cosigned
 * @param {string} [name]
 * @returns {boolean}
 */
export function meets(policy, cosigned, name = policy.quorum) {
  if (name === "none") return true;
  if (policy.witnesses.has(name)) return cosigned.has(name);
  const group = policy.groups.get(name);
  return group !== undefined && group.members.filter((m) => meets(policy, cosigned, m)).length >= group.k;
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
  if (policy.logs.length === 0) throw new VerifyError("checkpoint-untrusted", "the policy lists no log");
  const { text, signedBy } = await openNote(note, policy.logs);
  const checkpoint = parseCheckpoint(text);
  const log = policy.logs.find((k) => k.name === checkpoint.origin && signedBy.includes(`${k.name}+${k.id}`));
  if (!log)
    throw new VerifyError(
      "checkpoint-untrusted",
      `the checkpoint's origin ${JSON.stringify(checkpoint.origin)} is not the log whose key signed it`,
    );
  const cosigned = await cosignatures(note, text, policy);
  const ids = new Set(cosigned.map((c) => c.id));
  const quorum = describeQuorum(policy);
  const who =
    cosigned.length > 0
      ? cosigned.map((c) => `${c.id} (${new Date(c.timestamp * 1000).toISOString()})`).join(", ")
      : "no witness of the policy";
  if (!meets(policy, ids)) throw new VerifyError("quorum-not-met", `${quorum} is NOT met: cosigned by ${who}`);
  return { checkpoint, log: `${log.name}+${log.id}`, cosigned, quorum };
}

/**
 * The policy witnesses whose cosignature/v1 lines on the note verify.
 * @param {string} note
 * @param {string} body
 * @param {Policy} policy
 */
async function cosignatures(note, body, policy) {
  const lines = note.slice(body.length + 1, -1).split("\n");
  /** @type {{ id: string; timestamp: number }[]} */
  const found = [];
  for (const line of lines) {
    const space = line.indexOf(" ", SIGNATURE_PREFIX.length);
    const name = line.slice(SIGNATURE_PREFIX.length, space < 0 ? undefined : space);
    const raw = space < 0 ? null : fromBase64(line.slice(space + 1));
    if (raw === null || raw.length < 4) continue; // openNote already refused malformed lines
    const id = toHex(raw.subarray(0, 4));
    for (const w of policy.witnesses.values()) {
      if (w.name !== name || w.keyId !== id || found.some((f) => f.id === w.id)) continue;
      if (raw.length !== 76)
        throw new VerifyError(
          "signature-invalid",
          `the cosignature by ${w.id} (${name}+${id}) is not a timestamp and an Ed25519 signature`,
        );
      const ts = new DataView(raw.buffer, raw.byteOffset + 4, 8).getBigUint64(0);
      if (ts > BigInt(Number.MAX_SAFE_INTEGER))
        throw new VerifyError("signature-invalid", `the cosignature by ${w.id}: timestamp out of range`);
      const message = concat(utf8.encode(`cosignature/v1\ntime ${ts}\n`), utf8.encode(body));
      if (!(await crypto.subtle.verify({ name: "Ed25519" }, w.key, raw.subarray(12), message))) {
        throw new VerifyError(
          "signature-invalid",
          `the cosignature by ${w.id} (${name}+${id}) does not verify: the checkpoint or the cosignature was changed`,
        );
      }
      found.push({ id: w.id, timestamp: Number(ts) });
    }
  }
  return found;
}
