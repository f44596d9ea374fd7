/**
 * A throwaway PostgreSQL cluster from Debian's packages, for the tests and the `postgres` benchmark:
 * `initdb` into a private folder (as the `postgres` user when this runs as root: PostgreSQL refuses
 * root), the server on a free loopback port with its socket in that folder, removed when stopped.
 * Never a mock: races need a real server. A missing server is an error, never a skip — `npm test`'s
 * preflight installs the `postgresql` package.
 *
 * The test run starts one cluster (test/global-setup.ts) and hands its URL to the workers in
 * PG_TEST_URL; each test file asks for a database of its own (`freshDatabase`).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";

export const PG_TEST_URL_VAR = "PG_TEST_URL";

export interface PostgresCluster {
  /** postgres://postgres@127.0.0.1:PORT/postgres */
  url: string;
  port: number;
  dir: string;
  /** Stops the server with `pg_ctl -m <mode>` (immediate: as a crash would). */
  stop(mode?: "fast" | "immediate"): void;
  /** Starts the server again on the same port (after `stop`). */
  start(): void;
  /** Stops the server and removes its folder. */
  remove(): void;
}

/** The newest PostgreSQL server binaries Debian installed, e.g. /usr/lib/postgresql/15/bin. */
export function postgresBin(): string {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => /^\d+$/.test(v))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const bin = versions.map((v) => join(root, v, "bin")).find((b) => existsSync(join(b, "pg_ctl")));
  if (!bin)
    throw new Error(
      "PostgreSQL server is not installed (no /usr/lib/postgresql/*/bin/pg_ctl): apt-get install postgresql",
    );
  return bin;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Runs a server binary as the user that owns the cluster. */
function runAs(owner: string | null, bin: string, args: string[]): void {
  const [command, argv] = owner ? ["runuser", ["-u", owner, "--", bin, ...args]] : [bin, args];
  const result = spawnSync(command, argv, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  if (result.status !== 0)
    throw new Error(
      `${bin.split("/").pop()} ${args[0] ?? ""} failed: ${result.stderr || result.stdout || result.error?.message}`,
    );
}

/**
 * Starts a new cluster. `durable: false` (tests) turns fsync off — a crash of the server process
 * still loses nothing the OS has; `true` (the benchmark) keeps PostgreSQL's defaults.
 */
export async function startCluster(options: { durable?: boolean } = {}): Promise<PostgresCluster> {
  const bin = postgresBin();
  const owner = process.getuid?.() === 0 ? "postgres" : null;
  const dir = mkdtempSync(join(tmpdir(), "ip-postgres-"));
  if (owner) {
    const uid = Number(execFileSync("id", ["-u", owner], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", owner], { encoding: "utf8" }).trim());
    chownSync(dir, uid, gid);
  }
  const data = join(dir, "data");
  runAs(owner, join(bin, "initdb"), ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C", "-N"]);
  const port = await freePort();
  const settings = [
    `-p ${port}`,
    "-c listen_addresses=127.0.0.1",
    `-c unix_socket_directories=${dir}`,
    "-c max_connections=200",
    ...(options.durable ? [] : ["-c fsync=off", "-c full_page_writes=off"]),
  ].join(" ");
  const start = () =>
    runAs(owner, join(bin, "pg_ctl"), [
      "start",
      "-D",
      data,
      "-w",
      "-t",
      "60",
      "-l",
      join(dir, "server.log"),
      "-o",
      settings,
    ]);
  const stop = (mode: "fast" | "immediate" = "fast") =>
    runAs(owner, join(bin, "pg_ctl"), ["stop", "-D", data, "-w", "-t", "60", "-m", mode]);
  start();
  let removed = false;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    dir,
    stop,
    start,
    remove() {
      if (removed) return;
      removed = true;
      try {
        stop("immediate");
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The test run's cluster (test/global-setup.ts); throws when there is none. */
export function testClusterUrl(): string {
  const url = process.env[PG_TEST_URL_VAR];
  if (!url)
    throw new Error(
      `${PG_TEST_URL_VAR} is not set: run the tests through vitest (test/global-setup.ts starts PostgreSQL)`,
    );
  return url;
}

let databases = 0;

/** A new, empty database on the test run's cluster (or the cluster at `clusterUrl`); its URL. */
export async function freshDatabase(label = "t", clusterUrl: string = testClusterUrl()): Promise<string> {
  const base = new URL(clusterUrl);
  const name = `${label.replace(/[^a-z0-9_]/gi, "_").toLowerCase()}_${process.pid}_${Date.now().toString(36)}_${databases++}`;
  const client = new pg.Client({ connectionString: base.href });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  base.pathname = `/${name}`;
  return base.href;
}
