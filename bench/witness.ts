/**
 * `npm run bench -- witness`: one witness round (pipeline/witnessing.ts — the checkpoint and its
 * consistency proof to three witnesses in parallel, each cosignature checked) with three witnesses
 * (`npm run witness -- serve`, separate processes) on loopback, for checkpoints of a tree of
 * 1,000,000 entries. Only the tree's size matters to a witness (the proof has ~20 hashes either
 * way), so the tree is precomputed in memory from synthetic leaves; each round moves it on by a few
 * entries and sends the proof from the size each witness holds. Prints p50 and p99 of the round's
 * wall time (target: under a second).
 *
 * `BENCH_WITNESS_SIZE` (1,000,000) and `BENCH_WITNESS_ROUNDS` (200) change the tree and the rounds.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { signCheckpoint, verifierKey } from "../core/checkpoint.ts";
import { consistencyProofWith, rangeHasher } from "../core/merkle.ts";
import { generateKeyPair, publicKeyFromSecret } from "../core/signature.ts";
import { parsePolicy } from "../core/witness/policy.ts";
import { witnessRound } from "../pipeline/witnessing.ts";
import { tempDir } from "../test/support/store/helpers.ts";
import { printReadings } from "./harness.ts";

const SIZE = Number(process.env.BENCH_WITNESS_SIZE ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_WITNESS_ROUNDS ?? 200);
const STEP = 7;
const CLI = join(import.meta.dirname, "..", "cli", "witness-cli.ts");

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function startWitness(state: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [CLI, "serve", "--listen", "127.0.0.1:0", "--state", state], {
    stdio: ["ignore", "pipe", "ignore"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (c: Buffer) => {
      out += c.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.on("exit", (code) => reject(new Error(`witness exited (${code})`)));
  });
  return { child, url };
}

export async function run(): Promise<void> {
  const { dir, cleanup } = tempDir("bench-witness-");
  const children: ChildProcess[] = [];
  try {
    const origin = "bench.example/log";
    const signer = { name: origin, secretKeyHex: generateKeyPair("ed25519").secretKey };
    const vkey = verifierKey(origin, publicKeyFromSecret("ed25519", signer.secretKeyHex));
    const total = SIZE + ROUNDS * STEP;
    console.log(`witness: building a tree of ${total.toLocaleString("en")} synthetic leaves …`);
    const leaves = Array.from({ length: total }, (_, i) => createHash("sha256").update(`leaf ${i}`).digest());
    const range = rangeHasher(leaves);
    const witnesses: { id: string; url: string; vkey: string }[] = [];
    for (const id of ["A", "B", "C"]) {
      const state = join(dir, id);
      spawnSync(process.execPath, [
        CLI,
        "add-log",
        "--state",
        state,
        "--vkey",
        vkey,
        "--name",
        `${id.toLowerCase()}.bench.example`,
      ]);
      const w = await startWitness(state);
      children.push(w.child);
      const wkey = spawnSync(process.execPath, [CLI, "vkey", "--state", state], { encoding: "utf8" }).stdout.trim();
      witnesses.push({ id, url: w.url, vkey: wkey });
    }
    const policy = parsePolicy(
      [
        `log ${vkey}`,
        ...witnesses.map((w) => `witness ${w.id} ${w.vkey} ${w.url}`),
        "group all3 2 A B C",
        "quorum all3",
        "",
      ].join("\n"),
    );
    const note = (size: number) => signCheckpoint({ origin, size, rootHash: range(0, size) }, signer);
    let sizes: Record<string, number> = {};
    const once = async (size: number, signed: string) => {
      const round = await witnessRound({
        note: signed,
        policy,
        knownSizes: sizes,
        timeoutMs: 5000,
        consistencyProof: async (old) => consistencyProofWith(range, old, size),
      });
      if (!round.met || round.outcomes.some((o) => !o.ok))
        throw new Error(
          `round at size ${size} failed: ${round.outcomes.map((o) => `${o.id}: ${o.detail}`).join("; ")}`,
        );
      sizes = { ...sizes, ...round.sizes };
    };
    await once(SIZE, note(SIZE)); // the witnesses learn the log (from size 0: no proof)
    const times: number[] = [];
    for (let i = 1; i <= ROUNDS; i++) {
      const size = SIZE + i * STEP;
      // The note is signed outside the timing: the round is what the log waits for.
      const signed = note(size);
      const t0 = performance.now();
      await once(size, signed);
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    // An absolute time, no floor: the round is network and signature work (bench/README.md).
    printReadings(
      `witness round, 3 witnesses on loopback, tree of ${SIZE.toLocaleString("en")}+ entries, ${ROUNDS} rounds`,
      [
        { name: "p50 of a round", unit: "ms", values: [percentile(times, 50)], better: "lower", target: 1000 },
        { name: "p99 of a round", unit: "ms", values: [percentile(times, 99)], better: "lower", target: 1000 },
        { name: "slowest round", unit: "ms", values: [times.at(-1)!], better: "lower" },
      ],
    );
  } finally {
    for (const c of children) c.kill("SIGTERM");
    cleanup();
  }
}
