/**
 * `npm run consensus -- <command>`: consensus offices and deliberation proofs from the command line.
 *
 *   register-office --id ID --priority critical|high --cathedral CATHEDRAL --public-key HEX
 *                         register a sentinel as a consensus office (Ed25519 key, 64 hex digits);
 *                         one JSON line on success
 *   export-proof DELIB_ID [--out FILE]   write a sealed proof's file (stdout without --out)
 *   export-proof --all DIR               write every sealed proof to DIR/<delib_id>.json
 *   verify-proof FILE [--ledger-export DIR] [--key KEY]
 *                         check a proof file offline: signatures against the keys registered on
 *                         the ledger (the export in DIR, else the local ledger), the validator and
 *                         its GI, the Merkle root, the seal's inclusion in a checkpoint signed by
 *                         KEY (hex Ed25519 key, note verifier key, or a file of verifier keys;
 *                         default: the published data/keys/ledger.vkey and this installation's
 *                         own ledger key — store/known-keys.ts); the output names the key that verified
 *
 * The ledger is `--db PATH`, else LEDGER_DB, else STATE_DIR/ledger.sqlite. Exit status: 0 done,
 * 1 refused or failed (the reason on stderr), 2 bad usage.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { parseVerifierKey, type NoteVerifier } from "../core/checkpoint.ts";
import { decideRegisterOffice } from "../core/consensus/decide.ts";
import { consensusProjection } from "../core/consensus/state.ts";
import { verifyProofFile } from "../core/consensus/verify-proof.ts";
import { OfficeRegistration } from "../core/schemas/consensus.ts";
import { foldExport, sealedProofFile } from "../store/consensus-registry.ts";
import { describeKey, knownLedgerKeys, PUBLISHED_LEDGER_VKEY, signedBy } from "../store/known-keys.ts";
import { coverTail } from "../store/ledger/entry-inclusion.ts";
import { EXPORT_CHECKPOINT, EXPORT_LINES, verifyExport } from "../store/ledger-jsonl.ts";
import {
  LEDGER_ORIGIN,
  defaultLedgerPath,
  ledgerExists,
  openLedger,
  openLedgerStore,
  shownLocation,
} from "../store/open-ledger.ts";
import { formatIssues } from "../core/zod-issues.ts";
import { UsageError } from "../core/errors.ts";

const USAGE = `usage: npm run consensus -- register-office --id ID --priority critical|high --cathedral CATHEDRAL --public-key HEX
       npm run consensus -- export-proof DELIB_ID [--out FILE] | export-proof --all DIR
       npm run consensus -- verify-proof FILE [--ledger-export DIR] [--key KEY]
       (each takes --db PATH; default LEDGER_DB or STATE_DIR/ledger.sqlite)`;

type Values = {
  db?: string;
  id?: string;
  priority?: string;
  cathedral?: string;
  "public-key"?: string;
  out?: string;
  all?: string;
  "ledger-export"?: string;
  key?: string;
};

function ledgerPath(values: Values, env: NodeJS.ProcessEnv): string {
  return values.db ?? defaultLedgerPath(env);
}

async function registerOffice(
  values: Values,
  env: NodeJS.ProcessEnv,
  out: (line: string) => void,
  err: (line: string) => void,
): Promise<number> {
  for (const flag of ["id", "priority", "cathedral", "public-key"] as const) {
    if (values[flag] === undefined) throw new UsageError(`register-office needs --${flag}`);
  }
  const parsed = OfficeRegistration.safeParse({
    id: values.id,
    priority: values.priority,
    cathedral: values.cathedral,
    public_key: values["public-key"],
  });
  if (!parsed.success) {
    const flag: Record<string, string> = {
      id: "--id",
      priority: "--priority",
      cathedral: "--cathedral",
      public_key: "--public-key",
    };
    throw new UsageError(
      formatIssues(
        parsed.error.issues.map((i) => ({ path: [flag[String(i.path[0])] ?? "input"], message: i.message })),
      ),
    );
  }
  const { ledger } = await openLedger({ path: ledgerPath(values, env), env, log: err });
  try {
    // Folded from the ledger and decided against its tail. (The API runs the same decision inside
    // one store transaction; the registry also ignores a second office claiming a key, so even two
    // racing registrations cannot make one key count twice.)
    const decision = decideRegisterOffice(await ledger.state(consensusProjection), parsed.data);
    if (!decision.ok) {
      err(`consensus: register-office refused (${decision.refusal.code}): ${decision.refusal.message}`);
      return 1;
    }
    const [entry] = await ledger.append(decision.events);
    out(
      JSON.stringify({
        registered: parsed.data.id,
        priority: parsed.data.priority,
        cathedral: parsed.data.cathedral,
        public_key: parsed.data.public_key,
        seq: entry!.seq,
        ts: entry!.ts,
      }),
    );
    return 0;
  } finally {
    await ledger.close();
  }
}

async function exportProof(
  values: Values,
  delibId: string | undefined,
  env: NodeJS.ProcessEnv,
  out: (line: string) => void,
  err: (line: string) => void,
): Promise<number> {
  if ((delibId === undefined) === (values.all === undefined))
    throw new UsageError("export-proof needs a DELIB_ID or --all DIR");
  const path = ledgerPath(values, env);
  if (!(await ledgerExists(path))) throw new UsageError(`no ledger at ${shownLocation(path)}`);
  const { ledger } = await openLedger({ path, env, log: err });
  try {
    const state = await ledger.state(consensusProjection);
    await coverTail(ledger); // an operator command may sign: every seal read below is then covered
    if (values.all !== undefined) {
      mkdirSync(values.all, { recursive: true });
      let n = 0;
      for (const [id, proof] of state.proofs) {
        if (!proof.seal) continue;
        writeFileSync(join(values.all, `${id}.json`), (await sealedProofFile(ledger, state, id))!);
        n += 1;
      }
      out(`exported ${n} sealed proofs to ${values.all}`);
      return 0;
    }
    const text = await sealedProofFile(ledger, state, delibId!);
    if (text === null) {
      const proof = state.proofs.get(delibId!);
      err(proof ? `consensus: proof ${delibId} is not sealed yet` : `consensus: the ledger has no proof ${delibId}`);
      return 1;
    }
    if (values.out !== undefined) writeFileSync(values.out, text);
    else process.stdout.write(text);
    return 0;
  } finally {
    await ledger.close();
  }
}

/** `--key`: a hex key (named by the checkpoint's origin), a verifier key, or a file of verifier keys. */
function checkpointKeys(values: Values, env: NodeJS.ProcessEnv, checkpointNote: string): NoteVerifier[] {
  const origin = checkpointNote.split("\n")[0] ?? "";
  const key = values.key;
  if (key === undefined) {
    // No --key: the published keys and this installation's own (store/known-keys.ts).
    const known = knownLedgerKeys(env);
    if (known.length === 0)
      throw new UsageError(
        `no key to check the checkpoint with: no ${PUBLISHED_LEDGER_VKEY} and no key of this installation; pass --key (the ledger's public key)`,
      );
    return known;
  }
  if (/^[0-9a-f]{64}$/.test(key)) return [{ name: origin, publicKeyHex: key }];
  try {
    if (existsSync(key))
      return readFileSync(key, "utf8")
        .split("\n")
        .filter((l) => l.trim() !== "")
        .map((l) => parseVerifierKey(l.trim()));
    return [parseVerifierKey(key)];
  } catch (error) {
    throw new UsageError(`--key: ${(error as Error).message}`);
  }
}

