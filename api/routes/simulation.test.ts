/**
 * The simulation WebSocket over real loopback connections (`ws` as the client, the API on a real
 * server): a full stream and its determinism, every bound, malformed input, 100 concurrent
 * clients, a slow consumer, shutdown. Clients that must count as different clients connect from
 * different loopback addresses (127.0.0.0/8 is all loopback on Linux).
 */
import { once } from "node:events";
import { connect as connectSocket } from "node:net";
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { formCouncil } from "../../core/philosophy/council.ts";
import { simulate } from "../../core/philosophy/simulation.ts";
import { Deliberations, SentinelStatus, SimulationServerMessage, Virtues } from "../../core/schemas/index.ts";
import { tempDir } from "../../test/support/store/helpers.ts";
import { ApiKeyStore } from "../clients/api-keys.ts";
import { createApp } from "../app.ts";
import type { LogLine } from "../middleware/request-log.ts";
import { startServer, type RunningServer } from "../server/server.ts";
import type { SimulationLimits } from "../simulation/session.ts";

const REPO_DATA = join(import.meta.dirname, "../../data");
const FILES = [
  "philosophy/datapackage.json",
  "philosophy/deliberations.json",
  "philosophy/virtues.json",
  "government/datapackage.json",
  "government/sentinel-status.json",
];

let dir: string;
let cleanup: () => void;
let dataDir: string;
let keys: ApiKeyStore;
let institutionalKey: string;

/** A data folder with just the simulation's inputs, copied from the repository's published data. */
function copyInputs(to: string): void {
  for (const file of FILES) {
    mkdirSync(join(to, "areas", file.split("/")[0]!), { recursive: true });
    cpSync(join(REPO_DATA, "areas", file), join(to, "areas", file));
  }
}

beforeAll(async () => {
  ({ dir, cleanup } = tempDir("simulation-api-"));
  dataDir = join(dir, "data");
  copyInputs(dataDir);
  keys = new ApiKeyStore(join(dir, "access.sqlite"));
  institutionalKey = (await keys.issue("institutional", "test institute", new Date())).token;
});
afterAll(() => cleanup());

const servers: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close(100)));
});

const FAST: Partial<SimulationLimits> = { roundIntervalMs: 0 };

async function api(
  limits: Partial<SimulationLimits> = {},
  extra: { trustedOrigins?: string[]; dataDir?: string } = {},
) {
  const logs: LogLine[] = [];
  const server = await startServer({
    host: "127.0.0.1",
    port: 0,
    dataDir: extra.dataDir ?? dataDir,
    keysFile: keys.path,
    log: (line) => logs.push(line),
    simulation: { ...FAST, ...limits },
    ...(extra.trustedOrigins ? { trustedOrigins: extra.trustedOrigins } : {}),
  });
  servers.push(server);
  return { server, logs, url: `${server.url.replace(/^http/, "ws")}/philosophy/simulation` };
}

interface Client {
  ws: WebSocket;
  messages: string[];
  closed: Promise<{ code: number; reason: string }>;
  headers: Record<string, string | string[] | undefined>;
}

interface ConnectOptions {
  headers?: Record<string, string>;
  from?: string;
}

/** Opens a connection and records everything it receives; rejects with the HTTP status of a refused upgrade. */
function connect(url: string, options: ConnectOptions = {}): Promise<Client> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, {
      headers: options.headers ?? {},
      ...(options.from ? { localAddress: options.from } : {}),
    });
    const messages: string[] = [];
    let headers: Client["headers"] = {};
    const closed = new Promise<{ code: number; reason: string }>((done) =>
      ws.once("close", (code, reason) => done({ code, reason: reason.toString() })),
    );
    ws.on("message", (data, binary) => messages.push(binary ? "<binary>" : data.toString()));
    ws.once("upgrade", (res) => (headers = res.headers));
    ws.once("unexpected-response", (_req, res) => {
      reject(
        Object.assign(new Error(`upgrade refused: ${res.statusCode}`), {
          status: res.statusCode,
          headers: res.headers,
        }),
      );
      res.resume();
      ws.terminate();
    });
    ws.once("error", reject);
    ws.once("open", () => resolve({ ws, messages, closed, headers }));
  });
}

