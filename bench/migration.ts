/**
 * `npm run bench -- migration`: the v1 → v2 snapshot of 1,000,000 addresses, its proofs and the
 * balance lookups, each against a floor measured in the same run.
 *
 * - Snapshot: the export's bytes in, exact conversion (scan, duplicates, sort by address), the
 *   spec's verification per line (shards / 10^6 = v1 value) and of the totals, the leaves' JCS
 *   lines, the tree's root and the signed checkpoint, and the files' contents
 *   (store/migration-dir.ts snapshotFiles; nothing written to disk) — against the floor of hashing
 *   the same leaves once: the RFC 9162 root of the snapshot's leaf lines with plain node:crypto
 *   (each leaf hashed once, the n − 1 inner nodes once; `rawRoot`). Target <= 2x. The same root
 *   through core/merkle-stream.ts, the floor before, is printed against it (report only). The
 *   floor runs before the first round and after each, every round is compared with the floor
 *   around it, and the median round is the verdict (the machine's speed drifts over a 30 s run).
 * - Peak memory: `npm run migration -- snapshot` itself (pipeline/migration/cli.ts main) on the same
 *   export, in a child process of its own — reading the file, converting, writing the folder —
 *   that process's maximum resident set. Target <= 512 MB.
 * - Proof generation per address: the tree with every level kept (what `prove` and the API hold)
 *   built once, then the address's leaf index (a Map) and its inclusion proof as base64, for
 *   100,000 random addresses — against the floor of hashing each proof's leaf once (reported).
 * - Balance lookups over loopback HTTP (autocannon, as bench/api.ts): GET /v2/balance/{address}
 *   and the forwarded GET /v1/balance/{address} (Deprecation, Sunset, Link) in the transition, for
 *   an address of a 100,000-address published snapshot with ledger movements after it (every
 *   request reads the snapshot's map and catches up with a read of the ledger's tail made after it
 *   arrived, shared by the lookups of one event-loop turn), against the floor of a trivial route
 *   declared the same way (path validation, strict query) behind the same middleware and server.
 *   Target >= 0.6x. Reported beside it: the same floor answered after the I/O phase, as the lookups
 *   are, so the deferral's own gain is not counted as the lookup's.
 *
 * The export is deterministic: 1,000,000 distinct addresses in random order, balances of up to
 * 10^7 MIC with 0–6 decimals, one in ten written in exponent form; plus 1,000 lines that must be
 * reported (too precise, negative, duplicated).
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "@hono/zod-openapi";
import { createApp } from "../api/app.ts";
import { json } from "../api/openapi/responses.ts";
import { addRoute, defineRoute } from "../api/openapi/route.ts";
import { AddressParams } from "../api/routes/balance.ts";
import { listen } from "../api/server/server.ts";
import { TEST_DATASET_SIGNER, TEST_DATASET_VKEY } from "../test/support/api/helpers.ts";
import type { NewEvent } from "../core/ledger/store.ts";
import { generateKeyPair } from "../core/signature.ts";
import { micNumberText } from "../core/money/units.ts";
import { indexLeaves, leafAddress, proveLeaf } from "../core/migration/snapshot.ts";
import { StreamingRoot } from "../core/merkle-stream.ts";
import { LeafTree } from "../core/migration/tree.ts";
import { Prng } from "../pipeline/seed/prng.ts";
import { checkpointOfNote, snapshotFiles, writeSnapshot } from "../store/migration-dir.ts";
import { openLedgerStore } from "../store/open-ledger.ts";
import {
  bestOf,
  compare,
  comparePaired,
  peakRssMb,
  printComparisons,
  printReadings,
  type Comparison,
} from "./harness.ts";
import { bestRates, CONNECTIONS, PER_ROUND, rateComparison, startBenchServer, stopOnSignal } from "./http-bench.ts";

const N = 1_000_000;
const PROOFS = 100_000;
/** Snapshot rounds, each against the floor measured just before and after it. */
const SNAPSHOT_ROUNDS = 5;
/** The published snapshot the lookup server holds, and the addresses with ledger movements after it. */
const LOOKUP_SNAPSHOT = 100_000;
const LOOKUP_ADDRESSES = 1_000;
const LOOKUP_SECONDS = 5;
const LOOKUP_ROUNDS = 5;
/** The lookups run in the transition, when v2 answers and v1 is forwarded to it. */
const LOOKUP_AT = "2026-01-15T12:00:00.000Z";

