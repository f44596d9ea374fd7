/**
 * The offline check of a deliberation proof file (the proof document, views.ts), as named steps
 * in order; the first that fails ends the check and is named. What it needs besides the file: the
 * consensus registry folded from the ledger (the registered keys and what the ledger recorded) and
 * the ledger's checkpoint key.
 *
 *   canonical-form    the file is the JCS text of its document and one LF, nothing else
 *   schema            the document is a strict ProofDocument
 *   state             it is sealed: validator signature, seal and anchor present
 *   registered-keys   participants and validator are offices whose registered keys the file carries
 *   votes             every vote is its participant's, signed by the registered key; the proof's
 *                     consensus and the session's outcome are the votes' tally
 *   model-signatures  all four participants signed the JCS of the proof's inputs
 *   validator         not a participant, GI ≥ 0.95, signed the inputs plus model_signatures
 *   ledger-record     the ledger recorded this session, these inputs (so consensus and gi_score are
 *                     the server's) and this validator GI (the measured one)
 *   merkle-root       the seal's root is the RFC 9162 root over the proof's parts (seal.ts)
 *   sealing-entry     the anchored entry is a sound `delibproof.sealed` entry committing to this
 *                     proof's digest and root, at the seal's sequence number
 *   checkpoint        the anchor's checkpoint is signed by the ledger key, for the anchor's size
 *   inclusion         the sealing entry is in that checkpoint's tree
 */
import { canonicalize } from "../canonical.ts";
import { verifyCheckpoint, type NoteVerifier } from "../checkpoint.ts";
import { sealEntry } from "../ledger/entry.ts";
import { leafHashOfText, verifyInclusion } from "../merkle.ts";
import { ProofDocument, type ModelSignature } from "../schemas/consensus.ts";
import { verify } from "../signature.ts";
import { modelMessage, proofInputsOf, validatorMessage, voteMessage } from "./messages.ts";
import { agreementScore, MIN_PARTICIPANT_GI, tally } from "./rules.ts";
import { proofDigest, sealRoot, type SealParts } from "./seal.ts";
import type { ConsensusState } from "./model.ts";
import { CodedError } from "../errors.ts";

/** Where the data folder holds the static copies of the sealed proofs (written by the pipeline, published by the site build). */
export const PROOF_COPIES_DIR = "consensus/proofs";

export const PROOF_CHECKS = [
  "canonical-form",
  "schema",
  "state",
  "registered-keys",
  "votes",
  "model-signatures",
  "validator",
  "ledger-record",
  "merkle-root",
  "sealing-entry",
  "checkpoint",
  "inclusion",
] as const;
export type ProofCheck = (typeof PROOF_CHECKS)[number];

export type ProofVerification =
  | { ok: true; delib_id: string; session_id: string; checks: readonly ProofCheck[] }
  | { ok: false; check: ProofCheck; message: string };

/** `code` is the check that failed. */
export class ProofCheckError extends CodedError<ProofCheck> {
  constructor(check: ProofCheck, message: string) {
    super(check, `${check}: ${message}`);
  }
}

export interface ProofVerifierContext {
  /** The consensus registry folded over the ledger (or its export). */
  ledger: ConsensusState;
  /** Keys the anchor's checkpoint must verify with (the ledger's checkpoint key). */
  checkpointKeys: NoteVerifier[];
}

function fail(check: ProofCheck, message: string): never {
  throw new ProofCheckError(check, message);
}

const decoder = new TextDecoder("utf-8", { fatal: true });

function canonicalDocument(bytes: Uint8Array): unknown {
  let text: string;
  let parsed: unknown;
  try {
    text = decoder.decode(bytes);
    parsed = JSON.parse(text);
  } catch (error) {
    fail("canonical-form", `not UTF-8 JSON (${(error as Error).message})`);
  }
  let canonical: string;
  try {
    canonical = canonicalize(parsed);
  } catch (error) {
    fail("canonical-form", (error as Error).message);
  }
  if (text !== `${canonical}\n`)
    fail("canonical-form", "the file is not the RFC 8785 JCS text of its document followed by one LF");
  return parsed;
}

export function verifyProofFile(bytes: Uint8Array, ctx: ProofVerifierContext): ProofVerification {
  try {
    return verifySteps(bytes, ctx);
  } catch (error) {
    if (error instanceof ProofCheckError) return { ok: false, check: error.code, message: error.message };
    throw error;
  }
}

/**
 * The checks that need no ledger, only the file and the ledger's checkpoint key: canonical-form,
 * schema, state, merkle-root, sealing-entry, checkpoint and inclusion. What a static host of the
 * proof files can vouch for at build time (site/src/lib/consensus-proofs.ts); the signatures
 * against the registered keys and the ledger's record need the ledger (`verifyProofFile`).
 */
