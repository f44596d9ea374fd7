/**
 * `npm run avm -- <command>`: the AVM's operator commands. Each is one conditional write on the
 * ledger (LEDGER_DB, or STATE_DIR/ledger.sqlite): inside the write transaction the registry is
 * caught up to the tail, the operation of core/avm/operations.ts decides, and its events — with the
 * automatic revocations they trigger — are appended; then it prints one JSON line. Bad input
 * exits 2 with a message naming what is wrong, and appends nothing.
 *
 *   register-identity  --algorithm ed25519|secp256k1 --public-key HEX --role ROLE --reputation R
 *   register-companion --companion-id ID --algorithm ALG --public-key HEX
 *   lock-stake         --ledger-id UUID --amount MIC [--accept-slashing]
 *   withdraw-stake     --ledger-id UUID --amount MIC
 *   issue-token        --subject ID --permission P [--permission P …] [--ttl SECONDS]
 *   revoke-token       --jti UUID --reason TEXT
 *   revoke             --ledger-id UUID --reason REASON --evidence-hash sha256:HEX
 *   record-drift       --ledger-id UUID --drift-score D --source ID
 *   report-violation   --ledger-id UUID --evidence-hash sha256:HEX --detected-by ID
 *   signal-concern     --companion-id ID --ledger-id UUID --evidence-hash sha256:HEX
 *   check              --ledger-id UUID          (reads only: the check response now)
 *
 * A token is printed once, on stdout, and never stored: the ledger records its jti and claims.
 */
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import * as ops from "../core/avm/operations.ts";
import { avmRegistry, checkAuthority, type AvmRegistry } from "../core/avm/registry.ts";
import { signToken } from "../core/avm/token.ts";
import { loadSigningKey, TOKEN_KEY } from "../store/keys.ts";
import { openLedger, stateDir } from "../store/open-ledger.ts";
import { UsageError } from "../core/errors.ts";

const OPTIONS = {
  algorithm: { type: "string" },
  "public-key": { type: "string" },
  role: { type: "string" },
  reputation: { type: "string" },
  "companion-id": { type: "string" },
  "ledger-id": { type: "string" },
  amount: { type: "string" },
  "accept-slashing": { type: "boolean" },
  subject: { type: "string" },
  permission: { type: "string", multiple: true },
  ttl: { type: "string" },
  jti: { type: "string" },
  reason: { type: "string" },
  "evidence-hash": { type: "string" },
  "drift-score": { type: "string" },
  source: { type: "string" },
  "detected-by": { type: "string" },
} as const;
type Option = keyof typeof OPTIONS;
type Values = { [K in Option]?: K extends "accept-slashing" ? boolean : K extends "permission" ? string[] : string };

/** Each command: required and optional options. */
const COMMANDS: Record<string, { required: Option[]; optional?: Option[] }> = {
  "register-identity": { required: ["algorithm", "public-key", "role", "reputation"] },
  "register-companion": { required: ["companion-id", "algorithm", "public-key"] },
  "lock-stake": { required: ["ledger-id", "amount"], optional: ["accept-slashing"] },
  "withdraw-stake": { required: ["ledger-id", "amount"] },
  "issue-token": { required: ["subject", "permission"], optional: ["ttl"] },
  "revoke-token": { required: ["jti", "reason"] },
  revoke: { required: ["ledger-id", "reason", "evidence-hash"] },
  "record-drift": { required: ["ledger-id", "drift-score", "source"] },
  "report-violation": { required: ["ledger-id", "evidence-hash", "detected-by"] },
  "signal-concern": { required: ["companion-id", "ledger-id", "evidence-hash"] },
  check: { required: ["ledger-id"] },
};

const USAGE = `usage: npm run avm -- <${Object.keys(COMMANDS).join("|")}> [options] (see cli/avm-cli.ts)`;

function fail(message: string): never {
  throw new UsageError(message);
}

/** A JSON number's text as a number (the CLI's --reputation, --drift-score). */
function number(text: string, name: string): number {
  if (!/^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/.test(text))
    fail(`--${name} must be a number, got ${JSON.stringify(text)}`);
  return Number(text);
}

