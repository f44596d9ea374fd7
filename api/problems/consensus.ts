/**
 * The problem types of the consensus routes: one per refusal code of core/consensus/refusal.ts,
 * slug `consensus-<code>`, so a client branches on the `type` URI and never on text. The status
 * follows the code's kind (REFUSAL_KIND): not-found → 404, conflict → 409, unprocessable → 422,
 * forbidden → 403. Each problem carries the refusal's `code` and its details as extension members
 * (RFC 9457 §3.2): the tally of an outcome that disagrees with the votes, every office below the
 * minimum GI with its GI, the proof's state, …
 *
 * A leaf module (zod and core only): api/problems/problem.ts lists these types, api/openapi/responses.ts their
 * extension members, api/routes/consensus.ts answers with them.
 */
import { z } from "@hono/zod-openapi";
import { REFUSAL_KIND, type RefusalCode, type RefusalKind } from "../../core/consensus/refusal.ts";

/** The HTTP status of each kind of refusal. */
export const REFUSAL_STATUS: Readonly<Record<RefusalKind, 403 | 404 | 409 | 422>> = {
  "not-found": 404,
  conflict: 409,
  unprocessable: 422,
  forbidden: 403,
};

export type ConsensusProblemSlug = `consensus-${RefusalCode}`;

export function consensusProblemSlug(code: RefusalCode): ConsensusProblemSlug {
  return `consensus-${code}`;
}

/** Slug → status and title (statuses as REFUSAL_STATUS says for the code's kind; a test holds them to it). */
export const CONSENSUS_PROBLEM_TYPES = {
  "consensus-unknown-session": { status: 404, title: "No such consensus session" },
  "consensus-unknown-proof": { status: 404, title: "No such deliberation proof" },
  "consensus-office-exists": { status: 409, title: "The office is already registered" },
  "consensus-key-in-use": { status: 409, title: "The public key is already registered to another office" },
  "consensus-session-closed": { status: 409, title: "The session is closed" },
  "consensus-already-voted": { status: 409, title: "The participant has already voted" },
  "consensus-voting-closed": { status: 409, title: "The session's ballot is closed" },
  "consensus-proof-exists": { status: 409, title: "The session already has its proof" },
  "consensus-proof-state": { status: 409, title: "The proof is not in the state this step needs" },
  "consensus-already-signed": { status: 409, title: "The participant has already signed the proof" },
  "consensus-outcome-disagrees": { status: 409, title: "The outcome disagrees with the signed votes" },
  "consensus-cycle-regressed": { status: 409, title: "The cycle cannot go back" },
  "consensus-invalid-key": { status: 422, title: "Not a valid Ed25519 public key" },
  "consensus-unknown-office": { status: 422, title: "Not a registered office" },
  "consensus-gi-unmeasured": { status: 422, title: "The office has no measured office integrity" },
  "consensus-gi-below-minimum": { status: 422, title: "Office integrity below the minimum of 0.95" },
  "consensus-priority-mix": {
    status: 422,
    title: "A session needs two critical-priority and two high-priority offices",
  },
  "consensus-round-participant": { status: 422, title: "A round has a statement by a non-participant" },
  "consensus-validator-is-participant": { status: 422, title: "The validator takes part in the session" },
  "consensus-proof-mismatch": { status: 422, title: "The proof belongs to another session" },
  "consensus-not-a-participant": { status: 403, title: "Not a participant of the session" },
  "consensus-bad-signature": { status: 403, title: "The signature is not the registered key's" },
} as const satisfies Record<ConsensusProblemSlug, { status: number; title: string }>;

/** The refusal's tally (core/consensus/rules.ts Tally). */
export const TallyMember = z.strictObject({
  participants: z.number().int().nonnegative(),
  voted: z.number().int().nonnegative(),
  approve: z.number().int().nonnegative(),
  reject: z.number().int().nonnegative(),
  abstain: z.number().int().nonnegative(),
  outcome: z.enum(["APPROVED", "REJECTED", "NO_QUORUM"]),
});

/** Members a few problem types always carry besides `code`. */
const SPECIFIC: Partial<Record<RefusalCode, Record<string, z.ZodType>>> = {
  "outcome-disagrees": { tally: TallyMember, requested: z.string() },
  "gi-below-minimum": {
    office: z.string(),
    gi: z.number(),
    minimum: z.number(),
    below: z
      .array(z.strictObject({ office: z.string(), gi: z.number() }))
      .min(1)
      .optional(),
  },
  "proof-state": { state: z.enum(["generated", "model-signed", "validator-signed", "sealed"]) },
};

/** Extension members of each consensus problem type: `code`, and the refusal's details. */
export const CONSENSUS_PROBLEM_EXTENSIONS = Object.fromEntries(
  (Object.keys(REFUSAL_KIND) as RefusalCode[]).map((code) => [
    consensusProblemSlug(code),
    {
      code: z.literal(code).openapi({ description: "The refusal code (core/consensus/refusal.ts)" }),
      ...SPECIFIC[code],
    },
  ]),
) as unknown as Record<ConsensusProblemSlug, Record<string, z.ZodType>>;
