/**
 * `npm run migration -- <command>`: the v1 → v2 unit migration's verification tree.
 *
 *   snapshot --v1 FILE --out DIR [--at ISO]   convert a v1 export exactly; write DIR/snapshot.jsonl,
 *                                             DIR/checkpoint (signed with the dataset key),
 *                                             DIR/mismatches.jsonl and the rest (store/migration-dir.ts);
 *                                             print counts and totals
 *   prove --dir DIR --address A               one JSON line {"index","tree_size","leaf","proof"}
 *   verify --dir DIR [--address A] [--proof FILE] [--key KEY]
 *                                             offline: the checkpoint signature with a trusted key
 *                                             only (pipeline/migration/trust.ts), every checkpoint of
 *                                             the history and their consistency, and with --address
 *                                             the address's leaf and inclusion proof (computed from
 *                                             DIR, or the one in FILE); exit 0 only if all verify
 *   correct --dir DIR --corrections FILE [--at ISO]
 *                                             a review round: append the corrections (JSON lines
 *                                             {"address","balance_shards","note"}) and sign a new
 *                                             checkpoint consistent with the previous one
 *   sample-v1 [--ledger PATH] [--out FILE]    write the SAMPLE v1 export of the sample ledger
 *
 * Exit status: 0 done / verified, 1 failed, 2 bad usage.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import { MAX_BALANCE_SHARDS } from "../../core/money/units.ts";
import { formatDigest } from "../../core/digest.ts";
import { MISMATCH_REASONS, exportLines } from "../../core/migration/convert.ts";
import { SNAPSHOT_AT } from "../../core/migration/phases.ts";
import { indexLeaves, proveLeaf, type LeafProof } from "../../core/migration/snapshot.ts";
import { LeafTree } from "../../core/migration/tree.ts";
import { MigrationCorrectionInput } from "../../core/schemas/migration.ts";
import { DATASET_KEY, loadSigningKey } from "../../store/keys.ts";
import { appendReviewRound, checkpointOfNote, readMigrationDir, writeSnapshot } from "../../store/migration-dir.ts";
import { defaultLedgerPath, LEDGER_ORIGIN, stateDir } from "../../store/open-ledger.ts";
import { openLedgerStore } from "../../store/open-ledger.ts";
import { sampleV1Export } from "./sample-v1.ts";
import { trustedDatasetKeys } from "./trust.ts";
import { verifyMigrationDir } from "../../store/migration-verify-dir.ts";
import { formatIssues } from "../../core/zod-issues.ts";
import { UsageError } from "../../core/errors.ts";

const USAGE = `usage: npm run migration -- <command>
  snapshot --v1 FILE --out DIR [--at ISO]
  prove --dir DIR --address A
  verify --dir DIR [--address A] [--proof FILE] [--key KEY]
  correct --dir DIR --corrections FILE [--at ISO]
  sample-v1 [--ledger PATH] [--out FILE]`;

export const SAMPLE_V1_EXPORT = "data/sources/migration/v1-balances.jsonl";

export interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
  env: NodeJS.ProcessEnv;
}

const defaultIo: Io = { out: (l) => console.log(l), err: (l) => console.error(l), env: process.env };

function instant(value: string | undefined, fallback: string): string {
  if (value === undefined) return fallback;
  const ms = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || !Number.isFinite(ms))
    throw new UsageError(`--at must be an ISO 8601 instant, got "${value}"`);
  return new Date(ms).toISOString();
}

function need(value: string | undefined, flag: string): string {
  if (value === undefined || value === "") throw new UsageError(`${flag} is required`);
  return value;
}

function signer(io: Io) {
  const key = loadSigningKey(DATASET_KEY, stateDir(io.env), io.env, (m) => io.err(`migration: ${m}`));
  return { name: key.name, secretKeyHex: key.secretKeyHex, publicKeyHex: key.publicKeyHex, source: key.source };
}

function snapshot(v: Record<string, string | undefined>, io: Io): number {
  const file = need(v.v1, "--v1");
  const dir = need(v.out, "--out");
  const at = instant(v.at, SNAPSHOT_AT);
  const bytes = readFileSync(file);
  const key = signer(io);
  const { summary, rootHash } = writeSnapshot(dir, { exportBytes: bytes, at, signer: key });
  io.out(`snapshot of ${file} at ${summary.snapshot_at} (review until ${summary.review_ends}) → ${dir}`);
  io.out(`  lines read:  ${summary.input.lines}`);
  io.out(`  converted:   ${summary.converted} addresses`);
  io.out(
    `  mismatches:  ${summary.mismatches}${
      summary.mismatches
        ? ` (${MISMATCH_REASONS.filter((r) => summary.mismatches_by_reason[r] > 0)
            .map((r) => `${r} ${summary.mismatches_by_reason[r]}`)
            .join(", ")})`
        : ""
    } → ${dir}/mismatches.jsonl`,
  );
  io.out(`  total v1:    ${summary.total_v1_balance_gic} GIC (exact sum of the converted lines' balance_gic)`);
  io.out(`  total v2:    ${summary.total_balance_shards} shards`);
  io.out(`  verified:    every converted balance's shards / 1,000,000 equals its v1 value; the totals agree`);
  io.out(`  maximum:     ${MAX_BALANCE_SHARDS} shards per balance`);
  io.out(`  tree:        ${summary.snapshot_size} leaves, root ${formatDigest(rootHash)}`);
  io.out(`  checkpoint:  signed by ${key.name} (dataset key from ${key.source})`);
  return 0;
}

function prove(v: Record<string, string | undefined>, io: Io): number {
  const dir = need(v.dir, "--dir");
  const address = need(v.address, "--address");
  const state = readMigrationDir(dir);
  const checkpoint = checkpointOfNote(state.checkpoint);
  if (state.leaves.length !== checkpoint.size)
    throw new Error(`${dir} holds ${state.leaves.length} leaves, its checkpoint ${checkpoint.size}`);
  const index = indexLeaves(state.leaves).get(address);
  if (index === undefined) {
    io.err(`migration: ${address} is not in the snapshot of ${dir} (see mismatches.jsonl)`);
    return 1;
  }
  const tree = LeafTree.fromTexts(state.leaves);
  if (!Buffer.from(tree.rootHash()).equals(Buffer.from(checkpoint.rootHash)))
    throw new Error(`${dir}: the leaves do not hash to the checkpoint's root`);
  const p = proveLeaf(tree, state.leaves, index);
  io.out(JSON.stringify({ index: p.index, tree_size: p.tree_size, leaf: p.leaf, proof: p.proof }));
  return 0;
}

function verify(v: Record<string, string | undefined>, io: Io): number {
  const dir = need(v.dir, "--dir");
  const trust = trustedDatasetKeys({
    ...(v.key !== undefined ? { key: v.key } : {}),
    dir,
    env: io.env,
    stateDir: stateDir(io.env),
  });
  let proof: LeafProof | undefined;
  if (v.proof !== undefined) {
    if (v.address === undefined) throw new UsageError("--proof needs --address");
    proof = JSON.parse(readFileSync(v.proof, "utf8")) as LeafProof;
  }
  const report = verifyMigrationDir(dir, trust.keys, {
    ...(v.address !== undefined ? { address: v.address } : {}),
    ...(proof ? { proof } : {}),
  });
  for (const step of report.steps)
    (step.ok ? io.out : io.err)(`  ${step.ok ? "ok  " : "FAIL"} ${step.name}: ${step.detail}`);
  if (!report.ok) {
    io.err(`migration verify: FAILED (${report.code}) — trusted keys from ${trust.source}`);
    return 1;
  }
  io.out(`migration verify: ok — trusted keys from ${trust.source}`);
  return 0;
}

function correct(v: Record<string, string | undefined>, io: Io): number {
  const dir = need(v.dir, "--dir");
  const file = need(v.corrections, "--corrections");
  const lines = exportLines(readFileSync(file, "utf8"));
  const corrections = lines.map((line, i) => {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new Error(`${file}:${i + 1}: not JSON`);
    }
    const parsed = MigrationCorrectionInput.safeParse(value);
    if (!parsed.success) throw new Error(`${file}:${i + 1}: ${formatIssues(parsed.error.issues, "(line)")}`);
    const shards = BigInt(parsed.data.balance_shards);
    if (shards > MAX_BALANCE_SHARDS)
      throw new Error(`${file}:${i + 1}: balance_shards is above the maximum ${MAX_BALANCE_SHARDS}`);
    return { address: parsed.data.address, shards, note: parsed.data.note };
  });
  const state = readMigrationDir(dir);
  const at = instant(v.at, state.summary?.snapshot_at ?? SNAPSHOT_AT);
  const key = signer(io);
  const { consistency, tree } = appendReviewRound(dir, { at, corrections, signer: key });
  io.out(`review round at ${at}: ${corrections.length} correction(s) appended to ${dir}`);
  io.out(`  tree ${consistency.old_size} → ${consistency.new_size} leaves, root ${formatDigest(tree.rootHash())}`);
  io.out(
    `  consistency proof (${consistency.proof.length} hashes) → ${dir}/consistency.jsonl; previous checkpoint kept in ${dir}/checkpoints/${consistency.old_size}`,
  );
  return 0;
}

async function sampleV1(v: Record<string, string | undefined>, io: Io): Promise<number> {
  const path = v.ledger ?? defaultLedgerPath(io.env);
  const out = v.out ?? SAMPLE_V1_EXPORT;
  const ledger = await openLedgerStore({ path, origin: LEDGER_ORIGIN });
  try {
    const lines = sampleV1Export(await Array.fromAsync(ledger.entries()));
    writeFileSync(out, lines.map((l) => `${l}\n`).join(""));
    io.out(`wrote the SAMPLE v1 export of ${path} (${lines.length} lines) to ${out}`);
  } finally {
    await ledger.close();
  }
  return 0;
}

const COMMANDS: Record<
  string,
  { flags: string[]; run: (v: Record<string, string | undefined>, io: Io) => number | Promise<number> }
> = {
  snapshot: { flags: ["v1", "out", "at"], run: snapshot },
  prove: { flags: ["dir", "address"], run: prove },
  verify: { flags: ["dir", "address", "proof", "key"], run: verify },
  correct: { flags: ["dir", "corrections", "at"], run: correct },
  "sample-v1": { flags: ["ledger", "out"], run: sampleV1 },
};

export async function main(argv: readonly string[], io: Io = defaultIo): Promise<number> {
  const [name, ...rest] = argv;
  const command = name === undefined ? undefined : COMMANDS[name];
  try {
    if (!command) throw new UsageError(name === undefined ? "a command is required" : `unknown command "${name}"`);
    let values: Record<string, string | undefined>;
    try {
      values = parseArgs({
        args: rest,
        options: Object.fromEntries(command.flags.map((f) => [f, { type: "string" as const }])),
        strict: true,
        allowPositionals: false,
      }).values as Record<string, string | undefined>;
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    return await command.run(values, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`migration: ${error.message}\n${USAGE}`);
      return 2;
    }
    io.err(`migration: ${(error as Error).message}`);
    return 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2));
}