const benchAddress = (i: number) =>
  `acct-${((i * 2_654_435_761) % 4_294_967_296).toString(16).padStart(8, "0")}-${i.toString(36)}`;

const RAW_ROOT_FLOOR = "RFC 9162 root of the same leaf lines with node:crypto, each leaf and inner node hashed once";
const NODE_PREFIX = Buffer.from([1]);

/**
 * The floor: the RFC 9162 root of leaf inputs (0x00 ‖ line, back to back) the plainest way — one
 * node:crypto SHA-256 per leaf and per inner node, perfect subtrees kept on a stack and the rest
 * folded from the right at the end — with none of the project's code.
 */
export function rawRoot(inputs: Buffer): Buffer {
  const hashes: Buffer[] = [];
  const sizes: number[] = [];
  const node = (left: Buffer, right: Buffer) =>
    createHash("sha256").update(NODE_PREFIX).update(left).update(right).digest();
  for (let start = 0; start < inputs.length;) {
    const next = inputs.indexOf(0, start + 1);
    const end = next < 0 ? inputs.length : next;
    let hash = createHash("sha256").update(inputs.subarray(start, end)).digest();
    let size = 1;
    while (sizes.length > 0 && sizes[sizes.length - 1] === size) {
      hash = node(hashes.pop()!, hash);
      size += sizes.pop()!;
    }
    hashes.push(hash);
    sizes.push(size);
    start = end;
  }
  let root = hashes.pop() ?? createHash("sha256").digest();
  while (hashes.length > 0) root = node(hashes.pop()!, root);
  return root;
}

export function v1Export(count = N, reported = 1000): string {
  const rng = new Prng("migration-bench");
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const shards = BigInt(rng.int(10_000_000)) * 1_000_000n + BigInt(rng.int(1_000_000));
    const text = i % 10 === 0 ? `${shards}e-6` : micNumberText(shards);
    lines.push(`{"address":"${benchAddress(i)}","balance_gic":${text}}`);
  }
  for (let i = 0; i < reported; i++) {
    lines.push(
      i % 3 === 0
        ? `{"address":"bad-${i}","balance_gic":1e-7}`
        : i % 3 === 1
          ? `{"address":"bad-${i}","balance_gic":-1}`
          : lines[i * 7]!,
    );
  }
  // A v1 table's order is not the address order: shuffle.
  for (let i = lines.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [lines[i], lines[j]] = [lines[j]!, lines[i]!];
  }
  return lines.join("\n") + "\n";
}

