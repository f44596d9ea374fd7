/**
 * The one mapping from the domains' codes to HTTP problems (RFC 9457, api/problems/problem.ts). A domain
 * says why it refused with a code of its own union (core/errors.ts CodedError, a consensus
 * refusal, an AVM operation's refusal, a balance lookup's failure); only this module turns a code into a problem type, so a
 * route never picks a status by hand for a domain's refusal.
 */
import type { Context } from "hono";
import type { OperationErrorCode } from "../../core/avm/operations.ts";
import type { ConsensusRefusal } from "../../core/consensus/refusal.ts";
import { hasCode } from "../../core/errors.ts";
import { REVIEW_ENDS, SUNSET_AT } from "../../core/migration/phases.ts";
import { historicalPath, successorLink, successorPath, type BalanceFailure } from "../sources/balances.ts";
import { consensusProblemSlug } from "./consensus.ts";
import { problem, type ProblemSlug } from "./problem.ts";
import { storeUnavailable } from "./store-failure.ts";

/** The problem type of each refusal code of the AVM operations (core/avm/operations.ts). */
export const OPERATION_PROBLEMS: Readonly<Record<OperationErrorCode, ProblemSlug>> = {
  invalid: "invalid-body",
  not_found: "not-found",
  conflict: "conflict",
};

/** An AVM operation's refusal as its problem. */
export function operationRefused(c: Context, failure: { code: OperationErrorCode; message: string }): Response {
  return problem(c, OPERATION_PROBLEMS[failure.code], failure.message);
}

/** A consensus refusal as its problem `consensus-<code>` (api/problems/consensus.ts), its details as members. */
export function consensusRefused(c: Context, r: ConsensusRefusal): Response {
  return problem(c, consensusProblemSlug(r.code), r.message, { extensions: { code: r.code, ...r.details } });
}

/**
 * A ledger write that threw: a money event inside the migration freeze window (LedgerAppendError
 * `migration-freeze`) is 409 `conflict`; a store that cannot be written is 503
 * `ledger-unavailable`; anything else is a bug and is rethrown to the app's 500 handler.
 */
export function writeFailed(c: Context, error: unknown): Response {
  if (hasCode(error, "migration-freeze")) return problem(c, "conflict", (error as Error).message);
  return storeUnavailable(c, error);
}

/**
 * A balance lookup's failure (api/sources/balances.ts BalanceFailure) as its problem. `no-snapshot` and
 * `unknown-address` depend on what was asked: a balance that needs the snapshot is 503
 * `data-unverified`, a proof with nothing published is 404 `not-found`.
 */
export function balanceRefused(c: Context, address: string, failure: BalanceFailure): Response {
  const proof = failure.asked === "proof";
  switch (failure.code) {
    case "ledger-unavailable":
    case "data-unverified":
      return problem(c, failure.code, failure.detail);
    case "no-snapshot":
      return proof
        ? problem(c, "not-found", "no migration snapshot is published on this server yet")
        : problem(
            c,
            "data-unverified",
            `the ${failure.phase} phase answers from the migration snapshot, and no verified snapshot is published on this server`,
          );
    case "unknown-address":
      return proof
        ? problem(c, "unknown-address", `${address} is not in the published migration tree (see mismatches.jsonl)`)
        : problem(c, "unknown-address", `${address} holds no balance (${failure.asked}, ${failure.phase} phase)`);
    case "not-yet":
      return problem(
        c,
        "not-found",
        `v2 balances do not exist before the transition (${REVIEW_ENDS}); use /v1/balance/${address} or /balance/${address}`,
      );
    case "gone": {
      const gone = goneProblem(address);
      return problem(c, "gone", gone.detail, { headers: gone.headers, extensions: gone.extensions });
    }
  }
}

/** The retired v1 balance's `gone` answer for an address (also the API reference's example of it). */
export function goneProblem(address: string): {
  detail: string;
  extensions: Record<string, string>;
  headers: Record<string, string>;
} {
  return {
    detail: `v1 was retired at the sunset (${SUNSET_AT}): the balance is at ${successorPath(address)}; the historical v1 balance stays readable with its inclusion proof at ${historicalPath(address)}`,
    extensions: { successor: successorPath(address), historical: historicalPath(address) },
    headers: { Link: successorLink(address) },
  };
}

/** Seconds a client refused for a failed limits store is asked to wait. */
export const LIMITS_RETRY_AFTER_S = 5;

/**
 * A limited route whose shared limits store failed (store/limits.ts LimitsUnavailableError): 503
 * `limits-unavailable` with Retry-After — a refusal, never a pass (fail closed: an unchecked
 * request could exceed every quota). The store's error goes to the request's log line, never to
 * the client. Anything else is rethrown to the app's 500 handler.
 */
export function limitsUnavailable(c: Context, error: unknown): Response {
  if (!hasCode(error, "limits-unavailable")) throw error;
  c.set("storeFailure", error.message);
  return problem(
    c,
    "limits-unavailable",
    "The request limits cannot be checked right now, so this request is not answered. Try again later.",
    {
      headers: { "Retry-After": String(LIMITS_RETRY_AFTER_S) },
    },
  );
}
