/**
 * N API instances (`api/start.ts --serve-only`, one process each) behind HAProxy on this machine:
 * what `npm run deploy:local` runs for a try-out and what the load-balancer tests run
 * (test/support/cluster.ts). The store is a parameter: every instance gets the environment the
 * caller gives it (today `LEDGER_DB` naming one shared SQLite file; `DATABASE_URL` for PostgreSQL).
 *
 * Each instance listens on a port of its own, fixed for its life, so `restart(i)` brings it back
 * where HAProxy's configuration (deploy/haproxy.cfg, rendered by haproxy-config.ts) expects it.
 * Every process runs in a process group of its own and `stop()` ends the groups; an `exit` hook
 * kills them too if the caller dies first, so no process outlives the cluster.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { renderHaproxyConfig } from "./haproxy-config.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const START = join(ROOT, "api", "start.ts");
export const HAPROXY_BIN = "/usr/sbin/haproxy";
const HOST = "127.0.0.1";
const BACKEND = "api";

export class ClusterError extends Error {
  readonly code = "CLUSTER";
}

export interface LocalClusterOptions {
  instances: number;
  /** The environment of instance `i` (0-based): the store, the keys, STATE_DIR, DATA_DIR, … */
  env: (i: number) => NodeJS.ProcessEnv;
  /** The balancer's port (0: a free one). */
  port?: number;
  /** The instances' ports (default: free ones). */
  instancePorts?: readonly number[];
  /** HAProxy's `default-server` health-check timings (default: the file's). */
  healthCheck?: string;
  /** Where the rendered configuration and the runtime socket go (default: a new temp folder, removed by stop). */
  dir?: string;
  /** Whatever an instance or HAProxy prints, line by line (default: kept for `output(i)` only). */
  echo?: (source: string, line: string) => void;
  /** How long an instance may take to print its `serving` line (ms). */
  startTimeoutMs?: number;
}

export interface ClusterInstance {
  /** `api1` …: its INSTANCE_ID and its server name in HAProxy. */
  readonly id: string;
  readonly url: string;
  readonly port: number;
  /** The running process (undefined between a kill and a restart). */
  readonly pid: number | undefined;
}

export interface LocalCluster {
  /** The balancer's URL. */
  readonly url: string;
  readonly instances: readonly ClusterInstance[];
  /** The rendered configuration's path and its runtime API socket. */
  readonly configPath: string;
  readonly socketPath: string;
  /** Sends `signal` to instance `i`'s process group and waits until it exited. */
  kill(i: number, signal?: NodeJS.Signals): Promise<void>;
  /** Starts instance `i` again on its port (after `kill`) and waits until HAProxy has it UP. */
  restart(i: number): Promise<void>;
  /** HAProxy's view of each server: `{ api1: "UP", api2: "DOWN", … }` (`show stat`). */
  serverStates(): Promise<Record<string, string>>;
  /** Waits until HAProxy reports instance `i` in `state` ("UP" or "DOWN"). */
  waitFor(i: number, state: "UP" | "DOWN", timeoutMs?: number): Promise<void>;
  /** What instance `i` (or `"haproxy"`) printed. */
  output(i: number | "haproxy"): string;
  /** SIGTERM to every instance (they close gracefully), then HAProxy; removes the temp folder. */
  stop(): Promise<void>;
}

/** A free loopback port (the OS's, released at once: good enough on one machine). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, HOST, () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** One command on HAProxy's runtime API; resolves with its whole answer. */
export function runtimeCommand(socketPath: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const connection = createConnection(socketPath);
    let answer = "";
    connection.setEncoding("utf8");
    connection.on("connect", () => connection.end(`${command}\n`));
    connection.on("data", (chunk: string) => (answer += chunk));
    connection.on("end", () => resolve(answer));
    connection.on("error", reject);
  });
}