function integer(text: string, name: string): number {
  if (!/^[1-9][0-9]{0,9}$/.test(text)) fail(`--${name} must be a positive whole number, got ${JSON.stringify(text)}`);
  return Number(text);
}

/** An operation's message names input fields (`ledger_id: …`); here they are options (`--ledger-id: …`). */
function asOptions(message: string): string {
  const option: Record<string, string> = {
    permissions: "permission",
    ttl_seconds: "ttl",
    slashing_conditions_accepted: "accept-slashing",
  };
  return message.replace(
    /(^|; )([a-z_]+)((?:\.\d+)?):/g,
    (_m, start: string, field: string, index: string) =>
      `${start}--${option[field] ?? field.replaceAll("_", "-")}${index}:`,
  );
}

function parse(argv: string[]): { command: string; values: Values } {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    fail((error as Error).message);
  }
  const [command, ...extra] = parsed.positionals;
  if (!command) fail(USAGE);
  const spec = COMMANDS[command];
  if (!spec) fail(`unknown command ${JSON.stringify(command)}\n${USAGE}`);
  if (extra.length > 0) fail(`unexpected argument ${JSON.stringify(extra[0])}`);
  const values = parsed.values as Values;
  for (const name of Object.keys(values) as Option[]) {
    if (!spec.required.includes(name) && !spec.optional?.includes(name)) fail(`${command} takes no --${name}`);
  }
  for (const name of spec.required) if (values[name] === undefined) fail(`${command} needs --${name}`);
  return { command, values };
}

interface Plan {
  /** The operation's result, or a refusal. */
  op: ops.Operation<object>;
  /** The JSON line, given the seq of the first appended entry. */
  line: (seq: number | null) => Record<string, unknown>;
}

function plan(command: string, v: Values, registry: AvmRegistry, nowMs: number): Plan {
  const withSeq = (result: Record<string, unknown>) => (seq: number | null) => ({ ...result, seq });
  switch (command) {
    case "register-identity": {
      const input = {
        algorithm: v.algorithm!,
        public_key: v["public-key"]!,
        role: v.role!,
        reputation: number(v.reputation!, "reputation"),
      };
      const op = ops.registerIdentity(registry, input as Parameters<typeof ops.registerIdentity>[1]);
      return {
        op,
        line: (seq) => ({
          ...(op.ok ? op.result : {}),
          algorithm: input.algorithm,
          public_key: input.public_key,
          role: input.role,
          reputation: input.reputation,
          seq,
        }),
      };
    }
    case "register-companion": {
      const input = { companion_id: v["companion-id"]!, algorithm: v.algorithm!, public_key: v["public-key"]! };
      const op = ops.registerCompanion(registry, input as Parameters<typeof ops.registerCompanion>[1]);
      return { op, line: withSeq({ ...input }) };
    }
    case "lock-stake": {
      const op = ops.lockStake(registry, {
        ledger_id: v["ledger-id"]!,
        amount: v.amount!,
        slashing_conditions_accepted: v["accept-slashing"] === true,
      });
      return {
        op,
        line: (seq) => ({
          ...(op.ok ? op.result : {}),
          slashing_conditions_accepted: v["accept-slashing"] === true,
          seq,
        }),
      };
    }
    case "withdraw-stake": {
      const op = ops.withdrawStake(registry, { ledger_id: v["ledger-id"]!, amount: v.amount! }, nowMs);
      return { op, line: (seq) => ({ ...(op.ok ? op.result : {}), seq }) };
    }
    case "revoke-token": {
      const op = ops.revokeToken(registry, { jti: v.jti!, reason: v.reason! });
      return { op, line: (seq) => ({ ...(op.ok ? op.result : {}), revoked: true, seq }) };
    }
    case "revoke": {
      const input = { ledger_id: v["ledger-id"]!, reason: v.reason!, evidence_hash: v["evidence-hash"]! };
      const op = ops.revokeAuthority(registry, input as Parameters<typeof ops.revokeAuthority>[1], nowMs);
      return { op, line: (seq) => ({ ledger_id: input.ledger_id, ...(op.ok ? op.result : {}), seq }) };
    }
    case "record-drift": {
      const op = ops.recordDrift(
        registry,
        { ledger_id: v["ledger-id"]!, drift_score: number(v["drift-score"]!, "drift-score"), source: v.source! },
        nowMs,
      );
      return { op, line: (seq) => ({ ledger_id: v["ledger-id"], ...(op.ok ? op.result : {}), seq }) };
    }
    case "report-violation": {
      const op = ops.reportViolation(
        registry,
        { ledger_id: v["ledger-id"]!, evidence_hash: v["evidence-hash"]!, detected_by: v["detected-by"]! },
        nowMs,
      );
      return { op, line: (seq) => ({ ledger_id: v["ledger-id"], ...(op.ok ? op.result : {}), seq }) };
    }
    case "signal-concern": {
      const op = ops.signalConcern(
        registry,
        { companion_id: v["companion-id"]!, ledger_id: v["ledger-id"]!, evidence_hash: v["evidence-hash"]! },
        nowMs,
      );
      return { op, line: (seq) => ({ ledger_id: v["ledger-id"], ...(op.ok ? op.result : {}), seq }) };
    }
    case "check": {
      const result = checkAuthority(registry, v["ledger-id"]!, nowMs);
      return {
        op: { ok: true, events: [], result: { ...result } },
        line: () => ({ ledger_id: v["ledger-id"], ...result }),
      };
    }
    default:
      return fail(`unknown command ${JSON.stringify(command)}`);
  }
}

