/**
 * `npm run bench -- simulation`: simulation messages per second over the WebSocket, for one
 * connection and for 100 concurrent connections, on loopback.
 *
 * The servers run in a child process (this file with BENCH_ROLE=simulation-server), so that the
 * clients and the server each have a core of the two. The child serves:
 *   - the production app (createApp over the repository's data) with `roundIntervalMs: 0` (rounds
 *     as fast as the socket drains) and room for 100 connections of one key: the subject;
 *   - a bench-only Hono app on the same machinery (api/server/server.ts `listen`: @hono/node-server's
 *     upgrade with a `ws` server) that answers a start message by sending the same messages,
 *     serialized in advance, with no simulation, validation, session or quota: the floor.
 * The clients (`ws`, in this process) run simulations back to back on each connection and count
 * the messages; subject and floor alternate, best of ROUNDS each. Reported, no target yet.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { upgradeWebSocket } from "@hono/node-server";
import { Hono } from "hono";
import { WebSocket } from "ws";
import { ApiKeyStore } from "../api/clients/api-keys.ts";
import { createApp } from "../api/app.ts";
import { listen } from "../api/server/server.ts";
import { tempDir } from "../test/support/api/helpers.ts";
import { formCouncil } from "../core/philosophy/council.ts";
import { simulate } from "../core/philosophy/simulation.ts";
import { Deliberations, SentinelStatus, Virtues } from "../core/schemas/index.ts";
import { printComparisons, type Comparison } from "./harness.ts";
import { startBenchServer } from "./http-bench.ts";

const DATA_DIR = fileURLToPath(new URL("../data", import.meta.url));
const ROUNDS = 5;
const SCENARIOS = Array.from(
  { length: 50 },
  (_, i) =>
    `Scenario ${i}: ${["burn the surplus of the fee pool", "publish the audit export", "rotate the keys", "translate the protocols", "an open question"][i % 5]}`,
);
const SINGLE = { connections: 1, simulationsEach: 100 };
const CONCURRENT = { connections: 100, simulationsEach: 5 };

interface Urls {
  app: string;
  floor: string;
  key: string;
}

/** The streams of every bench scenario, serialized, from the same published files. */
function precomputedStreams(): Map<string, string[]> {
  const read = (path: string) => JSON.parse(readFileSync(join(DATA_DIR, "areas", path), "utf8")) as unknown;
  const digest = `sha256:${"0".repeat(64)}`;
  const council = formCouncil({
    deliberations: Deliberations.parse(read("philosophy/deliberations.json")),
    virtues: Virtues.parse(read("philosophy/virtues.json")),
    sentinelStatus: SentinelStatus.parse(read("government/sentinel-status.json")),
    inputs: { deliberations: digest, virtues: digest, sentinel_status: digest },
  });
  return new Map(SCENARIOS.map((s) => [s, [...simulate(council, s)].map((m) => JSON.stringify(m))]));
}

/** The child: start both servers and print their URLs as one JSON line; run until killed. */
async function serveForBench(): Promise<void> {
  const { dir, cleanup } = tempDir("bench-simulation-");
  const keys = new ApiKeyStore(join(dir, "api-keys.json"));
  const key = (await keys.issue("institutional", "bench", new Date())).token; // keys expire: issued now, as the server reads its clock
  const app = createApp({
    dataDir: DATA_DIR,
    log: () => {},
    keys,
    simulation: { roundIntervalMs: 0, maxConnectionsPerClient: 200 },
  });
  const streams = precomputedStreams();
  const floorApp = new Hono();
  floorApp.get(
    "/philosophy/simulation",
    upgradeWebSocket(() => ({
      onMessage(event, ws) {
        const { scenario } = JSON.parse(String(event.data)) as { scenario: string };
        for (const text of streams.get(scenario)!) ws.send(text);
      },
    })),
  );
  const [appServer, floorServer] = await Promise.all([listen(app, "127.0.0.1", 0), listen(floorApp, "127.0.0.1", 0)]);
  const ws = (url: string) => `${url.replace(/^http/, "ws")}/philosophy/simulation`;
  process.stdout.write(
    `${JSON.stringify({ app: ws(appServer.url), floor: ws(floorServer.url), key } satisfies Urls)}\n`,
  );
  const stop = () => {
    void Promise.all([appServer.close(100), floorServer.close(100)]).finally(() => {
      cleanup();
      process.exit(0);
    });
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

function open(url: string, key: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers: { Authorization: `Bearer ${key}` } });
    ws.once("open", () => resolve(ws));
    ws.once("error", reject);
  });
}

/** Opens the connections, then (timed) runs simulations back to back on each; messages and seconds. */
async function measure(
  url: string,
  key: string,
  shape: { connections: number; simulationsEach: number },
): Promise<{ messages: number; seconds: number }> {
  const sockets = await Promise.all(Array.from({ length: shape.connections }, () => open(url, key)));
  let messages = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    sockets.map(
      (ws, c) =>
        new Promise<void>((resolve, reject) => {
          let done = 0;
          const next = () =>
            ws.send(
              JSON.stringify({
                action: "start_simulation",
                scenario: SCENARIOS[(c * shape.simulationsEach + done) % SCENARIOS.length],
              }),
            );
          ws.on("message", (data) => {
            messages += 1;
            const text = data.toString();
            if (text.startsWith('{"type":"error"')) return reject(new Error(`server error: ${text}`));
            if (!text.includes('"phase":"final"')) return;
            done += 1;
            if (done === shape.simulationsEach) resolve();
            else next();
          });
          ws.once("close", (code) =>
            done < shape.simulationsEach ? reject(new Error(`closed early (${code})`)) : undefined,
          );
          next();
        }),
    ),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  for (const ws of sockets) ws.close(1000);
  return { messages, seconds };
}

export async function run(): Promise<Comparison[]> {
  const { urls, stop } = await startBenchServer<Urls>(fileURLToPath(import.meta.url), "simulation-server");
  try {
    const comparisons: Comparison[] = [];
    for (const [label, shape] of [
      ["one connection", SINGLE],
      ["100 concurrent connections", CONCURRENT],
    ] as const) {
      // Warm-up, then alternate and keep each side's best (fewest seconds for the same messages).
      await measure(urls.app, urls.key, shape);
      await measure(urls.floor, urls.key, shape);
      let subject = { messages: 0, seconds: Infinity };
      let floor = { messages: 0, seconds: Infinity };
      for (let round = 0; round < ROUNDS; round++) {
        const f = await measure(urls.floor, urls.key, shape);
        if (f.seconds < floor.seconds) floor = f;
        const s = await measure(urls.app, urls.key, shape);
        if (s.seconds < subject.seconds) subject = s;
      }
      if (subject.messages !== floor.messages)
        throw new Error(`message counts differ: ${subject.messages} vs ${floor.messages}`);
      comparisons.push({
        name: `simulation messages, ${label} (${shape.simulationsEach} simulations each, ${subject.messages} messages)`,
        subject: "WebSocket /philosophy/simulation (session, bounds, simulation, JSON)",
        floor: "the same messages precomputed, sent through the same server machinery",
        subjectSeconds: subject.seconds,
        floorSeconds: floor.seconds,
        items: subject.messages,
        kind: "speed",
      });
    }
    printComparisons(
      `philosophy simulation over WebSocket on loopback (${ROUNDS} alternating rounds, best round)`,
      comparisons,
    );
    return comparisons;
  } finally {
    await stop();
  }
}

if (process.env.BENCH_ROLE === "simulation-server") await serveForBench();