async function refusedStatus(
  url: string,
  options: ConnectOptions = {},
): Promise<{ status: number; headers: Record<string, unknown> }> {
  try {
    const client = await connect(url, options);
    client.ws.terminate();
  } catch (error) {
    return error as { status: number; headers: Record<string, unknown> };
  }
  throw new Error("the upgrade was accepted");
}

const start = (scenario: string) => JSON.stringify({ action: "start_simulation", scenario });

/** Resolves once the client has received a final message (or an error) after `from` messages. */
async function untilFinal(client: Client, from = 0): Promise<string[]> {
  for (;;) {
    const got = client.messages.slice(from);
    if (got.some((m) => m.includes('"phase":"final"') || m.startsWith('{"type":"error"'))) return got;
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setTimeout(r, 5));
}

let council: ReturnType<typeof formCouncil> | undefined;

/** The stream core/philosophy computes from the same published files, serialized. */
/** Scenarios that usually deliberate for several rounds; the first that does on the published data is used (the sample data changes). */
const LONG_CANDIDATES = [
  "Burn the surplus of the fee pool",
  "Weigh transparency against privacy in the audit export",
  "Rotate the government API keys",
  "Lower the quorum for urgent sessions",
  "Fund the academics' replication grants",
];
const longRunning = (): string => {
  const found = LONG_CANDIDATES.find((s) => expectedStream(s).length > 4);
  if (!found) throw new Error("no candidate scenario deliberates for more than three rounds on this data");
  return found;
};

function expectedStream(scenario: string, maxRounds = 50): string[] {
  council ??= readCouncil();
  return [...simulate(council, scenario, { maxRounds })].map((m) => JSON.stringify(m));
}

function readCouncil() {
  const read = (path: string) => JSON.parse(readFileSync(join(dataDir, "areas", path), "utf8")) as unknown;
  const hashOf = (area: string, path: string) =>
    (
      JSON.parse(readFileSync(join(dataDir, "areas", area, "datapackage.json"), "utf8")) as {
        resources: { path: string; hash: string }[];
      }
    ).resources.find((r) => r.path === path)!.hash;
  return formCouncil({
    deliberations: Deliberations.parse(read("philosophy/deliberations.json")),
    virtues: Virtues.parse(read("philosophy/virtues.json")),
    sentinelStatus: SentinelStatus.parse(read("government/sentinel-status.json")),
    inputs: {
      deliberations: hashOf("philosophy", "deliberations.json"),
      virtues: hashOf("philosophy", "virtues.json"),
      sentinel_status: hashOf("government", "sentinel-status.json"),
    },
  });
}

const ajv = new Ajv2020({ strict: true, allErrors: true });
const publishedSchema = (name: string) =>
  ajv.compile(
    JSON.parse(readFileSync(join(REPO_DATA, "schemas", "philosophy", `${name}.schema.json`), "utf8")) as object,
  );
const validUpdate = publishedSchema("simulation-update");
const validError = publishedSchema("simulation-error");

