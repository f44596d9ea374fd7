/**
 * Shared by the API tests and the bench: a throwaway data folder holding a real, verifiable pulse
 * history (records sealed with `sealPulse`, chained with `prev`, generatedAt increasing), with its
 * checkpoint signed by a test dataset key listed in `keys/datasets.vkey`, as `npm run pulse` writes.
 */
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { signCheckpoint, verifierKey } from "../core/checkpoint.ts";
import { leafHashOfText, rootHash } from "../core/merkle.ts";
import { historyLine, historyLines, sealPulse, type PulseRecord } from "../core/pulse/history.ts";
import { PULSE_ORIGIN } from "../core/pulse/published.ts";
import { publicKeyFromSecret } from "../core/signature.ts";
import { historyPath } from "./pulse-history.ts";
import { startServer, type RunningServer, type ServerOptions } from "./server.ts";

export interface SampleOptions {
  /** Scores of the newest record (the badge's); older records get varied scores. */
  latest?: { giScore: number; miiScore: number };
  /** generatedAt of the first record; each next one is 6 hours later. */
  start?: number;
}

/** `count` chained pulse records, oldest first. */
export function sampleHistory(count: number, options: SampleOptions = {}): PulseRecord[] {
  const start = options.start ?? Date.parse("2025-06-01T00:00:00.000Z");
  const records: PulseRecord[] = [];
  let prev: string | null = null;
  for (let i = 0; i < count; i++) {
    const last = i === count - 1 && options.latest;
    const record = sealPulse({
      id: randomUUID(),
      cycle: `C-${1 + Math.floor(i / 4)}`,
      branch: "main",
      giScore: last ? options.latest!.giScore : 0.9 + ((i * 37) % 100) / 1000,
      miiScore: last ? options.latest!.miiScore : 0.88 + ((i * 53) % 120) / 1000,
      stats: { totalFiles: 100 + i, totalLines: 10_000 + 17 * i, appsCount: 3, packagesCount: 5 + (i % 3), workflowsCount: 4 },
      generatedAt: new Date(start + i * 6 * 3600_000 + (i % 1000)).toISOString(),
      prev,
    });
    records.push(record);
    prev = record.hash;
  }
  return records;
}

export function historyText(records: readonly PulseRecord[]): string {
  return records.map((r) => `${historyLine(r)}\n`).join("");
}

/** The test dataset key (a fixed seed: tests only) and its verifier key line. */
export const TEST_DATASET_SIGNER = { name: "integrity-platform.example/datasets", secretKeyHex: "7a".repeat(32) };
export const TEST_DATASET_VKEY = verifierKey(TEST_DATASET_SIGNER.name, publicKeyFromSecret("ed25519", TEST_DATASET_SIGNER.secretKeyHex));

/**
 * Signs a checkpoint over the first `size` lines of `text` (default: all) into
 * `<dataDir>/pulse/checkpoint`, and lists the test key in `<dataDir>/keys/datasets.vkey`.
 */
export function signHistory(dataDir: string, text: string, size?: number): void {
  const lines = historyLines(text).slice(0, size);
  mkdirSync(join(dataDir, "pulse"), { recursive: true });
  mkdirSync(join(dataDir, "keys"), { recursive: true });
  writeFileSync(join(dataDir, "keys", "datasets.vkey"), `${TEST_DATASET_VKEY}\n`);
  writeFileSync(join(dataDir, "pulse", "checkpoint"), signCheckpoint({ origin: PULSE_ORIGIN, size: lines.length, rootHash: rootHash(lines.map(leafHashOfText)) }, TEST_DATASET_SIGNER));
}

/** Writes the history and its signed checkpoint, as the indexer publishes them. */
export function writeHistory(dataDir: string, records: readonly PulseRecord[]): string {
  const path = historyPath(dataDir);
  mkdirSync(join(dataDir, "pulse"), { recursive: true });
  const text = historyText(records);
  writeFileSync(path, text);
  signHistory(dataDir, text);
  return path;
}

export function tempDir(prefix = "api-test-"): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A clock the test moves by hand (the history file is checked at most once per second of it). */
export function manualClock(start = Date.parse("2026-01-01T00:00:00.000Z")): { now: () => Date; advance: (ms: number) => void } {
  let t = start;
  return { now: () => new Date(t), advance: (ms) => void (t += ms) };
}

export interface TestServer extends RunningServer {
  dataDir: string;
  /** Log lines the server wrote. */
  logs: Record<string, unknown>[];
  stop(): Promise<void>;
}

/** A real server on a free loopback port over a fresh data folder (with `records` when given). */
export async function testServer(
  records: readonly PulseRecord[] | null,
  options: Omit<Partial<ServerOptions>, "host" | "port" | "dataDir" | "log"> = {},
): Promise<TestServer> {
  const { dir, cleanup } = tempDir();
  if (records) writeHistory(dir, records);
  const logs: Record<string, unknown>[] = [];
  const server = await startServer({ host: "127.0.0.1", port: 0, dataDir: dir, log: (line) => logs.push(line), ...options });
  return {
    ...server,
    dataDir: dir,
    logs,
    stop: async () => {
      await server.close();
      cleanup();
    },
  };
}