async function verifyProof(
  values: Values,
  file: string | undefined,
  env: NodeJS.ProcessEnv,
  out: (line: string) => void,
  err: (line: string) => void,
): Promise<number> {
  if (file === undefined) throw new UsageError("verify-proof needs a FILE");
  if (!existsSync(file)) throw new UsageError(`${file}: no such file`);
  const bytes = new Uint8Array(readFileSync(file));
  let note = "";
  try {
    const doc = JSON.parse(new TextDecoder().decode(bytes)) as { anchor?: { checkpoint?: unknown } };
    if (typeof doc.anchor?.checkpoint === "string") note = doc.anchor.checkpoint;
  } catch {
    // Not JSON: the verifier names it (canonical-form).
  }
  const keys = checkpointKeys(values, env, note);

  let state;
  const dir = values["ledger-export"];
  if (dir !== undefined) {
    for (const f of [EXPORT_LINES, EXPORT_CHECKPOINT])
      if (!existsSync(join(dir, f))) throw new UsageError(`${join(dir, f)} is missing`);
    const report = await verifyExport(dir, keys);
    if (!report.ok) {
      err(`FAILED: ledger export ${dir}: ${report.problems.map((p) => `seq ${p.seq}: ${p.problem}`).join("; ")}`);
      return 1;
    }
    state = await foldExport(dir);
  } else {
    const path = ledgerPath(values, env);
    if (!(await ledgerExists(path)))
      throw new UsageError(`no ledger at ${shownLocation(path)} (pass --ledger-export DIR to check against an export)`);
    const ledger = await openLedgerStore({ path, origin: LEDGER_ORIGIN });
    try {
      state = await ledger.state(consensusProjection);
    } finally {
      await ledger.close();
    }
  }

  const result = verifyProofFile(bytes, { ledger: state, checkpointKeys: keys });
  if (!result.ok) {
    err(`FAILED: ${file}: ${result.message}`);
    return 1;
  }
  const by = signedBy(note, keys);
  out(
    `ok: ${file}: proof ${result.delib_id} of session ${result.session_id} verified (${result.checks.join(", ")})${by ? `; checkpoint signed by ${describeKey(by)}` : ""}`,
  );
  return 0;
}

export async function main(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  out = console.log,
  err = console.error,
): Promise<number> {
  try {
    let parsed;
    try {
      parsed = parseArgs({
        args: [...argv],
        options: {
          db: { type: "string" },
          id: { type: "string" },
          priority: { type: "string" },
          cathedral: { type: "string" },
          "public-key": { type: "string" },
          out: { type: "string" },
          all: { type: "string" },
          "ledger-export": { type: "string" },
          key: { type: "string" },
        },
        allowPositionals: true,
        strict: true,
      });
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    const values = parsed.values as Values;
    const [command, arg, extra] = parsed.positionals;
    if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`);
    switch (command) {
      case "register-office":
        if (arg !== undefined) throw new UsageError(`unexpected argument "${arg}"`);
        return await registerOffice(values, env, out, err);
      case "export-proof":
        return await exportProof(values, arg, env, out, err);
      case "verify-proof":
        return await verifyProof(values, arg, env, out, err);
      default:
        throw new UsageError(command === undefined ? "no command" : `unknown command "${command}"`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      err(`consensus: ${error.message}\n${USAGE}`);
      return 2;
    }
    err(`consensus: ${(error as Error).message}`);
    return 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  process.exitCode = await main(process.argv.slice(2));
