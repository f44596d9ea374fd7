/**
 * C2SP `tlog-policy`: which logs, which witnesses, and the quorum of cosignatures a checkpoint needs.
 *
 *   log <vkey> [<url>]                 a log (Ed25519 signed-note key; its name is the origin)
 *   witness <name> <vkey> [<url>]      a witness (cosignature/v1 vkey, type 0x04); url: its submission prefix
 *   group <name> all|any|<k> <name>…   met when at least k of its members are (any: 1, all: n)
 *   quorum <name>|none                 exactly one; names only what is defined above it
 *
 * Whitespace is spaces and tabs; blank lines and `#` comments are ignored; the only control
 * characters allowed are tab and newline. Duplicate keys, a name defined twice, a name listed as a
 * member more than once, or a reference to a name not yet defined are refused.
 */
import { openNote, parseCheckpoint, parseVerifierKey, type Checkpoint, type NoteVerifier } from "../checkpoint.ts";
import { CodedError } from "../errors.ts";
import { parseCosignerVkey, verifyCosignatures, type Cosigner } from "./cosignature.ts";

export class PolicyError extends CodedError<"policy-malformed" | "log-unknown" | "quorum-not-met"> {}

export interface PolicyLog extends NoteVerifier {
  vkey: string;
  url?: string;
}
export interface PolicyWitness extends Cosigner {
  /** The name in the policy (not the key's name). */
  id: string;
  vkey: string;
  url?: string;
}
export interface PolicyGroup {
  id: string;
  k: number;
  members: string[];
}
export interface Policy {
  logs: PolicyLog[];
  witnesses: Map<string, PolicyWitness>;
  groups: Map<string, PolicyGroup>;
  quorum: string;
}

/** The limits recommended as a minimum: 32 of each; a policy above 256 of anything is refused. */
const MAX_ITEMS = 256;
const DECIMAL = /^[1-9][0-9]*$/;