describe("a full stream", () => {
  it("streams the rounds the pure simulation computes, byte for byte, every message valid, and again the same", async () => {
    const { url } = await api();
    const scenario = longRunning();
    const expected = expectedStream(scenario);
    expect(expected.length).toBeGreaterThan(3);
    const streams: string[][] = [];
    for (let i = 0; i < 2; i++) {
      const client = await connect(url);
      client.ws.send(start(scenario));
      streams.push(await untilFinal(client));
      client.ws.close(1000);
    }
    expect(streams[0]).toEqual(expected);
    expect(streams[1]).toEqual(expected);
    for (const text of streams[0]!) {
      const message = JSON.parse(text) as unknown;
      expect(SimulationServerMessage.parse(message)).toEqual(message);
      expect(validUpdate(message), JSON.stringify(validUpdate.errors)).toBe(true);
    }
    const last = JSON.parse(streams[0]!.at(-1)!) as { current_state: { phase: string; outcome: string } };
    expect(last.current_state.phase).toBe("final");
    expect(["approved", "rejected", "deferred"]).toContain(last.current_state.outcome);
  });

  it("allows another simulation on the same connection once one has finished", async () => {
    const { url } = await api();
    const client = await connect(url);
    client.ws.send(start("Burn the surplus of the fee pool"));
    const first = await untilFinal(client);
    client.ws.send(start("Rotate the government API keys"));
    const second = await untilFinal(client, first.length);
    expect(first).toEqual(expectedStream("Burn the surplus of the fee pool"));
    expect(second).toEqual(expectedStream("Rotate the government API keys"));
    client.ws.close();
  });

  it("answers a plain GET with 426 and the upgrade it needs", async () => {
    const { server } = await api();
    const res = await fetch(`${server.url}/philosophy/simulation`);
    expect(res.status).toBe(426);
    expect(res.headers.get("upgrade")).toBe("websocket");
    expect(res.headers.get("content-type")).toBe("application/problem+json");
  });

  it.each([
    ["HTTP/1.1 with Connection: close", "HTTP/1.1", "Connection: close\r\n"],
    ["HTTP/1.0, which closes unless it asks to keep alive", "HTTP/1.0", ""],
  ])("ends the connection with the 426 when the client asked to close it (%s)", async (_, version, connection) => {
    const { server } = await api();
    const port = Number(new URL(server.url).port);
    const socket = connectSocket(port, "127.0.0.1");
    let answer = "";
    socket.on("data", (chunk: Buffer) => (answer += chunk.toString("latin1")));
    socket.write(`GET /philosophy/simulation ${version}\r\nHost: 127.0.0.1:${port}\r\n${connection}\r\n`);
    // The server ends the socket after the answer: no keep-alive wait (which lasts seconds) before "end".
    const ended = await Promise.race([
      once(socket, "end").then(() => "ended"),
      new Promise((resolve) => setTimeout(() => resolve("still open"), 1_000)),
    ]);
    socket.destroy();
    expect(ended).toBe("ended");
    expect(answer).toMatch(/^HTTP\/1\.1 426 /);
    expect(answer).toMatch(/\r\nconnection: upgrade, close\r\n/i);
  });

  it("refuses a simulation (1011) and the upgrade (503) when a published input no longer matches its manifest", async () => {
    const tampered = join(dir, "tampered");
    copyInputs(tampered);
    const file = join(tampered, "areas", "philosophy", "virtues.json");
    const original = readFileSync(file, "utf8");
    const { url } = await api({}, { dataDir: tampered });
    // Opened while the data verifies; the file changes before the simulation starts.
    const client = await connect(url);
    writeFileSync(file, `${original} `); // still valid JSON, no longer the published bytes
    client.ws.send(start("Burn the surplus of the fee pool"));
    expect(await client.closed).toEqual({ code: 1011, reason: "data-unverified" });
    expect(JSON.parse(client.messages[0]!)).toMatchObject({ type: "error", code: "data-unverified" });
    expect((await refusedStatus(url)).status).toBe(503);
  });

  it("sends open connections a 1001 close when the server shuts down", async () => {
    const { server, url } = await api();
    const client = await connect(url);
    servers.splice(servers.indexOf(server), 1);
    await server.close(2000);
    expect((await client.closed).code).toBe(1001);
  });
});

