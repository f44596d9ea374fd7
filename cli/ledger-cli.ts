/**
 * `npm run ledger -- <command>`: inspect, verify, checkpoint and export the ledger.
 *
 *   info                         size, root, origin, newest checkpoint
 *   verify [--db PATH]           re-derive every entry, subtree and checkpoint; exit 1 naming each broken seq
 *   checkpoint [--db PATH]       sign a checkpoint of the current tree and print it
 *   export DIR [--db PATH]       write DIR/ledger.jsonl and DIR/checkpoint
 *   verify-export DIR [--key KEY]  verify an export offline; KEY is a hex Ed25519 public key, a note
 *                                verifier key "<name>+<keyid>+<base64>", or a file of them
 *   inclusion SEQ [--size N]     print the inclusion proof of entry SEQ (base64, one per line)
 *   consistency OLD [--size N]   print the consistency proof from size OLD
 *   verify-consistency OLD NEW --proof FILE [--key KEY]
 *                                check offline that checkpoint NEW extends checkpoint OLD (the proof
 *                                is the `consistency` command's output); KEY may be a .vkey file
 *   copy --to postgres://URL     copy the ledger (LEDGER_DB, DATABASE_URL or --db) into a PostgreSQL
 *                                database that is empty or holds a prefix of it, then prove the copy:
 *                                same size, root and newest checkpoint, verify() clean; exit 0 only then
 *                                (with --ledger access: the access ledger, into the database's `access` schema)
 *   setup [--app-role ROLE]      as the role that is to own the tables (DATABASE_URL or --db postgres://…):
 *                                create or complete the ledger's, the access ledger's and the limits'
 *                                tables, and grant ROLE — the role the API instances run as — only
 *                                what they use (store/drivers/postgres/setup.ts; docs/postgresql.md)
 *   vkey                         print this installation's ledger key (note verifier key), last line
 *   witness --policy FILE [--checkpoint FILE] [--data DIR] [--timeout MS]
 *                                get the latest checkpoint cosigned by the C2SP tlog-policy's
 *                                witnesses; print it and publish it only when the quorum is met
 *                                (cli/ledger-witness.ts)
 *   append TYPE 'PAYLOAD-JSON'   append one event (validated against the registry) with the automatic
 *                                revocations it triggers, and print {"seq": N, "hash": "sha256:…"}
 *
 * Every command but the two offline checks (verify-export, verify-consistency) works on LEDGER_DB (default STATE_DIR/ledger.sqlite) or --db PATH.
 *
 * `--ledger access` works on the access ledger (API keys and the keyed-access audit log) instead.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { avmRegistry } from "../core/avm/registry.ts";
import { automaticRevocations } from "../core/avm/revocation.ts";
import { parseVerifierKey, verifyCheckpoint, type NoteVerifier } from "../core/checkpoint.ts";
import { verifyConsistency } from "../core/merkle.ts";
import { describeKey, knownLedgerKeys, PUBLISHED_LEDGER_VKEY, signedBy } from "../store/known-keys.ts";
import { formatDigest } from "../core/digest.ts";
import type { JsonObject } from "../core/ledger/entry.ts";
import { EVENT_TYPES, isEventType, validateEvent } from "../core/events/registry.ts";
import type { NewEvent } from "../core/ledger/store.ts";
import type { VerifyReport } from "../core/ledger/verify.ts";
import { EXPORT_CHECKPOINT, EXPORT_LINES, exportLedger, verifyExport } from "../store/ledger-jsonl.ts";
import { COPY_BATCH, copyLedger, proveCopy } from "../store/ledger-copy.ts";
import { setupPostgres } from "../store/drivers/postgres/setup.ts";
import { resolveStoreLocation } from "../store/store-location.ts";
import {
  defaultLedgerPath,
  isPostgresLocation,
  LEDGER_ORIGIN,
  ledgerBackend,
  ledgerExists,
  openLedger,
  shownLocation,
} from "../store/open-ledger.ts";
import { ledgerVkey, witnessCommand } from "./ledger-witness.ts";
import {
  ACCESS_ORIGIN,
  ACCESS_SCHEMA,
  accessLedgerExists,
  accessLedgerPath,
  accessSigningKey,
  openAccessLedgerStore,
} from "../store/access-ledger.ts";

async function openedAccessLedger(path: string, log: (m: string) => void) {
  const key = accessSigningKey(process.env, log);
  return { ledger: await openAccessLedgerStore(path, { key }), key };
}

const USAGE = `usage: npm run ledger -- <info|verify|checkpoint|export DIR|verify-export DIR [--key KEY]|inclusion SEQ|consistency OLD|verify-consistency OLD NEW --proof FILE [--key KEY]|copy --to postgres://URL|vkey|witness --policy FILE [--checkpoint FILE] [--data DIR] [--timeout MS]|append TYPE 'PAYLOAD-JSON'|setup [--app-role ROLE]> [--db PATH] [--size N] [--ledger main|access]`;

function fail(message: string): never {
  process.stderr.write(`ledger: ${message}\n`);
  process.exit(2);
}

function printReport(report: VerifyReport, what: string): void {
  if (report.ok) {
    console.log(`ok: ${what} verified — ${report.size} entries, root ${formatDigest(report.rootHash)}`);
    return;
  }
  console.log(`FAILED: ${what} has ${report.problems.length} problem(s):`);
  for (const p of report.problems) console.log(`  seq ${p.seq}: ${p.problem}`);
}

function integer(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^(0|[1-9][0-9]*)$/.test(value)) fail(`${name} must be a non-negative integer, got "${value}"`);
  return Number(value);
}

/**
 * `--key`: a hex public key (its signer name taken from the checkpoint's origin line), a note
 * verifier key, or a file of verifier keys one per line (data/keys/ledger.vkey).
 */
