/**
 * Shared by the API tests and the bench: a throwaway data folder holding a real, verifiable pulse
 * history (records sealed with `sealPulse`, chained with `prev`, generatedAt increasing), with its
 * checkpoint signed by a test dataset key listed in `keys/datasets.vkey`, as `npm run pulse` writes.
 */
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { signCheckpoint, verifierKey } from "../../../core/checkpoint.ts";
import { leafHashOfText, rootHash } from "../../../core/merkle.ts";
import { historyLine, historyLines, sealPulse, type PulseRecord } from "../../../core/pulse/history.ts";
import { PULSE_ORIGIN } from "../../../core/pulse/published.ts";
import { publicKeyFromSecret } from "../../../core/signature.ts";
import { historyPath } from "../../../api/sources/pulse-history.ts";
import { startServer, type RunningServer, type ServerOptions } from "../../../api/server/server.ts";

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
      stats: {
        totalFiles: 100 + i,
        totalLines: 10_000 + 17 * i,
        appsCount: 3,
        packagesCount: 5 + (i % 3),
        workflowsCount: 4,
      },
      generatedAt: new Date(start + i * 6 * 3600_000 + (i % 1000)).toISOString(),
      prev,
    });
    records.push(record);
    prev = record.hash;
  }
  return records;
}

/** The text of history.jsonl for `records`: one JCS line each. */
export function historyText(records: readonly PulseRecord[]): string {
  return records.map((r) => `${historyLine(r)}\n`).join("");
}

/** The test dataset key (a fixed seed: tests only) and its verifier key line. */
export const TEST_DATASET_SIGNER = { name: "integrity-platform.example/datasets", secretKeyHex: "7a".repeat(32) };
export const TEST_DATASET_VKEY = verifierKey(
  TEST_DATASET_SIGNER.name,
  publicKeyFromSecret("ed25519", TEST_DATASET_SIGNER.secretKeyHex),
);

/**
 * Signs a checkpoint over the first `size` lines of `text` (default: all) into
 * `<dataDir>/pulse/checkpoint`, and lists the test key in `<dataDir>/keys/datasets.vkey`.
 */
export function signHistory(dataDir: string, text: string, size?: number): void {
  const lines = historyLines(text).slice(0, size);
  mkdirSync(join(dataDir, "pulse"), { recursive: true });
  mkdirSync(join(dataDir, "keys"), { recursive: true });
  // The test key joins the keys already trusted there (a copy of data/keys keeps verifying its manifests).
  const vkeys = join(dataDir, "keys", "datasets.vkey");
  const trusted = existsSync(vkeys) ? readFileSync(vkeys, "utf8") : "";
  if (!trusted.split("\n").includes(TEST_DATASET_VKEY))
    writeFileSync(vkeys, `${trusted}${trusted && !trusted.endsWith("\n") ? "\n" : ""}${TEST_DATASET_VKEY}\n`);
  writeFileSync(
    join(dataDir, "pulse", "checkpoint"),
    signCheckpoint(
      { origin: PULSE_ORIGIN, size: lines.length, rootHash: rootHash(lines.map(leafHashOfText)) },
      TEST_DATASET_SIGNER,
    ),
  );
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
export function manualClock(start = Date.parse("2026-01-01T00:00:00.000Z")): {
  now: () => Date;
  advance: (ms: number) => void;
} {
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
  const server = await startServer({
    host: "127.0.0.1",
    port: 0,
    dataDir: dir,
    log: (line) => logs.push(line),
    ...options,
  });
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

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Decodes a chunked message body (RFC 9112 §7.1); what cannot be decoded is returned as is. */
function dechunk(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = data.indexOf("\r\n", at);
    if (lineEnd < 0) return parts.length ? Buffer.concat(parts) : data;
    const size = Number.parseInt(data.subarray(at, lineEnd).toString("latin1").split(";")[0]!, 16);
    if (!Number.isFinite(size)) return data;
    if (size === 0) return Buffer.concat(parts);
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}

/**
 * Sends `request` (raw bytes: anything, well-formed or not) on a fresh connection and reads the
 * answer until the server closes the connection or `timeoutMs` passes; null when no answer came.
 * Send `Connection: close` in well-formed requests so that the server closes after answering.
 */
export function rawRequest(
  port: number,
  request: string | Buffer,
  options: { timeoutMs?: number; body?: (socket: Socket) => void } = {},
): Promise<RawResponse | null> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const data = Buffer.concat(chunks);
      const headEnd = data.indexOf("\r\n\r\n");
      if (headEnd < 0) return resolve(null);
      const [statusLine = "", ...lines] = data.subarray(0, headEnd).toString("latin1").split("\r\n");
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(":");
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      let body: Buffer = data.subarray(headEnd + 4);
      if (headers["transfer-encoding"]?.toLowerCase() === "chunked") body = dechunk(body);
      else if (headers["content-length"] !== undefined) body = body.subarray(0, Number(headers["content-length"]));
      resolve(status ? { status, headers, body: body.toString("utf8") } : null);
    };
    const timer = setTimeout(finish, options.timeoutMs ?? 10_000);
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("end", finish);
    socket.on("close", finish);
    socket.on("error", finish);
    socket.on("connect", () => {
      socket.write(request);
      options.body?.(socket);
    });
  });
}
