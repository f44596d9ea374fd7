// @ts-check
/**
 * C2SP `tlog-policy` (https://c2sp.org/tlog-policy): which logs, which witnesses, and the quorum of
 * cosignatures a checkpoint needs; and the check of a checkpoint note under one.
 *
 *   log <vkey> [<url>]                 a log (Ed25519 signed-note key; its name is the origin)
 *   witness <name> <vkey> [<url>]      a witness (cosignature/v1 vkey, type 0x04); url: its submission prefix
 *   group <name> all|any|<k> <name>…   met when at least k of its members are (any: 1, all: n)
 *   quorum <name>|none                 exactly one; names only what is defined above it
 *
 * Whitespace is spaces and tabs; blank lines and `#` comments are ignored; the only control
 * characters allowed are tab and newline. Duplicate keys, a name defined twice, a name listed as a
 * member more than once, a reference to a name not yet defined, or more than 256 logs, witnesses and
 * groups are refused.
 */
import { toHex } from "./bytes.js";
import { CodedError } from "./errors.js";
import { openCheckpoint } from "./checkpoint.js";
import { parseCosignerKey, verifyCosignatures } from "./cosignature.js";
import { NoteError, parseVerifierKey } from "./note.js";

/**
 * @template T
 * @typedef {import("./crypto.js").Check<T>} Check
 */

/** The limits recommended as a minimum are 32 of each; a policy above 256 of anything is refused. */
const MAX_ITEMS = 256;
const DECIMAL = /^[1-9][0-9]*$/;

/**
 * Why a policy, or a checkpoint under it, was refused: `policy-malformed` (the text is not a policy;
 * `line` is the line, 0 for the text as a whole, and `reason` the message without its place) or
 * `log-unknown` (no log of the policy signed the checkpoint for its own origin). A missing quorum
 * line is placed at the text's last line.
 * @extends {CodedError<"policy-malformed" | "log-unknown">}
 */
export class PolicyError extends CodedError {
  /**
   * @param {"policy-malformed" | "log-unknown"} code
   * @param {string} reason
   * @param {number} [line] the line of the policy, 0 for the text as a whole
   * @param {string} [where] the place in the message
   */
  constructor(code, reason, line, where = line === undefined ? "" : line === 0 ? "policy" : `policy line ${line}`) {
    super(code, where === "" ? reason : `${where}: ${reason}`);
    // Spelled out: a minified bundle in a browser renames classes.
    this.name = "PolicyError";
    /** @readonly */
    this.reason = reason;
    /** @readonly */
    this.line = line ?? 0;
  }
}

/**
 * A log: its verifier key, parsed (`id`: the key ID), as written, and its URL.
 * @typedef {import("./note.js").ParsedKey & { vkey: string; url?: string }} PolicyLog
 */
/**
 * A witness: `id` is its name in the policy, `name` and `keyId` (8 lowercase hex) the key's.
 * @typedef {import("./cosignature.js").CosignerKey & { id: string; keyId: string; vkey: string; url?: string }} PolicyWitness
 */
/**
 * @typedef {object} PolicyGroup
 * @property {string} id
 * @property {number} k
 * @property {string[]} members
 */
/**
 * @typedef {object} Policy
 * @property {PolicyLog[]} logs
 * @property {Map<string, PolicyWitness>} witnesses
 * @property {Map<string, PolicyGroup>} groups
 * @property {string} quorum a witness, a group, or `none`
 */

/**
 * Parses a tlog-policy text; refused with a PolicyError `policy-malformed`.
 * @param {string} text
 * @returns {Check<Policy>}
 */