function verifiersFor(key: string | undefined, checkpointText: string): NoteVerifier[] {
  if (key === undefined) {
    // No --key: the published keys and this installation's own (store/known-keys.ts).
    const known = knownLedgerKeys();
    if (known.length === 0)
      fail(
        `no key to check the checkpoint with: no ${PUBLISHED_LEDGER_VKEY} and no key of this installation; pass --key KEY`,
      );
    return known;
  }
  if (/^[0-9a-f]{64}$/.test(key)) return [{ name: checkpointText.split("\n")[0] ?? "", publicKeyHex: key }];
  const lines = existsSync(key)
    ? readFileSync(key, "utf8")
        .split("\n")
        .map((l) => l.trim())
        .filter((l) => l !== "" && !l.startsWith("#"))
    : [key];
  try {
    return lines.map((line) => parseVerifierKey(line));
  } catch (error) {
    fail(`--key: ${(error as Error).message}`);
  }
}

/**
 * `verify-consistency OLD NEW --proof FILE --key KEY`, offline: both checkpoints verify with KEY, and
 * the proof (the `consistency` command's output) shows NEW's tree extends OLD's.
 */
function verifyConsistencyCommand(
  oldFile: string | undefined,
  newFile: string | undefined,
  proofFile: string | undefined,
  key: string | undefined,
): number {
  if (!oldFile || !newFile || !proofFile)
    fail("verify-consistency needs OLD and NEW checkpoint files and --proof FILE");
  const signers = new Set<string>();
  const [older, newer] = [oldFile, newFile].map((file) => {
    const note = readFileSync(file, "utf8");
    try {
      const verifiers = verifiersFor(key, note);
      const checkpoint = verifyCheckpoint(note, verifiers);
      signers.add(describeKey(signedBy(note, verifiers)!));
      return checkpoint;
    } catch (error) {
      console.log(`FAILED: ${file}: ${(error as Error).message}`);
      return null;
    }
  });
  if (!older || !newer) return 1;
  if (older.origin !== newer.origin) {
    console.log(`FAILED: the checkpoints are of two logs ("${older.origin}", "${newer.origin}")`);
    return 1;
  }
  const proof = readFileSync(proofFile, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => new Uint8Array(Buffer.from(l, "base64")));
  let consistent: boolean;
  try {
    consistent = verifyConsistency(older.size, newer.size, older.rootHash, newer.rootHash, proof);
  } catch {
    consistent = false; // sizes no proof can join (an empty or a larger old tree)
  }
  if (!consistent) {
    console.log(
      `FAILED: the proof does not show that the tree of size ${newer.size} extends the tree of size ${older.size}`,
    );
    return 1;
  }
  console.log(
    `ok: ${newFile} (size ${newer.size}) extends ${oldFile} (size ${older.size}); signed by ${[...signers].join(" and ")}`,
  );
  return 0;
}