/** `show stat` → each server of the backend with its status (`UP`, `DOWN`, `UP 1/2`, …). */
export function parseServerStates(csv: string, backend = BACKEND): Record<string, string> {
  const [header, ...rows] = csv.trim().split("\n");
  const columns = (header ?? "").replace(/^# /, "").split(",");
  const [px, sv, status] = ["pxname", "svname", "status"].map((name) => columns.indexOf(name));
  const states: Record<string, string> = {};
  for (const row of rows) {
    const cells = row.split(",");
    if (cells[px!] === backend && cells[sv!] !== "BACKEND") states[cells[sv!]!] = cells[status!]!;
  }
  return states;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Process {
  child: ChildProcess;
  exited: Promise<void>;
}

/** Starts `command` in a process group of its own, its lines to `onLine`. */
function startProcess(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  onLine: (line: string) => void,
): Process {
  const child = spawn(command, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  for (const stream of [child.stdout!, child.stderr!]) {
    let pending = "";
    stream.setEncoding("utf8");
    stream.on("data", (chunk: string) => {
      const lines = (pending + chunk).split("\n");
      pending = lines.pop()!;
      for (const line of lines) onLine(line);
    });
  }
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return { child, exited };
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

export async function startLocalCluster(options: LocalClusterOptions): Promise<LocalCluster> {
  if (!Number.isInteger(options.instances) || options.instances < 1)
    throw new ClusterError("instances must be a positive integer");
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), "ip-cluster-"));
  const ownsDir = options.dir === undefined;
  const port = options.port || (await freePort());
  const ports =
    options.instancePorts ?? (await Promise.all(Array.from({ length: options.instances }, () => freePort())));
  const ids = ports.map((_, i) => `api${i + 1}`);
  const outputs = new Map<number | "haproxy", string[]>();
  const record = (source: number | "haproxy", line: string) => {
    const lines = outputs.get(source) ?? [];
    lines.push(line);
    outputs.set(source, lines);
    options.echo?.(source === "haproxy" ? "haproxy" : ids[source]!, line);
  };
  const running: (Process | undefined)[] = [];
  let haproxy: Process | undefined;
  const killAll = () => {
    for (const p of running) if (p) killGroup(p.child, "SIGKILL");
    if (haproxy) killGroup(haproxy.child, "SIGKILL");
  };
  process.on("exit", killAll);

  const startInstance = (i: number): Promise<void> => {
    const env = { ...options.env(i), HOST, PORT: String(ports[i]), INSTANCE_ID: ids[i] };
    const started = startProcess(process.execPath, [START, "--serve-only"], env, (line) => {
      record(i, line);
      if (line.startsWith("serving ")) serving();
    });
    running[i] = started;
    let serving!: () => void;
    const timeout = options.startTimeoutMs ?? 30_000;
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new ClusterError(`${ids[i]} did not serve within ${timeout} ms:\n${(outputs.get(i) ?? []).join("\n")}`),
          ),
        timeout,
      );
      serving = () => {
        clearTimeout(timer);
        resolve();
      };
      void started.exited.then(() => {
        clearTimeout(timer);
        reject(new ClusterError(`${ids[i]} exited before serving:\n${(outputs.get(i) ?? []).join("\n")}`));
      });
    });
  };

  const configPath = join(dir, "haproxy.cfg");
  const socketPath = join(dir, "admin.sock");
  const serverStates = async () => parseServerStates(await runtimeCommand(socketPath, "show stat"));
  const waitFor = async (i: number, state: "UP" | "DOWN", timeoutMs = 20_000) => {
    const deadline = Date.now() + timeoutMs;
    let last: Record<string, string> = {};
    while (Date.now() < deadline) {
      try {
        last = await serverStates();
        if (last[ids[i]!] === state) return;
      } catch {
        // the runtime socket is not up yet
      }
      await sleep(50);
    }
    throw new ClusterError(
      `HAProxy did not report ${ids[i]} ${state} within ${timeoutMs} ms (last: ${JSON.stringify(last)})`,
    );
  };

  try {
    await Promise.all(ports.map((_, i) => startInstance(i)));
    const config = renderHaproxyConfig({
      bind: `${HOST}:${port}`,
      statsSocket: socketPath,
      servers: ids.map((name, i) => ({ name, address: `${HOST}:${ports[i]}` })),
      ...(options.healthCheck ? { defaultServer: options.healthCheck } : {}),
    });
    writeFileSync(configPath, config);
    haproxy = startProcess(HAPROXY_BIN, ["-f", configPath, "-db"], { PATH: process.env.PATH }, (line) =>
      record("haproxy", line),
    );
    void haproxy.exited.then(() => record("haproxy", "(haproxy exited)"));
    for (let i = 0; i < ids.length; i++) await waitFor(i, "UP");
  } catch (error) {
    killAll();
    process.off("exit", killAll);
    if (ownsDir) rmSync(dir, { recursive: true, force: true });
    throw error;
  }

  const instances = ids.map((id, i) => ({
    id,
    url: `http://${HOST}:${ports[i]}`,
    port: ports[i]!,
    get pid() {
      const child = running[i]?.child;
      return child && child.exitCode === null && child.signalCode === null ? child.pid : undefined;
    },
  }));
  let stopped = false;
  return {
    url: `http://${HOST}:${port}`,
    instances,
    configPath,
    socketPath,
    async kill(i, signal = "SIGTERM") {
      const p = running[i];
      if (!p) return;
      killGroup(p.child, signal);
      await p.exited;
      running[i] = undefined;
    },
    async restart(i) {
      if (running[i]) throw new ClusterError(`${ids[i]} is running; kill it first`);
      await startInstance(i);
      await waitFor(i, "UP");
    },
    serverStates,
    waitFor,
    output: (source) => (outputs.get(source) ?? []).join("\n"),
    async stop() {
      if (stopped) return;
      stopped = true;
      const exits = running.flatMap((p) => (p ? [p.exited] : []));
      for (const p of running) if (p) killGroup(p.child, "SIGTERM");
      // A graceful close waits for requests in flight; past that, the group is killed.
      const grace = setTimeout(killAll, 10_000);
      await Promise.all(exits);
      clearTimeout(grace);
      if (haproxy) {
        killGroup(haproxy.child, "SIGTERM");
        await haproxy.exited;
      }
      process.off("exit", killAll);
      if (ownsDir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