type IssueInput = Parameters<typeof ops.issueToken>[1];

/** issue-token: the claims (a fresh jti, now) and the signed token, before the registry is read. */
async function signedToken(
  v: Values,
  nowMs: number,
  env: NodeJS.ProcessEnv,
): Promise<{ input: IssueInput; line: Record<string, unknown> }> {
  const input = {
    jti: randomUUID(),
    subject: v.subject!,
    permissions: v.permission! as IssueInput["permissions"],
    ...(v.ttl !== undefined ? { ttl_seconds: integer(v.ttl, "ttl") } : {}),
  };
  // The same operation against an empty registry checks the input (a jti is new by construction).
  const op = ops.issueToken(avmRegistry.initial(), input, nowMs);
  if (!op.ok) fail(asOptions(op.message));
  const claims = op.result.claims;
  const key = loadSigningKey(TOKEN_KEY, stateDir(env), env, (m) => process.stderr.write(`${m}\n`));
  const token = await signToken(claims, key.secretKeyHex);
  process.stderr.write(
    `token ${claims.jti} for ${claims.sub} (${claims.permissions.join(", ")}), expires ${new Date(claims.exp * 1000).toISOString()}\n`,
  );
  return { input, line: { token } };
}

async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const { command, values } = parse(argv);
  const { ledger } = await openLedger({ env, log: (m) => process.stderr.write(`${m}\n`) });
  try {
    const nowMs = Date.now();
    // A token is signed before anything is appended (a token whose signing failed is never
    // recorded as issued); its claims do not depend on the registry, only its recording does.
    const signed = command === "issue-token" ? await signedToken(values, nowMs, env) : null;
    // One conditional write: the registry is caught up to the tail inside the write transaction,
    // so the operation — and the automatic revocations it entails — is decided against every entry
    // any process appended before it, and nothing can slip in between the decision and its record.
    const written = await ledger.write((tail) => {
      const registry = tail.state(avmRegistry);
      const { op, line } = signed
        ? { op: ops.issueToken(registry, signed.input, nowMs), line: () => signed.line }
        : plan(command, values, registry, nowMs);
      if (!op.ok) fail(asOptions(op.message));
      return { events: op.events, result: line };
    });
    const out = written.result(written.entries[0]?.seq ?? null);
    process.stdout.write(`${JSON.stringify(out)}\n`);
  } finally {
    await ledger.close();
  }
}

main(process.argv.slice(2), process.env).then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`avm: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(error instanceof UsageError ? 2 : 1);
  },
);