export const SEAL_CHECKS = [
  "canonical-form",
  "schema",
  "state",
  "merkle-root",
  "sealing-entry",
  "checkpoint",
  "inclusion",
] as const satisfies readonly ProofCheck[];

export function verifyProofSeal(bytes: Uint8Array, checkpointKeys: NoteVerifier[]): ProofVerification {
  try {
    const sealed = sealedDocument(bytes);
    checkSeal(sealed, checkpointKeys);
    return {
      ok: true,
      delib_id: sealed.doc.proof.delib_id,
      session_id: sealed.doc.session.session_id,
      checks: SEAL_CHECKS,
    };
  } catch (error) {
    if (error instanceof ProofCheckError) return { ok: false, check: error.code, message: error.message };
    throw error;
  }
}

/** canonical-form, schema, state: the document and the parts a sealed one must have. */
function sealedDocument(bytes: Uint8Array) {
  const raw = canonicalDocument(bytes);

  const parsed = ProofDocument.safeParse(raw);
  if (!parsed.success) {
    const i = parsed.error.issues[0]!;
    fail("schema", `${i.path.join(".") || "(document)"}: ${i.message}`);
  }
  const doc = parsed.data;
  const { proof, session } = doc;

  if (doc.state !== "sealed") fail("state", `the proof is ${doc.state}, not sealed`);
  const validator = proof.validator_signature ?? fail("state", "no validator signature");
  const seal = proof.seal ?? fail("state", "no seal");
  const anchor = doc.anchor ?? fail("state", "no anchor (sealing entry, inclusion proof, checkpoint)");
  const outcome = session.outcome ?? fail("state", "the session has no outcome");
  const gi_delta = session.gi_delta ?? fail("state", "the session has no gi_delta");
  return { doc, validator, seal, anchor, outcome, gi_delta };
}

function verifySteps(bytes: Uint8Array, { ledger, checkpointKeys }: ProofVerifierContext): ProofVerification {
  const sealed = sealedDocument(bytes);
  const { doc, validator, outcome } = sealed;
  const { proof, session } = doc;

  // registered-keys
  const keyOf = (id: string, role: string): string => {
    const office = ledger.offices.get(id);
    if (!office) fail("registered-keys", `${role} ${id} is not a registered office on the ledger`);
    return office.public_key;
  };
  const keys = new Map(session.participants.map((id) => [id, keyOf(id, "participant")]));
  if (new Set(keys.values()).size !== keys.size) fail("registered-keys", "two participants share a key");
  const order = proof.model_signatures.map((m) => m.participant).join(",");
  if (order !== session.participants.join(",")) {
    fail(
      "registered-keys",
      `model signatures are by [${order}], expected one by each participant in order [${session.participants.join(",")}]`,
    );
  }
  for (const m of proof.model_signatures) {
    if (m.public_key !== keys.get(m.participant))
      fail("registered-keys", `the key given for ${m.participant} is not its registered key`);
  }
  if (validator.public_key !== keyOf(validator.validator, "validator"))
    fail("registered-keys", `the key given for validator ${validator.validator} is not its registered key`);

  // votes
  let previous = -1;
  for (const v of session.votes) {
    const rank = session.participants.indexOf(v.participant);
    if (rank < 0) fail("votes", `${v.participant} voted but is not a participant`);
    if (rank <= previous) fail("votes", "votes are not one per participant in participant order");
    previous = rank;
    if (
      !verify(
        "ed25519",
        keys.get(v.participant)!,
        voteMessage({ participant: v.participant, session_id: session.session_id, vote: v.vote }),
        v.signature,
      )
    ) {
      fail("votes", `the vote of ${v.participant} does not verify with its registered key`);
    }
  }
  const t = tally(
    session.votes.map((v) => ({ vote: v.vote, public_key: keys.get(v.participant)! })),
    session.participants.length,
  );
  if (proof.consensus !== agreementScore(t))
    fail("votes", `consensus is ${proof.consensus}, the signed votes give ${agreementScore(t)}`);
  if (outcome !== t.outcome) fail("votes", `the outcome is ${outcome}, the signed votes give ${t.outcome}`);

  // model-signatures
  const inputs = proofInputsOf(proof);
  const message = modelMessage(inputs);
  for (const m of proof.model_signatures) {
    if (!verify("ed25519", m.public_key, message, m.signature))
      fail("model-signatures", `the signature of ${m.participant} does not verify over the proof's inputs`);
  }

  // validator
  if (session.participants.includes(validator.validator)) fail("validator", `${validator.validator} is a participant`);
  if (validator.gi < MIN_PARTICIPANT_GI) fail("validator", `GI ${validator.gi} is below ${MIN_PARTICIPANT_GI}`);
  const signatures: ModelSignature[] = proof.model_signatures;
  if (!verify("ed25519", validator.public_key, validatorMessage(inputs, signatures), validator.signature)) {
    fail("validator", `the signature of ${validator.validator} does not verify over the inputs and model_signatures`);
  }

  // ledger-record
  const recorded =
    ledger.proofs.get(proof.delib_id) ?? fail("ledger-record", `the ledger has no proof ${proof.delib_id}`);
  const s =
    ledger.sessions.get(session.session_id) ?? fail("ledger-record", `the ledger has no session ${session.session_id}`);
  if (recorded.session_id !== session.session_id)
    fail("ledger-record", `the ledger records ${proof.delib_id} for session ${recorded.session_id}`);
  if (
    s.cycle !== session.cycle ||
    s.room !== session.room ||
    s.gi_baseline !== session.gi_baseline ||
    s.participants.join(",") !== session.participants.join(",")
  ) {
    fail("ledger-record", `session ${session.session_id} differs from the ledger's`);
  }
  if (canonicalize(recorded.inputs) !== canonicalize(inputs))
    fail(
      "ledger-record",
      "the proof's inputs differ from those the ledger recorded (consensus and gi_score are the server's)",
    );
  if (!recorded.validator || recorded.validator.gi !== validator.gi)
    fail("ledger-record", `the validator's GI differs from the one the ledger measured`);

  checkSeal(sealed, checkpointKeys);
  return { ok: true, delib_id: proof.delib_id, session_id: session.session_id, checks: PROOF_CHECKS };
}