export function* parsePolicy(text) {
  if (/[^\t\n\x20-\x7e\x80-\uffff]/u.test(text))
    throw new PolicyError("policy-malformed", "a control character other than tab and newline", 0);
  /** @type {Policy} */
  const policy = { logs: [], witnesses: new Map(), groups: new Map(), quorum: "" };
  const { witnesses, groups } = policy;
  const keys = new Set();
  const listed = new Set();
  let quorum = false;
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = /** @type {string} */ (lines[i]).replace(/^[ \t]+|[ \t]+$/g, "");
    if (line === "" || line.startsWith("#")) continue;
    const [word, ...args] = line.split(/[ \t]+/);
    const bad = (/** @type {string} */ why) => new PolicyError("policy-malformed", why, i + 1);
    const fresh = (/** @type {string} */ name) => {
      if (name === "none") throw bad("the name none is predefined");
      if (witnesses.has(name) || groups.has(name)) throw bad(`${name} is defined twice`);
    };
    // Duplicates are refused among logs and among witnesses (the key, whatever name wraps it).
    const uniqueKey = (/** @type {string} */ kind, /** @type {Uint8Array} */ publicKey) => {
      const key = `${kind} ${toHex(publicKey)}`;
      if (keys.has(key)) throw bad("a duplicate key");
      keys.add(key);
    };
    const [first = "", second = "", third = ""] = args;
    try {
      if (word === "log") {
        if (args.length < 1 || args.length > 2) throw bad("log <vkey> [<url>]");
        const key = yield* parseVerifierKey(first);
        uniqueKey("log", key.publicKey);
        policy.logs.push({ ...key, vkey: first, ...(second ? { url: second } : {}) });
      } else if (word === "witness") {
        if (args.length < 2 || args.length > 3) throw bad("witness <name> <vkey> [<url>]");
        fresh(first);
        const key = yield* parseCosignerKey(second);
        uniqueKey("witness", key.publicKey);
        witnesses.set(first, { ...key, id: first, vkey: second, ...(third ? { url: third } : {}) });
      } else if (word === "group") {
        if (args.length < 3) throw bad("group <name> all|any|<k> <name>...");
        const [id = "", threshold = "", ...members] = args;
        fresh(id);
        for (const m of members) {
          if (m === "none" || !(witnesses.has(m) || groups.has(m)))
            throw bad(`${m} is not a witness or group defined above`);
          if (listed.has(m)) throw bad(`${m} is listed as a member more than once`);
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
        if (!(k >= 1 && k <= members.length)) throw bad(`threshold ${threshold}: all, any, or 1 to ${members.length}`);
        groups.set(id, { id, k, members });
      } else if (word === "quorum") {
        if (args.length !== 1) throw bad("quorum <name>");
        if (quorum) throw bad("a second quorum line");
        if (first !== "none" && !witnesses.has(first) && !groups.has(first)) throw bad(`${first} is not defined above`);
        policy.quorum = first;
        quorum = true;
      } else throw bad(`unknown line ${JSON.stringify(word)}`);
    } catch (error) {
      if (error instanceof NoteError) throw bad(error.message);
      throw error;
    }
    if (policy.logs.length + witnesses.size + groups.size > MAX_ITEMS)
      throw bad(`more than ${MAX_ITEMS} logs, witnesses and groups`);
  }
  if (!quorum) throw new PolicyError("policy-malformed", "no quorum line", lines.length, "policy");
  return policy;
}

/**
 * Whether the witnesses named in `cosigned` (policy names) meet `name` (default: the quorum).
 * @param {Policy} policy
 * @param {ReadonlySet<string>} cosigned
 * @param {string} [name]
 * @returns {boolean}
 */
export function meets(policy, cosigned, name = policy.quorum) {
  if (name === "none") return true;
  if (policy.witnesses.has(name)) return cosigned.has(name);
  const group = policy.groups.get(name);
  return group !== undefined && group.members.filter((m) => meets(policy, cosigned, m)).length >= group.k;
}

/**
 * @template {Policy} P
 * @typedef {object} Witnessed
 * @property {import("./checkpoint.js").Checkpoint} checkpoint
 * @property {P["logs"][number]} log the policy's log that signed it
 * @property {{ id: string; timestamp: number }[]} cosigned the policy's witnesses whose cosignatures
 *   verify (in the note's order), with the times they state
 * @property {boolean} met whether they meet the quorum
 */

/**
 * Checks a checkpoint note under a policy: signed by one of its logs whose key name is the
 * checkpoint's origin (else a NoteError from opening it, or a PolicyError `log-unknown`), and which
 * witnesses cosigned it (a policy witness's line that does not verify throws a CosignatureError);
 * `met` says whether they meet the quorum.
 * @template {Policy} P
 * @param {string} note
 * @param {P} policy
 * @returns {Check<Witnessed<P>>}
 */
export function* checkWitnessed(note, policy) {
  if (policy.logs.length === 0) throw new PolicyError("log-unknown", "the policy lists no log");
  const { checkpoint, signers } = yield* openCheckpoint(note, policy.logs);
  const log = policy.logs.find(
    (l) => l.name === checkpoint.origin && signers.some((s) => s.name === l.name && s.id === l.id),
  );
  if (!log)
    throw new PolicyError(
      "log-unknown",
      `the checkpoint's origin ${JSON.stringify(checkpoint.origin)} is not the name of the log key that signed it`,
    );
  const valid = yield* verifyCosignatures(note, [...policy.witnesses.values()]);
  const cosigned = valid.map(({ cosigner, timestamp }) => ({ id: cosigner.id, timestamp }));
  return { checkpoint, log, cosigned, met: meets(policy, new Set(cosigned.map((c) => c.id))) };
}