/** `append TYPE 'PAYLOAD-JSON'`: the event, checked against the registry; fails naming what is wrong. */
function eventArgument(args: string[]): NewEvent {
  if (args.length !== 2) fail(`append needs exactly TYPE and 'PAYLOAD-JSON', got ${args.length} argument(s)`);
  const [type, text] = args as [string, string];
  if (!isEventType(type)) fail(`append: unknown event type ${JSON.stringify(type)}; types: ${EVENT_TYPES.join(", ")}`);
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch (error) {
    fail(`append: PAYLOAD-JSON is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof payload !== "object" || payload === null || Array.isArray(payload))
    fail("append: PAYLOAD-JSON must be a JSON object");
  const invalid = validateEvent(type, payload);
  if (invalid) fail(`append: ${invalid}`);
  return { type, payload: payload as JsonObject };
}

/**
 * `copy --to URL`: the ledger at `path` into the PostgreSQL database at URL, then the proof; 0 only
 * when proven. With `--ledger access`, the access ledger into that database's `access` schema.
 */
async function copyCommand(
  path: string,
  to: string | undefined,
  log: (m: string) => void,
  access: boolean,
): Promise<number> {
  if (!to || !isPostgresLocation(to)) fail("copy needs --to postgres://… (the PostgreSQL database to copy into)");
  if (to === path) fail("copy: the source and the target are the same database");
  const [origin, schema] = access ? [ACCESS_ORIGIN, { schema: ACCESS_SCHEMA }] : [LEDGER_ORIGIN, {}];
  const [source, target] = [ledgerBackend({ path, ...schema }), ledgerBackend({ path: to, ...schema })];
  let copied;
  try {
    await source.open(origin);
    await target.open(origin);
    let shown = 0;
    copied = await copyLedger(source, target, {
      progress: (done, total) => {
        // A line per ~10% of a big ledger: enough to see it move, not a line per batch.
        if (total > COPY_BATCH && (done - shown >= total / 10 || done === total)) {
          shown = done;
          log(`copied ${done} of ${total} entries`);
        }
      },
    });
  } finally {
    await Promise.allSettled([source.close(), target.close()]);
  }
  console.log(
    `copied ${copied.size - copied.resumedFrom} entries and ${copied.checkpoints} checkpoints from ${source.location} to ${target.location}${copied.resumedFrom > 0 ? ` (the target already held the first ${copied.resumedFrom})` : ""}`,
  );
  const opened = (at: string) => (access ? openedAccessLedger(at, log) : openLedger({ path: at, log }));
  const [from, into] = [await opened(path), await opened(to)];
  try {
    const proof = await proveCopy(from.ledger, into.ledger, copied);
    for (const fact of proof.facts) console.log(fact);
    console.log(proof.ok ? "ok: the copy is proven" : "FAILED: the copy is not proven");
    return proof.ok ? 0 : 1;
  } finally {
    await Promise.allSettled([from.ledger.close(), into.ledger.close()]);
  }
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      db: { type: "string" },
      key: { type: "string" },
      size: { type: "string" },
      ledger: { type: "string" },
      proof: { type: "string" },
      to: { type: "string" },
      "app-role": { type: "string" },
      policy: { type: "string" },
      checkpoint: { type: "string" },
      data: { type: "string" },
      timeout: { type: "string" },
    },
    allowPositionals: true,
    strict: true,
  });
  const [command, arg] = positionals;
  if (!command) fail(USAGE);

  if (command === "vkey") {
    console.log(ledgerVkey());
    return 0;
  }
  if (command === "witness") {
    if (!values.policy) fail("witness needs --policy FILE (a C2SP tlog-policy with the witnesses' URLs)");
    const timeoutMs = integer(values.timeout, "--timeout") ?? 5000;
    const db = values.db ?? defaultLedgerPath();
    if (values.checkpoint === undefined && !(await ledgerExists(db)))
      fail(`no ledger at ${shownLocation(db)}: nothing to witness`);
    return witnessCommand({
      policyFile: values.policy,
      db,
      dataDir: values.data ?? process.env.DATA_DIR ?? "data",
      timeoutMs,
      ...(values.checkpoint !== undefined ? { checkpointFile: values.checkpoint } : {}),
    });
  }
  if (command === "verify-consistency")
    return verifyConsistencyCommand(positionals[1], positionals[2], values.proof, values.key);
  if (command === "verify-export") {
    if (!arg) fail("verify-export needs DIR");
    for (const f of [EXPORT_LINES, EXPORT_CHECKPOINT])
      if (!existsSync(join(arg, f))) fail(`${join(arg, f)} is missing`);
    const note = readFileSync(join(arg, EXPORT_CHECKPOINT), "utf8");
    const verifiers = verifiersFor(values.key, note);
    const report = await verifyExport(arg, verifiers);
    printReport(report, `export ${arg}`);
    const by = signedBy(note, verifiers);
    if (by) console.log(`checkpoint signed by ${describeKey(by)}`);
    return report.ok ? 0 : 1;
  }

  if (command === "setup") {
    const location = resolveStoreLocation(process.env, { db: values.db });
    if (location.driver.kind !== "postgresql")
      fail(
        "setup makes a PostgreSQL database ready: set DATABASE_URL (or --db postgres://…), connecting as the role that is to own the tables",
      );
    const lines = await setupPostgres(location.ledger, {
      ledgerOrigin: LEDGER_ORIGIN,
      accessOrigin: ACCESS_ORIGIN,
      accessSchema: ACCESS_SCHEMA,
      ...(values["app-role"] !== undefined ? { appRole: values["app-role"] } : {}),
    });
    console.log(`set up ${location.shown}:`);
    for (const line of lines) console.log(`  ${line}`);
    return 0;
  }

  // An event to append is checked before the ledger is opened: bad input creates nothing.
  const event = command === "append" ? eventArgument(positionals.slice(1)) : null;
  // --ledger access: the access ledger (API keys and the keyed-access audit log, store/access-ledger.ts).
  if (values.ledger !== undefined && values.ledger !== "main" && values.ledger !== "access")
    fail(`--ledger must be main or access, got "${values.ledger}"`);
  const access = values.ledger === "access";
  const path = values.db ?? (access ? accessLedgerPath() : defaultLedgerPath());
  if (
    !["export", "checkpoint", "append"].includes(command) &&
    !(await (access ? accessLedgerExists(path) : ledgerExists(path)))
  )
    fail(`no ledger at ${shownLocation(path)}`);
  const log = (m: string) => process.stderr.write(`${m}\n`);
  if (command === "copy") {
    return copyCommand(path, values.to, log, access);
  }
  const { ledger, key } = access ? await openedAccessLedger(path, log) : await openLedger({ path, log });
  try {
    switch (command) {
      case "info": {
        const latest = await ledger.latestCheckpoint();
        console.log(
          `ledger ${shownLocation(path)}\norigin ${ledger.origin}\nsize ${await ledger.size()}\nroot ${formatDigest(await ledger.rootHash())}`,
        );
        console.log(`checkpoint key ${key.publicKeyHex} (${key.source})`);
        console.log(latest ? `newest checkpoint:\n${latest}` : "no checkpoint yet");
        return 0;
      }
      case "verify": {
        const report = await ledger.verify();
        printReport(report, `ledger ${shownLocation(path)} (${report.checkpointsChecked} checkpoints)`);
        return report.ok ? 0 : 1;
      }
      case "checkpoint": {
        const note = await ledger.checkpoint();
        verifyCheckpoint(note, [{ name: key.name, publicKeyHex: key.publicKeyHex }]);
        process.stdout.write(note);
        return 0;
      }
      case "export": {
        if (!arg) fail("export needs a directory");
        const { size } = await exportLedger(ledger, arg);
        console.log(`exported ${size} entries to ${arg}/${EXPORT_LINES} with ${arg}/${EXPORT_CHECKPOINT}`);
        console.log(`verify offline: npm run ledger -- verify-export ${arg} --key ${key.publicKeyHex}`);
        return 0;
      }
      case "inclusion":
      case "consistency": {
        const n = integer(arg, command === "inclusion" ? "SEQ" : "OLD");
        if (n === undefined) fail(`${command} needs a number`);
        const size = integer(values.size, "--size");
        const proof =
          command === "inclusion" ? await ledger.inclusionProof(n, size) : await ledger.consistencyProof(n, size);
        for (const h of proof) console.log(Buffer.from(h).toString("base64"));
        return 0;
      }
      case "append": {
        // One conditional write: the event and the automatic revocations it triggers (core/avm/
        // revocation.ts), decided against the AVM registry caught up to the tail inside the write
        // transaction, so no process sees the trigger without its revocation.
        const nowMs = Date.now();
        const { entries } = await ledger.write((tail) => ({
          events: [event!, ...automaticRevocations(tail.state(avmRegistry), event!, nowMs)],
          result: null,
        }));
        const [entry, ...follow] = entries;
        for (const f of follow)
          process.stderr.write(
            `appended ${f.type} at seq ${f.seq} (${String(f.payload.reason)}): the automatic revocation ${event!.type} triggers\n`,
          );
        process.stdout.write(`{"seq": ${entry!.seq}, "hash": ${JSON.stringify(entry!.hash)}}\n`);
        return 0;
      }
      default:
        fail(`unknown command "${command}"\n${USAGE}`);
    }
  } finally {
    await ledger.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => fail(error instanceof Error ? error.message : String(error)),
);
