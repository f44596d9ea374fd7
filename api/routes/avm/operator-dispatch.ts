/**
 * The AVM operator commands over HTTP (POST /avm/operator/<command>, the `npm run avm` commands):
 * which core/avm/operations.ts operation each command runs on the registry at the ledger's tail,
 * and what it answers. issue-token is not here: it signs a token first (api/routes/avm/issue-token.ts).
 */
import * as ops from "../../../core/avm/operations.ts";
import type { AvmRegistry } from "../../../core/avm/registry.ts";

/** The operator commands, in the order the API description lists them. */
export const OPERATOR_COMMANDS = [
  "register-identity",
  "register-companion",
  "lock-stake",
  "withdraw-stake",
  "record-drift",
  "report-violation",
  "signal-concern",
  "issue-token",
  "revoke-token",
] as const;
export type OperatorCommand = (typeof OPERATOR_COMMANDS)[number];

/** The operation a command names, on the registry at the tail (its input already validated by the route). */
export function operate(
  name: Exclude<OperatorCommand, "issue-token">,
  registry: AvmRegistry,
  input: Record<string, unknown>,
  nowMs: number,
): ops.Operation<object> {
  const i = input as never;
  switch (name) {
    case "register-identity":
      return ops.registerIdentity(registry, i);
    case "register-companion":
      return ops.registerCompanion(registry, i);
    case "lock-stake":
      return ops.lockStake(registry, i);
    case "withdraw-stake":
      return ops.withdrawStake(registry, i, nowMs);
    case "record-drift":
      return withLedgerId(ops.recordDrift(registry, i, nowMs), input);
    case "report-violation":
      return withLedgerId(ops.reportViolation(registry, i, nowMs), input);
    case "signal-concern":
      return withLedgerId(ops.signalConcern(registry, i, nowMs), input);
    case "revoke-token": {
      const op = ops.revokeToken(registry, i);
      return op.ok ? { ...op, result: { ...op.result, revoked: true } } : op;
    }
  }
}

function withLedgerId(op: ops.Operation<{ revoked: boolean }>, input: Record<string, unknown>): ops.Operation<object> {
  return op.ok ? { ...op, result: { ledger_id: input.ledger_id as string, ...op.result } } : op;
}
