/**
 * C2SP `tlog-policy`: which logs, which witnesses, and the quorum of cosignatures a checkpoint needs.
 *
 *   log <vkey> [<url>]                 a log (Ed25519 signed-note key; its name is the origin)
 *   witness <name> <vkey> [<url>]      a witness (cosignature/v1 vkey, type 0x04); url: its submission prefix
 *   group <name> all|any|<k> <name>…   met when at least k of its members are (any: 1, all: n)
 *   quorum <name>|none                 exactly one; names only what is defined above it
 *
 * The parser, the quorum rule and the check of a checkpoint under a policy are written once, in
 * core/tlog/policy.js (which the published verifier runs too, with WebCrypto); this module runs them
 * synchronously over node:crypto, gives each log and witness its key as hex too, and words the quorum.
 */
import type { Checkpoint, NoteVerifier } from "../checkpoint.ts";
import { toHex } from "../digest.ts";
import { nodeCrypto } from "../merkle.ts";
import { runSync } from "../tlog/crypto.js";
import {
  checkWitnessed as checkWith,
  meets as meetsWith,
  parsePolicy as parseWith,
  type PolicyGroup,
  type PolicyLog as ParsedLog,
  type PolicyWitness as ParsedWitness,
} from "../tlog/policy.js";
import type { Cosigner } from "./cosignature.ts";

export { PolicyError } from "../tlog/policy.js";
export type { PolicyGroup };

export interface PolicyLog extends ParsedLog, NoteVerifier {}
/** `id`: the name in the policy (not the key's name). */
export interface PolicyWitness extends ParsedWitness, Cosigner {}
export interface Policy {
  logs: PolicyLog[];
  witnesses: Map<string, PolicyWitness>;
  groups: Map<string, PolicyGroup>;
  quorum: string;
}

/** Parses a tlog-policy text; throws a PolicyError `policy-malformed` naming the line. */
export function parsePolicy(text: string): Policy {
  const parsed = runSync(parseWith(text), nodeCrypto);
  return {
    logs: parsed.logs.map((l) => ({ ...l, publicKeyHex: toHex(l.publicKey) })),
    witnesses: new Map([...parsed.witnesses].map(([id, w]) => [id, { ...w, publicKeyHex: toHex(w.publicKey) }])),
    groups: parsed.groups,
    quorum: parsed.quorum,
  };
}

/** Whether the witnesses named in `cosigned` (policy names) meet `name` (default: the quorum). */
export function meets(policy: Policy, cosigned: ReadonlySet<string>, name: string = policy.quorum): boolean {
  return meetsWith(policy, cosigned, name);
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
  /** The policy's witnesses whose cosignatures verify (in the policy's order), with their timestamps. */
  cosigned: { id: string; timestamp: number }[];
  met: boolean;
}

/**
 * Checks a checkpoint note under a policy: signed by one of its logs (whose key name is the origin),
 * and which witnesses cosigned it; `met` says whether the quorum is. Throws on a bad or foreign note.
 */
export function checkWitnessed(note: string, policy: Policy): WitnessedCheckpoint {
  const { checkpoint, log, cosigned, met } = runSync(checkWith(note, policy), nodeCrypto);
  const order = [...policy.witnesses.keys()];
  return { checkpoint, log, cosigned: cosigned.sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id)), met };
}
