/**
 * `npm run bench -- migration`: the v1 → v2 snapshot of 1,000,000 addresses.
 *
 * - Snapshot: the export's text in, exact conversion (scan, parseMic, duplicates, sort by address),
 *   the independent verification (shards / 10^6 = v1 value, totals), the leaves' JCS lines, the
 *   whole Merkle tree kept for proofs, the signed checkpoint and the files' text
 *   (store/migration-dir.ts snapshotFiles; nothing written to disk) — against the floor of hashing
 *   the same leaves once: the RFC 9162 root of the snapshot's leaf lines, streamed through
 *   core/merkle-stream.ts (each leaf hashed once, the n − 1 inner nodes once). Target <= 2x.
 * - Peak memory: `npm run migration -- snapshot` itself (pipeline/migration/cli.ts main) on the same
 *   export, in a child process of its own — reading the file, converting, writing the folder —
 *   reported as that process's maximum resident set.
 * - Proof generation per address: the address's leaf index (a Map) and its inclusion proof as
 *   base64, for 100,000 random addresses of the built tree (reported).
 *
 * The export is deterministic: 1,000,000 distinct addresses in random order, balances of up to
 * 10^7 MIC with 0–6 decimals, one in ten written in exponent form; plus 1,000 lines that must be
 * reported (too precise, negative, duplicated).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resourceUsage } from "node:process";
import { fileURLToPath } from "node:url";
import { generateKeyPair } from "../core/signature.ts";
import { micNumberText } from "../core/balance/units.ts";
import { convertV1Export, exportLines } from "../core/migration/convert.ts";
import { indexLeaves, leafAddress, proveLeaf } from "../core/migration/snapshot.ts";
import { StreamingRoot } from "../core/merkle-stream.ts";
import { LeafTree } from "../core/migration/tree.ts";
import { Prng } from "../pipeline/seed/prng.ts";
import { snapshotFiles } from "../store/migration-dir.ts";
import { bestOf, compare, printComparisons, type Comparison } from "./harness.ts";

const N = 1_000_000;
const PROOFS = 100_000;

function v1Export(): string {
  const rng = new Prng("migration-bench");
  const lines: string[] = [];
  for (let i = 0; i < N; i++) {
    const address = `acct-${(i * 2_654_435_761 % 4_294_967_296).toString(16).padStart(8, "0")}-${i.toString(36)}`;
    const shards = BigInt(rng.int(10_000_000)) * 1_000_000n + BigInt(rng.int(1_000_000));
    const text = i % 10 === 0 ? `${shards}e-6` : micNumberText(shards);
    lines.push(`{"address":"${address}","balance_gic":${text}}`);
  }
  for (let i = 0; i < 1000; i++) {
    lines.push(i % 3 === 0 ? `{"address":"bad-${i}","balance_gic":1e-7}` : i % 3 === 1 ? `{"address":"bad-${i}","balance_gic":-1}` : lines[i * 7]!);
  }
  // A v1 table's order is not the address order: shuffle.
  for (let i = lines.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [lines[i], lines[j]] = [lines[j]!, lines[i]!];
  }
  return lines.join("\n") + "\n";
}

export async function run(): Promise<void> {
  const text = v1Export();
  const bytes = Buffer.from(text);
  const key = generateKeyPair("ed25519");
  const signer = { name: "integrity-platform.example/datasets", secretKeyHex: key.secretKey };
  const snapshot = () => snapshotFiles({ conversion: convertV1Export(exportLines(text)), exportBytes: bytes, at: "2025-12-01T00:00:00.000Z", signer });

  const built = snapshot().written;
  const leaves = built.leaves;
  // The floor's input: the same leaf lines, as leaf inputs (0x00 ‖ line) back to back.
  const leafInputs = Buffer.from(leaves.map((l) => `\u0000${l}`).join(""));
  let floorRoot: Uint8Array = new Uint8Array();
  const t = compare(
    3,
    () => {
      snapshot();
    },
    () => {
      const stream = new StreamingRoot();
      stream.appendLeafInputs(leafInputs);
      floorRoot = stream.root();
    },
  );
  if (!Buffer.from(floorRoot).equals(Buffer.from(built.rootHash))) throw new Error("the floor's root differs from the snapshot's");
  const comparisons: Comparison[] = [
    {
      name: `Snapshot of ${N.toLocaleString("en")} addresses (+1,000 reported lines)`,
      subject: "convert + verify + leaves + tree + checkpoint",
      floor: "RFC 9162 root of the same leaf lines, each hashed once",
      subjectSeconds: t.subject,
      floorSeconds: t.floor,
      items: N,
      kind: "time",
      target: 2,
    },
  ];

  // Proofs: the whole tree built once (what `prove` and the API hold), then one proof per address.
  let tree = LeafTree.fromTexts(leaves);
  const treeSeconds = bestOf(3, () => {
    tree = LeafTree.fromTexts(leaves);
  });
  const index = indexLeaves(leaves);
  const rng = new Prng("migration-bench-proofs");
  const picks = Array.from({ length: PROOFS }, () => leafAddress(leaves[rng.int(leaves.length)]!)!);
  let proofBytes = 0;
  const proofSeconds = bestOf(3, () => {
    for (const address of picks) proofBytes += proveLeaf(tree, leaves, index.get(address)!).proof.length;
  });
  const memory = snapshotCommandMemory(text);

  printComparisons("Migration snapshot", comparisons);
  console.log(`  proof tree (all levels kept): built in ${(treeSeconds * 1000).toFixed(0)} ms`);
  console.log(`  proof generation: ${((proofSeconds / PROOFS) * 1e6).toFixed(2)} µs per address (${(PROOFS / proofSeconds / 1000).toFixed(0)}k proofs/s, ${Math.round(proofBytes / 3 / PROOFS)} hashes each, tree of ${leaves.length.toLocaleString("en")})`);
  console.log(`  memory: \`npm run migration -- snapshot\` of the same export (${(text.length / 2 ** 20).toFixed(0)} MB) in its own process: peak resident ${memory.rssMb.toFixed(0)} MB, ${memory.seconds.toFixed(1)} s`);
}

/** Runs the snapshot command on the export in a child process; its peak resident set and time. */
function snapshotCommandMemory(text: string): { rssMb: number; seconds: number } {
  const dir = mkdtempSync(join(tmpdir(), "bench-migration-"));
  try {
    const file = join(dir, "v1.jsonl");
    writeFileSync(file, text);
    const key = generateKeyPair("ed25519");
    const child = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url)], {
      env: { ...process.env, MIGRATION_BENCH_ROLE: "snapshot", MIGRATION_BENCH_ARGS: JSON.stringify(["snapshot", "--v1", file, "--out", join(dir, "out")]), DATASET_SIGNING_KEY: key.secretKey },
      encoding: "utf8",
      maxBuffer: 1 << 24,
    });
    if (child.status !== 0) throw new Error(`the snapshot command failed: ${child.stderr}`);
    return JSON.parse(child.stdout.trim().split("\n").at(-1)!) as { rssMb: number; seconds: number };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.env.MIGRATION_BENCH_ROLE === "snapshot") {
  const { main } = await import("../pipeline/migration/cli.ts");
  const started = performance.now();
  const code = main(JSON.parse(process.env.MIGRATION_BENCH_ARGS!) as string[], { out: () => {}, err: (l) => console.error(l), env: process.env });
  const seconds = (performance.now() - started) / 1000;
  console.log(JSON.stringify({ rssMb: resourceUsage().maxRSS / 1024, seconds }));
  process.exit(code);
}