export async function run(): Promise<Comparison[]> {
  const text = v1Export();
  const bytes = Buffer.from(text);
  const key = generateKeyPair("ed25519");
  const signer = { name: "integrity-platform.example/datasets", secretKeyHex: key.secretKey };
  let files = new Map<string, string | Buffer>();
  const snapshot = () => {
    files = snapshotFiles({ exportBytes: bytes, at: "2025-12-01T00:00:00.000Z", signer }).files;
  };
  snapshot();
  const jsonl = files.get("snapshot.jsonl") as Buffer;
  // The floor's input: the same leaf lines, as leaf inputs (0x00 ‖ line) back to back.
  const leafInputs = Buffer.concat([Buffer.from([0]), jsonl.subarray(0, -1)]);
  for (let at = leafInputs.indexOf(0x0a); at >= 0; at = leafInputs.indexOf(0x0a, at + 1)) leafInputs[at] = 0;
  const builtRoot = checkpointOfNote(files.get("checkpoint") as string).rootHash;
  let floorRoot: Uint8Array = new Uint8Array();
  // No million leaf strings are alive while the snapshot is timed: the command holds none either,
  // and each collection would have to walk them.
  const t = comparePaired(
    SNAPSHOT_ROUNDS,
    () => {
      snapshot();
    },
    () => {
      floorRoot = rawRoot(leafInputs);
    },
  );
  if (!Buffer.from(floorRoot).equals(Buffer.from(builtRoot)))
    throw new Error("the floor's root differs from the snapshot's");
  // The floor before, through the project's own streaming tree (report only).
  let projectRoot: Uint8Array = new Uint8Array();
  const projectFloor = bestOf(SNAPSHOT_ROUNDS, () => {
    const stream = new StreamingRoot();
    stream.appendLeafInputs(leafInputs);
    projectRoot = stream.root();
  });
  if (!Buffer.from(projectRoot).equals(Buffer.from(builtRoot)))
    throw new Error("core/merkle-stream.ts's root differs from the snapshot's");
  const comparisons: Comparison[] = [
    {
      name: `Snapshot of ${N.toLocaleString("en")} addresses (+1,000 reported lines)`,
      subject: "convert + verify + leaves + tree + checkpoint",
      floor: RAW_ROOT_FLOOR,
      subjectSeconds: t.median.subject,
      rounds: t.rounds,
      floorSeconds: t.median.floor,
      items: N,
      kind: "time",
      target: 2,
    },
    {
      name: `The same root through core/merkle-stream.ts, the floor before (report only)`,
      subject: "StreamingRoot over the same leaf inputs",
      floor: RAW_ROOT_FLOOR,
      subjectSeconds: projectFloor,
      floorSeconds: t.median.floor,
      items: N,
      kind: "time",
    },
  ];

  // Proofs: the whole tree built once (what `prove` and the API hold), then one proof per address.
  const leaves = jsonl.toString("utf8").slice(0, -1).split("\n");
  let tree = LeafTree.fromTexts(leaves);
  const treeSeconds = bestOf(3, () => {
    tree = LeafTree.fromTexts(leaves);
  });
  const index = indexLeaves(leaves);
  const rng = new Prng("migration-bench-proofs");
  const picks = Array.from({ length: PROOFS }, () => leafAddress(leaves[rng.int(leaves.length)]!)!);
  const pickedLeaves = Buffer.concat(picks.map((a) => Buffer.from(`\u0000${leaves[index.get(a)!]!}`)));
  let proofBytes = 0;
  const proofTimes = compare(
    3,
    () => {
      for (const address of picks) proofBytes += proveLeaf(tree, leaves, index.get(address)!).proof.length;
    },
    () => {
      new StreamingRoot().appendLeafInputs(pickedLeaves);
    },
  );
  comparisons.push({
    name: `Proof generation, ${PROOFS.toLocaleString("en")} random addresses of the ${leaves.length.toLocaleString("en")}-leaf tree`,
    subject: "leaf index + inclusion proof as base64",
    floor: "hashing each proof's leaf once (and the root of those hashes)",
    subjectSeconds: proofTimes.subject,
    rounds: proofTimes.rounds,
    floorSeconds: proofTimes.floor,
    items: PROOFS,
    kind: "time",
  });
  const memory = snapshotCommandMemory(text);

  printComparisons("Migration snapshot", comparisons);
  console.log(
    `  snapshot rounds (ratio to the floor around each; the median is the verdict): ${t.rounds.map((r) => `${(r.subject / r.floor).toFixed(2)}x`).join(", ")}`,
  );
  console.log(`  proof tree (all levels kept): built in ${(treeSeconds * 1000).toFixed(0)} ms`);
  console.log(
    `  proof generation: ${((proofTimes.subject / PROOFS) * 1e6).toFixed(2)} µs per address (${(PROOFS / proofTimes.subject / 1000).toFixed(0)}k proofs/s, ${Math.round(proofBytes / 4 / PROOFS)} hashes each)`,
  );
  printReadings("Migration snapshot memory", [
    {
      name: `\`npm run migration -- snapshot\` of the same ${(text.length / 2 ** 20).toFixed(0)} MB export in its own process (read, convert, write the folder): peak resident size`,
      unit: "MB",
      values: [memory.rssMb],
      better: "lower",
      target: 512,
    },
  ]);

  const lookups = await lookupComparisons();
  printComparisons(
    `Balance lookups over HTTP (autocannon, ${CONNECTIONS} connections, ${LOOKUP_ROUNDS} alternating rounds of ${LOOKUP_SECONDS / LOOKUP_ROUNDS} s per route, best round; time shown per ${PER_ROUND.toLocaleString("en")} requests)`,
    lookups,
  );
  return [...comparisons, ...lookups];
}