describe("malformed, oversized and unknown messages", () => {
  const cases: { name: string; send: (ws: WebSocket) => void; code: string | null; close: number }[] = [
    { name: "not JSON", send: (ws) => ws.send("start please"), code: "malformed-message", close: 1008 },
    {
      name: "an unknown field",
      send: (ws) => ws.send(JSON.stringify({ action: "start_simulation", scenario: "x", speed: 2 })),
      code: "malformed-message",
      close: 1008,
    },
    {
      name: "a scenario of the wrong type",
      send: (ws) => ws.send(JSON.stringify({ action: "start_simulation", scenario: 7 })),
      code: "malformed-message",
      close: 1008,
    },
    {
      name: "an empty scenario",
      send: (ws) => ws.send(JSON.stringify({ action: "start_simulation", scenario: " " })),
      code: "malformed-message",
      close: 1008,
    },
    { name: "a JSON array", send: (ws) => ws.send("[1,2]"), code: "malformed-message", close: 1008 },
    {
      name: "an unknown action",
      send: (ws) => ws.send(JSON.stringify({ action: "stop_simulation" })),
      code: "unsupported-message",
      close: 1003,
    },
    {
      name: "a binary frame",
      send: (ws) => ws.send(Buffer.from(start("x"))),
      code: "unsupported-message",
      close: 1003,
    },
    {
      name: "a message over the size limit",
      send: (ws) => ws.send(start("x".repeat(5000))),
      code: "message-too-large",
      close: 1009,
    },
    // Over the transport's 64 KiB limit `ws` itself refuses the frame (no error message can precede it).
    { name: "a frame over 64 KiB", send: (ws) => ws.send(start("x".repeat(70_000))), code: null, close: 1009 },
  ];
  for (const c of cases) {
    it(`${c.name} → ${c.code ?? "no message"}, close ${c.close}`, async () => {
      const { url } = await api();
      const client = await connect(url);
      c.send(client.ws);
      const closed = await client.closed;
      expect(closed.code).toBe(c.close);
      if (c.code === null) {
        expect(client.messages).toEqual([]);
        return;
      }
      expect(client.messages).toHaveLength(1);
      const error = JSON.parse(client.messages[0]!) as { type: string; code: string; message: string };
      expect(validError(error), JSON.stringify(validError.errors)).toBe(true);
      expect(error.code).toBe(c.code);
      expect(closed.reason).toBe(c.code);
    });
  }
});