export function parsePolicy(text: string): Policy {
  if (/[^\t\n\x20-\x7e\x80-\uffff]/u.test(text))
    throw new PolicyError("policy-malformed", "policy: a control character other than tab and newline");
  const logs: PolicyLog[] = [];
  const witnesses = new Map<string, PolicyWitness>();
  const groups = new Map<string, PolicyGroup>();
  const keys = new Set<string>();
  const listed = new Set<string>();
  let quorum: string | undefined;
  const lines = text.split("\n");
  lines.forEach((raw, i) => {
    const where = `policy line ${i + 1}`;
    const line = raw.replace(/^[ \t]+|[ \t]+$/g, "");
    if (line === "" || line.startsWith("#")) return;
    const [word, ...args] = line.split(/[ \t]+/);
    const bad = (why: string): never => {
      throw new PolicyError("policy-malformed", `${where}: ${why}`);
    };
    const fresh = (name: string) => {
      if (name === "none") bad("the name none is predefined");
      if (witnesses.has(name) || groups.has(name)) bad(`${name} is defined twice`);
    };
    // Duplicates are refused among logs and among witnesses (the key, whatever name wraps it).
    const uniqueKey = (kind: "log" | "witness", publicKeyHex: string) => {
      if (keys.has(`${kind} ${publicKeyHex}`)) bad("a duplicate key");
      keys.add(`${kind} ${publicKeyHex}`);
    };
    try {
      if (word === "log") {
        if (args.length < 1 || args.length > 2) bad("log <vkey> [<url>]");
        const key = parseVerifierKey(args[0]!);
        uniqueKey("log", key.publicKeyHex);
        logs.push({ ...key, vkey: args[0]!, ...(args[1] ? { url: args[1] } : {}) });
      } else if (word === "witness") {
        if (args.length < 2 || args.length > 3) bad("witness <name> <vkey> [<url>]");
        fresh(args[0]!);
        const key = parseCosignerVkey(args[1]!);
        uniqueKey("witness", key.publicKeyHex);
        witnesses.set(args[0]!, { ...key, id: args[0]!, vkey: args[1]!, ...(args[2] ? { url: args[2] } : {}) });
      } else if (word === "group") {
        if (args.length < 3) bad("group <name> all|any|<k> <name>...");
        const [id, threshold, ...members] = args as [string, string, ...string[]];
        fresh(id);
        for (const m of members) {
          if (m === "none" || !(witnesses.has(m) || groups.has(m))) bad(`${m} is not a witness or group defined above`);
          if (listed.has(m)) bad(`${m} is listed as a member more than once`);
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
        if (!(k >= 1 && k <= members.length)) bad(`threshold ${threshold}: all, any, or 1 to ${members.length}`);
        groups.set(id, { id, k, members });
      } else if (word === "quorum") {
        if (args.length !== 1) bad("quorum <name>");
        if (quorum !== undefined) bad("a second quorum line");
        if (args[0] !== "none" && !witnesses.has(args[0]!) && !groups.has(args[0]!))
          bad(`${args[0]} is not defined above`);
        quorum = args[0]!;
      } else bad(`unknown line ${JSON.stringify(word)}`);
    } catch (error) {
      if (error instanceof PolicyError) throw error;
      bad((error as Error).message);
    }
    if (logs.length + witnesses.size + groups.size > MAX_ITEMS)
      bad(`more than ${MAX_ITEMS} logs, witnesses and groups`);
  });
  if (quorum === undefined) throw new PolicyError("policy-malformed", "policy: no quorum line");
  return { logs, witnesses, groups, quorum };
}

/** Whether the witnesses named in `cosigned` (policy names) meet `name` (default: the quorum). */
export function meets(policy: Policy, cosigned: ReadonlySet<string>, name: string = policy.quorum): boolean {
  if (name === "none") return true;
  if (policy.witnesses.has(name)) return cosigned.has(name);
  const group = policy.groups.get(name);
  if (!group) return false;
  return group.members.filter((m) => meets(policy, cosigned, m)).length >= group.k;
}

/** The quorum in words, e.g. `quorum 2-of-3 (w1, w2, w3)`. */
export function describeQuorum(policy: Policy, name: string = policy.quorum): string {
  if (name === "none") return "quorum none";
  const group = policy.groups.get(name);
  const rule = group ? `${group.k}-of-${group.members.length} (${group.members.join(", ")})` : `witness ${name}`;
  return name === policy.quorum ? `quorum ${name}: ${rule}` : rule;
}

export interface WitnessedCheckpoint {
  checkpoint: Checkpoint;
  /** The policy's log that signed it. */
  log: PolicyLog;
  /** The policy's witnesses whose cosignatures verify, with their timestamps. */
  cosigned: { id: string; timestamp: number }[];
  met: boolean;
}

/**
 * Checks a checkpoint note under a policy: signed by one of its logs (whose key name is the origin),
 * and which witnesses cosigned it; `met` says whether the quorum is. Throws on a bad or foreign note.
 */
export function checkWitnessed(note: string, policy: Policy): WitnessedCheckpoint {
  if (policy.logs.length === 0) throw new PolicyError("log-unknown", "the policy lists no log");
  const { text, verifiedBy } = openNote(note, policy.logs);
  const checkpoint = parseCheckpoint(text);
  const log = policy.logs.find((l) => verifiedBy.includes(l.name) && l.name === checkpoint.origin);
  if (!log)
    throw new PolicyError(
      "log-unknown",
      `the checkpoint's origin ${JSON.stringify(checkpoint.origin)} is not the name of the log key that signed it`,
    );
  const witnesses = [...policy.witnesses.values()];
  const valid = verifyCosignatures(note, witnesses);
  const cosigned = witnesses
    .filter((w) => valid.some((v) => v.name === w.name && v.keyIdHex === cosignerIdHex(w)))
    .map((w) => ({
      id: w.id,
      timestamp: valid.find((v) => v.name === w.name && v.keyIdHex === cosignerIdHex(w))!.timestamp,
    }));
  return { checkpoint, log, cosigned, met: meets(policy, new Set(cosigned.map((c) => c.id))) };
}

function cosignerIdHex(w: PolicyWitness): string {
  return w.vkey.split("+")[1]!.toLowerCase();
}