interface LookupUrls {
  app: string;
  addresses: string[];
}

/** A bench-only route declared like the balance routes (same path and validation) that answers a constant. */
const constantRoute = (path: string, summary: string) =>
  defineRoute({
    method: "get",
    path,
    summary,
    request: { params: AddressParams },
    responses: { 200: json("A constant", z.strictObject({ ok: z.boolean() })) },
  });

const trivialRoute = constantRoute("/bench/trivial/{address}", "The lookups' floor: a constant answer");
/**
 * The same constant, answered after the I/O phase (`setImmediate`) as the lookups are (they share
 * one read of the ledger's tail per turn: store/ledger/tail-reads.ts). Responses of one turn then leave in
 * one burst, which the client on the same two cores drains with fewer wake-ups — a gain of the
 * deferral itself, shown apart so that the lookup's own cost stays visible.
 */
const deferredRoute = constantRoute(
  "/bench/deferred/{address}",
  "The lookups' floor, answered after the I/O phase as the lookups are",
);

/** The lookup server (a child process): a real ledger, a published snapshot, the clock in the transition. */
async function serveLookups(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "bench-balance-"));
  const dataDir = join(dir, "data");
  mkdirSync(join(dataDir, "keys"), { recursive: true });
  writeFileSync(join(dataDir, "keys", "datasets.vkey"), `${TEST_DATASET_VKEY}\n`);
  writeSnapshot(join(dataDir, "migration"), {
    exportBytes: Buffer.from(v1Export(LOOKUP_SNAPSHOT, 0)),
    at: "2025-12-01T00:00:00.000Z",
    signer: TEST_DATASET_SIGNER,
  });
  const now = () => new Date(LOOKUP_AT);
  const ledger = await openLedgerStore({
    path: join(dir, "ledger.sqlite"),
    origin: "bench-balance",
    durability: "normal",
    now,
  });
  // Movements after the snapshot: v2 is the snapshot plus these.
  const addresses = Array.from({ length: LOOKUP_ADDRESSES }, (_, k) =>
    benchAddress(k * (LOOKUP_SNAPSHOT / LOOKUP_ADDRESSES)),
  );
  const events: NewEvent[] = addresses.map((account, k) => ({
    type: "mic_lock",
    payload: { account, amount_shards: String(1 + k), contract: "vault" },
    ts: "2025-12-10T00:00:00.000Z",
  }));
  await ledger.append(events);
  const app = createApp({ dataDir, ledger, now, log: () => {} });
  // The floor is declared like the balance routes — the same path shape and validation, the same
  // middleware — and answers a constant: the ratio is the cost of the lookup itself.
  addRoute(app, trivialRoute, (c) => c.json({ ok: c.req.valid("param").address.length > 0 }));
  addRoute(app, deferredRoute, async (c) => {
    await new Promise((resolve) => setImmediate(resolve)); // as TailReads defers a lookup
    return c.json({ ok: c.req.valid("param").address.length > 0 });
  });
  const server = await listen(app, "127.0.0.1", 0);
  process.stdout.write(`${JSON.stringify({ app: server.url, addresses } satisfies LookupUrls)}\n`);
  stopOnSignal([server], () => {
    void ledger.close();
    rmSync(dir, { recursive: true, force: true });
  });
}