describe("bounds", () => {
  it("refuses limits that make no sense when the app is created", () => {
    for (const simulation of [
      { maxRounds: 0 },
      { maxRounds: 1001 },
      { maxMessageBytes: 1.5 },
      { idleTimeoutMs: -1 },
      { roundIntervalMs: Number.NaN },
    ]) {
      expect(() => createApp({ dataDir, log: () => {}, simulation }), JSON.stringify(simulation)).toThrow(RangeError);
    }
    expect(() =>
      createApp({ dataDir, log: () => {}, simulation: { roundIntervalMs: 0, maxRounds: 1000 } }),
    ).not.toThrow();
  });

  it("runs one simulation at a time per connection (a second start is refused, the first goes on)", async () => {
    const { url } = await api({ roundIntervalMs: 20 });
    const client = await connect(url);
    client.ws.send(start("Burn the surplus of the fee pool"));
    client.ws.send(start("Rotate the government API keys"));
    const got = await untilFinal(client);
    const errors = got.filter((m) => m.startsWith('{"type":"error"'));
    expect(errors.map((m) => (JSON.parse(m) as { code: string }).code)).toEqual(["simulation-running"]);
    await until(() => client.messages.some((m) => m.includes('"phase":"final"')));
    expect(client.messages.filter((m) => !m.startsWith('{"type":"error"'))).toEqual(
      expectedStream("Burn the surplus of the fee pool"),
    );
    expect(client.ws.readyState).toBe(WebSocket.OPEN);
    client.ws.close();
  });

  it("stops at the maximum number of rounds", async () => {
    const { url } = await api({ maxRounds: 3 });
    const client = await connect(url);
    client.ws.send(start(longRunning()));
    const got = (await untilFinal(client)).map(
      (m) => JSON.parse(m) as { current_state: { round: number; end_reason: string | null; max_rounds: number } },
    );
    expect(got.map((m) => m.current_state.round)).toEqual([0, 1, 2, 3]);
    expect(got.at(-1)!.current_state).toMatchObject({ end_reason: "round_limit", max_rounds: 3 });
    client.ws.close();
  });

  it("closes an idle connection with idle-timeout (1000), also after a finished simulation", async () => {
    const { url } = await api({ idleTimeoutMs: 300 });
    const idle = await connect(url);
    expect(await idle.closed).toEqual({ code: 1000, reason: "idle-timeout" });
    expect((JSON.parse(idle.messages[0]!) as { code: string }).code).toBe("idle-timeout");

    const busy = await connect(url);
    busy.ws.send(start("Burn the surplus of the fee pool"));
    const stream = await untilFinal(busy);
    expect((await busy.closed).code).toBe(1000);
    expect(busy.messages.slice(0, stream.length)).toEqual(expectedStream("Burn the surplus of the fee pool"));
  });

  it("limits the open connections of one client, and frees a slot when one closes", async () => {
    const { url } = await api({ maxConnectionsPerClient: 2 });
    const from = "127.0.0.21";
    const a = await connect(url, { from });
    const b = await connect(url, { from });
    expect((await refusedStatus(url, { from })).status).toBe(429);
    // Another client is not affected.
    const other = await connect(url, { from: "127.0.0.22" });
    a.ws.close();
    await a.closed;
    let c: Client | undefined;
    for (let attempt = 0; !c; attempt++) {
      // The slot is freed when the server sees the TCP socket close, just after the client does.
      c = await connect(url, { from }).catch((error: { status?: number }) => {
        if (error.status !== 429 || attempt > 200) throw error;
        return undefined;
      });
    }
    for (const client of [b, c, other]) client.ws.close();
  });

  it("counts each connection against the philosophy quota, refuses the 101st of the day with 429, and charges further simulations on a connection", async () => {
    const { url } = await api();
    const from = "127.0.0.31";
    const first = await connect(url, { from });
    expect(first.headers["ratelimit-policy"]).toBe('"daily";q=100;w=86400');
    expect(first.headers["ratelimit"]).toMatch(/^"daily";r=99;t=\d+$/);
    first.ws.send(start("Burn the surplus of the fee pool"));
    await untilFinal(first);
    // 98 more connections: 99 of the 100 requests are spent.
    for (let i = 0; i < 98; i++) {
      const client = await connect(url, { from });
      client.ws.terminate();
    }
    // The first connection's second simulation takes the 100th request; its third is refused.
    first.ws.send(start("Rotate the government API keys"));
    const second = await untilFinal(first, first.messages.length);
    expect(second.at(-1)).toContain('"phase":"final"');
    first.ws.send(start("Translate the protocols"));
    expect(await first.closed).toEqual({ code: 1008, reason: "rate-limited" });
    expect(first.messages.at(-1)).toContain('"code":"rate-limited"');
    const refused = await refusedStatus(url, { from });
    expect(refused.status).toBe(429);
    expect(refused.headers["retry-after"]).toMatch(/^\d+$/);
    expect(refused.headers["ratelimit"]).toMatch(/^"daily";r=0;t=\d+$/);
  });

  it("keys with a higher tier get their quota", async () => {
    const { url } = await api();
    const client = await connect(url, { headers: { Authorization: `Bearer ${institutionalKey}` } });
    expect(client.headers["ratelimit"]).toMatch(/^"daily";r=9999;/);
    client.ws.close();
  });
});

describe("origin check (cross-site WebSocket hijacking)", () => {
  it("accepts the same origin, configured origins and clients without Origin; refuses others without counting them", async () => {
    const { server, url } = await api({}, { trustedOrigins: ["https://dash.example.org"] });
    const host = new URL(server.url).host;
    const from = "127.0.0.41";
    const same = await connect(url, { from, headers: { Origin: `http://${host}` } });
    const allowed = await connect(url, { from, headers: { Origin: "https://dash.example.org" } });
    for (const origin of ["https://evil.example", "null", `http://${host.replace(/:\d+$/, ":1")}`]) {
      const refused = await refusedStatus(url, { from, headers: { Origin: origin } });
      expect(refused.status, origin).toBe(403);
    }
    const plain = await connect(url, { from });
    // Three accepted connections counted: the refused ones took nothing from the quota.
    expect(plain.headers["ratelimit"]).toMatch(/^"daily";r=97;/);
    for (const c of [same, allowed, plain]) c.ws.close();
  });
});