/** merkle-root, sealing-entry, checkpoint, inclusion. */
function checkSeal(
  { doc, validator, seal, anchor, outcome, gi_delta }: ReturnType<typeof sealedDocument>,
  checkpointKeys: NoteVerifier[],
): void {
  const { proof, session } = doc;
  const inputs = proofInputsOf(proof);
  const signatures: ModelSignature[] = proof.model_signatures;
  // merkle-root
  const parts: SealParts = {
    session,
    inputs,
    votes: session.votes,
    model_signatures: signatures,
    validator_signature: validator,
    outcome: { outcome, gi_delta },
  };
  const root = sealRoot(parts);
  if (root !== seal.merkle_root) fail("merkle-root", `the parts hash to ${root}, the seal says ${seal.merkle_root}`);

  // sealing-entry
  const e = anchor.entry;
  const resealed = sealEntry({ seq: e.seq, type: e.type, payload: e.payload as never, ts: e.ts, prev: e.prev });
  if (resealed.entry.hash !== e.hash)
    fail("sealing-entry", `the entry hashes to ${resealed.entry.hash}, not ${e.hash}`);
  if (e.type !== "delibproof.sealed") fail("sealing-entry", `the entry is ${e.type}`);
  if (e.seq !== seal.ledger_seq) fail("sealing-entry", `the entry is seq ${e.seq}, the seal says ${seal.ledger_seq}`);
  const expected = canonicalize({
    delibproof_id: proof.delib_id,
    proof_digest: proofDigest(parts),
    merkle_root: seal.merkle_root,
  });
  if (canonicalize(e.payload) !== expected)
    fail("sealing-entry", "the entry does not commit to this proof's digest and Merkle root");

  // checkpoint
  let checkpoint;
  try {
    checkpoint = verifyCheckpoint(anchor.checkpoint, checkpointKeys);
  } catch (error) {
    fail("checkpoint", (error as Error).message);
  }
  if (checkpoint.size !== anchor.tree_size)
    fail("checkpoint", `the checkpoint is for ${checkpoint.size} entries, the anchor says ${anchor.tree_size}`);

  // inclusion
  const leaf = leafHashOfText(resealed.text);
  const hashes = anchor.inclusion_proof.map((h) => {
    const bytes = Buffer.from(h, "base64");
    // One spelling per hash: Node ignores the unused low bits of the last base64 digit.
    if (bytes.toString("base64") !== h) fail("inclusion", `inclusion hash ${h} is not in canonical base64`);
    return new Uint8Array(bytes);
  });
  if (!verifyInclusion(leaf, e.seq, anchor.tree_size, hashes, checkpoint.rootHash)) {
    fail("inclusion", `entry ${e.seq} is not included in the checkpointed tree of ${anchor.tree_size} entries`);
  }
}
