/**
 * N API instances behind HAProxy for the tests: deploy/local-cluster.ts (the processes, the
 * configuration rendered from deploy/haproxy.cfg, the runtime API) with what a test needs around
 * it — a temp state and data folder, the API alone (no site), the balancer's origin as the public
 * one, health checks fast enough that a dead instance is DOWN within a second, and a fetch that
 * says which instance answered.
 *
 * The store is the caller's: `store(i)` is the environment that names it for instance `i`
 * (`{ LEDGER_DB: path }` for one shared SQLite file; `{ DATABASE_URL }` for PostgreSQL), with the
 * keys every instance must share.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { freePort, startLocalCluster, type LocalCluster } from "../../deploy/local-cluster.ts";
import { tempDir } from "./api/helpers.ts";

export type { LocalCluster } from "../../deploy/local-cluster.ts";

/** Fast checks: DOWN after two failed probes 200 ms apart, UP after one good one. */
export const TEST_HEALTH_CHECK = "inter 200ms fall 2 rise 1";

export interface ApiClusterOptions {
  instances: number;
  /** The store and keys of instance `i`: LEDGER_DB / DATABASE_URL, LEDGER_SIGNING_KEY, TOKEN_SIGNING_KEY, … */
  store: (i: number) => NodeJS.ProcessEnv;
  /** Show the processes' output on the test's stdout (debugging). */
  echo?: boolean;
}

export interface ApiCluster extends LocalCluster {
  /** The temp folder of the state (access ledger) and data the instances share. */
  readonly dir: string;
}

export interface Answer {
  status: number;
  /** The `Instance-Id` of the instance that answered (null: HAProxy answered, e.g. a 502). */
  instance: string | null;
  headers: Headers;
  text: string;
}

/** One request; the answer with the instance that made it. */
export async function request(url: string, init: RequestInit = {}): Promise<Answer> {
  const res = await fetch(url, init);
  return { status: res.status, instance: res.headers.get("instance-id"), headers: res.headers, text: await res.text() };
}

export function postJson(url: string, body: unknown, token?: string): Promise<Answer> {
  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    ...(token ? { Authorization: `Bearer ${token}` } : {}),
  };
  return request(url, { method: "POST", headers, body: JSON.stringify(body) });
}

export async function startApiCluster(options: ApiClusterOptions): Promise<ApiCluster> {
  const temp = tempDir("api-cluster-");
  const state = join(temp.dir, "state");
  const data = join(temp.dir, "data");
  mkdirSync(state, { recursive: true });
  mkdirSync(data, { recursive: true });
  const port = await freePort();
  const base: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    STATE_DIR: state,
    DATA_DIR: data,
    // No site: the API alone.
    SITE_DIST: join(temp.dir, "no-site"),
    PUBLIC_ORIGINS: `http://127.0.0.1:${port}`,
    TRUSTED_PROXIES: "127.0.0.1",
  };
  let cluster: LocalCluster;
  try {
    cluster = await startLocalCluster({
      instances: options.instances,
      port,
      dir: temp.dir,
      env: (i) => ({ ...base, ...options.store(i) }),
      healthCheck: TEST_HEALTH_CHECK,
      ...(options.echo ? { echo: (source: string, line: string) => console.log(`${source} ${line}`) } : {}),
    });
  } catch (error) {
    temp.cleanup();
    throw error;
  }
  return {
    ...cluster,
    dir: temp.dir,
    stop: async () => {
      try {
        await cluster.stop();
      } finally {
        temp.cleanup();
      }
    },
  };
}