describe("load", () => {
  it("serves 100 concurrent clients, each its own deterministic stream", async () => {
    const { url } = await api({ roundIntervalMs: 5 });
    const scenarios = Array.from(
      { length: 100 },
      (_, i) => `Scenario ${i}: ${i % 2 ? "burn the surplus" : "publish the audit export"}`,
    );
    const clients = await Promise.all(scenarios.map((_, i) => connect(url, { from: `127.0.1.${i + 1}` })));
    clients.forEach((c, i) => c.ws.send(start(scenarios[i]!)));
    const streams = await Promise.all(clients.map((c) => untilFinal(c)));
    streams.forEach((stream, i) => expect(stream, scenarios[i]).toEqual(expectedStream(scenarios[i]!)));
    for (const c of clients) c.ws.close();
  });

  const pause = (client: Client) => (client.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket;
  const longScenario =
    `A long scenario to make each round larger: ${"deliberate the audit export and its privacy ".repeat(12)}`.slice(
      0,
      500,
    );

  it("waits for a slow reader instead of queueing, and delivers every stream whole once it reads again", async () => {
    const limit = 16 * 1024;
    const { logs, url } = await api({ maxBufferedBytes: limit, stallTimeoutMs: 60_000 });
    const client = await connect(url, { headers: { Authorization: `Bearer ${institutionalKey}` } });
    // Stop reading: the kernel buffers fill (a few MB on loopback), then the server must wait.
    pause(client).pause();
    let sent = 0;
    while (!logs.some((l) => l.event === "simulation.waiting")) {
      client.ws.send(start(longScenario));
      sent += 1;
      await new Promise((r) => setTimeout(r, 2));
    }
    pause(client).resume();
    await until(
      () =>
        logs.filter((l) => l.event === "simulation.finished").length +
          client.messages.filter((m) => m.includes('"simulation-running"')).length >=
        sent,
    );
    const expected = expectedStream(longScenario);
    const finished = logs.filter((l) => l.event === "simulation.finished").length;
    expect(finished).toBeGreaterThan(1);
    await until(() => client.messages.filter((m) => m.includes('"phase":"final"')).length >= finished);
    const all = client.messages.filter((m) => !m.startsWith('{"type":"error"'));
    expect(all).toEqual(Array.from({ length: finished }, () => expected).flat());
    const closed = logs.find((l) => l.event === "simulation.closed");
    expect(closed).toBeUndefined();
    client.ws.close();
  });

  it("never queues without limit for a reader that stops reading, and cuts it off", async () => {
    const limit = 16 * 1024;
    const { logs, url } = await api({ maxBufferedBytes: limit, stallTimeoutMs: 300 });
    const client = await connect(url, { headers: { Authorization: `Bearer ${institutionalKey}` } });
    pause(client).pause();
    const event = (name: string) => logs.find((l) => l.event === name);
    // Ask for simulations quickly until the server waits for the reader, then only now and then:
    // the server must cut the reader off (after the stall timeout, or at once when a reply would queue).
    let last = 0;
    while (!event("simulation.closed")) {
      if (!event("simulation.waiting") || Date.now() - last > 500) {
        client.ws.send(start(longScenario));
        last = Date.now();
      }
      await new Promise((r) => setTimeout(r, 2));
    }
    const closed = event("simulation.closed")!;
    expect(closed.ended_by).toBe("slow-consumer");
    const largest = Math.max(...expectedStream(longScenario).map((m) => Buffer.byteLength(m)));
    expect(closed.max_buffered_bytes as number).toBeGreaterThan(limit);
    expect(closed.max_buffered_bytes as number).toBeLessThanOrEqual(limit + largest + 64);
    expect(event("simulation.slow-consumer")!.buffered_bytes as number).toBeGreaterThan(limit);
    client.ws.terminate();
  });
});