/** The balance lookups against the trivial route, over HTTP (also run alone: `lookupComparisons()`). */
export async function lookupComparisons(): Promise<Comparison[]> {
  const { urls, stop } = await startBenchServer<LookupUrls>(fileURLToPath(import.meta.url), "balance-server");
  try {
    // One address per target: autocannon builds every request anew when given a list of paths, and
    // the client (on the same two cores) then limits both sides. Every lookup still reads the
    // snapshot's map and catches up with the ledger's tail; the address has movements after it.
    const address = urls.addresses[1]!;
    const targets = {
      trivial: `${urls.app}/bench/trivial/${address}`,
      deferred: `${urls.app}/bench/deferred/${address}`,
      v2: `${urls.app}/v2/balance/${address}`,
      v1: `${urls.app}/v1/balance/${address}`,
    };
    // Every path answers before anything is timed (and v1 carries the transition's fields).
    for (const url of [targets.v2, targets.v1]) {
      const response = await fetch(url);
      if (response.status !== 200) throw new Error(`${url}: ${response.status}`);
      if (
        url === targets.v1 &&
        !(response.headers.get("deprecation") && response.headers.get("sunset") && response.headers.get("link"))
      )
        throw new Error(`${url}: no Deprecation/Sunset/Link`);
      await response.arrayBuffer();
    }
    const best = await bestRates(targets, { seconds: LOOKUP_SECONDS, rounds: LOOKUP_ROUNDS, warmup: 1 });
    const floor =
      "GET /bench/trivial/{address} → {ok:true}, a bench-only route declared like the balance routes (same path validation, same middleware and server)";
    const deferred =
      "GET /bench/deferred/{address} → {ok:true}, the same answered after the I/O phase (setImmediate), as the lookups are";
    return [
      rateComparison(
        `v2 balance lookups (an address of a ${LOOKUP_SNAPSHOT.toLocaleString("en")}-address snapshot with ledger movements after it)`,
        "GET /v2/balance/{address}",
        best.v2,
        floor,
        best.trivial,
        0.6,
      ),
      rateComparison(
        "v1 balance lookups forwarded to v2 (Deprecation, Sunset, Link)",
        "GET /v1/balance/{address}",
        best.v1,
        floor,
        best.trivial,
        0.6,
      ),
      rateComparison(
        "v2 balance lookups against the floor deferred as they are (report only)",
        "GET /v2/balance/{address}",
        best.v2,
        deferred,
        best.deferred,
      ),
      rateComparison(
        "v1 balance lookups forwarded, against the floor deferred as they are (report only)",
        "GET /v1/balance/{address}",
        best.v1,
        deferred,
        best.deferred,
      ),
    ];
  } finally {
    await stop();
  }
}

/** Runs the snapshot command on the export in a child process; its peak resident set and time. */
function snapshotCommandMemory(text: string): { rssMb: number; seconds: number } {
  const dir = mkdtempSync(join(tmpdir(), "bench-migration-"));
  try {
    const file = join(dir, "v1.jsonl");
    writeFileSync(file, text);
    const key = generateKeyPair("ed25519");
    const child = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url)], {
      env: {
        ...process.env,
        MIGRATION_BENCH_ROLE: "snapshot",
        MIGRATION_BENCH_ARGS: JSON.stringify(["snapshot", "--v1", file, "--out", join(dir, "out")]),
        DATASET_SIGNING_KEY: key.secretKey,
      },
      encoding: "utf8",
      maxBuffer: 1 << 24,
    });
    if (child.status !== 0) throw new Error(`the snapshot command failed: ${child.stderr}`);
    return JSON.parse(child.stdout.trim().split("\n").at(-1)!) as { rssMb: number; seconds: number };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.env.BENCH_ROLE === "balance-server") await serveLookups();

if (process.env.MIGRATION_BENCH_ROLE === "snapshot") {
  const { main } = await import("../pipeline/migration/cli.ts");
  const started = performance.now();
  const code = await main(JSON.parse(process.env.MIGRATION_BENCH_ARGS!) as string[], {
    out: () => {},
    err: (l) => console.error(l),
    env: process.env,
  });
  const seconds = (performance.now() - started) / 1000;
  console.log(JSON.stringify({ rssMb: peakRssMb(), seconds }));
  process.exit(code);
}
