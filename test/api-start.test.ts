/**
 * End to end: the embedded default (`npm start`, here `node api/start.ts --no-build`) in a child
 * process, over a temp state folder and a temp data folder that already holds a valid history (so
 * the indexer is not needed). It must print its `serving` line, answer over HTTP, keep secrets out
 * of its output and exit 0 on SIGTERM.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { appendFileSync, cpSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { PulseBadge } from "../core/schemas/pulse.ts";
import { sampleHistory, tempDir, writeHistory } from "./support/api/helpers.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

interface Started {
  child: ChildProcess;
  url: string;
  output: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function start(env: NodeJS.ProcessEnv, args: readonly string[] = ["--no-build", "--no-pipeline"]): Promise<Started> {
  const child = spawn(process.execPath, [join(ROOT, "api", "start.ts"), ...args], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      out += chunk.toString("utf8");
      const match = /^serving (http:\/\/\S+)$/m.exec(out);
      if (match) {
        child.stdout!.off("data", onData);
        child.stdout!.on("data", (more: Buffer) => (out += more.toString("utf8")));
        resolve({ child, url: match[1]!, output: () => out, exit });
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
    void exit.then(({ code }) => reject(new Error(`start exited (${code}) before serving:\n${out}`)));
  });
}

describe("npm start (embedded default)", () => {
  const temp = tempDir("api-start-");
  const stateDir = join(temp.dir, "state");
  const dataDir = join(temp.dir, "data");
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    PORT: "0",
    HOST: "127.0.0.1",
    STATE_DIR: stateDir,
    DATA_DIR: dataDir,
  };
  beforeAll(() => {
    writeHistory(dataDir, sampleHistory(30, { latest: { giScore: 0.97, miiScore: 0.99 } }));
  });
  afterAll(() => temp.cleanup());

  test("first run: generates keys, serves the API, exits 0 on SIGTERM; second run reuses the keys", async () => {
    const first = await start(env);
    try {
      const lines = first.output().split("\n");
      expect(lines.filter((l) => l.startsWith("serving "))).toEqual([`serving ${first.url}`]);
      expect(first.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(first.output()).toContain("generated a new development key");
      expect(first.output()).toContain(`${first.url}/v1/pulse/badge`);
      expect(first.output()).toContain(`${first.url}/health`);

      const health = await fetch(`${first.url}/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({
        status: "ok",
        history: { status: "verified", records: 30, verified: true },
      });
      const badge = await fetch(`${first.url}/v1/pulse/badge`);
      expect(badge.status).toBe(200);
      expect((await badge.json()) as PulseBadge).toEqual({
        schemaVersion: 1,
        label: "integrity",
        message: "97.0% / 99.0%",
        color: "yellowgreen",
        cacheSeconds: 300,
      });
      const history = await fetch(`${first.url}/v1/pulse/history?limit=5`);
      expect(((await history.json()) as { count: number }).count).toBe(5);
    } finally {
      first.child.kill("SIGTERM");
    }
    expect(await first.exit).toEqual({ code: 0, signal: null });

    // Secrets never reach the output.
    for (const file of ["ledger.ed25519", "datasets.ed25519"]) {
      const secret = readFileSync(join(stateDir, "keys", file), "utf8").trim();
      expect(secret).toMatch(/^[0-9a-f]{64}$/);
      expect(first.output()).not.toContain(secret);
    }

    const second = await start(env);
    try {
      expect(second.output()).toContain("existing development key");
      expect(second.output()).not.toContain("generated a new development key");
      expect((await fetch(`${second.url}/health`)).status).toBe(200);
    } finally {
      second.child.kill("SIGINT");
    }
    expect(await second.exit).toEqual({ code: 0, signal: null });
    // One JSON log line per request went to stdout.
    expect(second.output()).toMatch(/^\{"ts":"[^"]+","method":"GET","path":"\/health","status":200,/m);
  });

  test("NOW=<ISO> starts the server's clock there, and the balance phases follow it", async () => {
    // The published migration tree and the dataset keys it is signed with.
    cpSync(join(ROOT, "data", "migration"), join(dataDir, "migration"), { recursive: true });
    appendFileSync(join(dataDir, "keys", "datasets.vkey"), readFileSync(join(ROOT, "data", "keys", "datasets.vkey")));
    const started = await start({ ...env, NOW: "2026-02-28T23:00:00Z" });
    try {
      expect(started.output()).toContain("clock: starts at 2026-02-28T23:00:00");
      // The transition by the started clock (the real clock is past the sunset): v1 forwarded and deprecated.
      const v1 = await fetch(`${started.url}/v1/balance/ATLAS`);
      expect(v1.status).toBe(200);
      expect(await v1.json()).toEqual({ balance_gic: 55456.499447 });
      expect(v1.headers.get("deprecation")).toBe("@1764633600");
      expect(v1.headers.get("sunset")).toBe("Sun, 01 Mar 2026 00:00:00 GMT");
      expect(await (await fetch(`${started.url}/balance/ATLAS`)).json()).toEqual({
        balance_shards: "55456499447",
        balance_credits: 55456.499447,
        balance_credits_formatted: "55456.499447 MIC",
      });
    } finally {
      started.child.kill("SIGTERM");
    }
    expect(await started.exit).toEqual({ code: 0, signal: null });
  });

  test("a bad PORT fails loudly with a non-zero exit", async () => {
    const child = spawn(process.execPath, [join(ROOT, "api", "start.ts"), "--no-build", "--no-pipeline"], {
      cwd: ROOT,
      env: { ...env, PORT: "http" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let err = "";
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString("utf8")));
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(code).toBe(1);
    expect(err).toContain("PORT must be an integer");
  });

  test("--serve-only (npm run serve): one instance of a deployment — no key made, nothing prepared, its Instance-Id on every answer and log line", async () => {
    const bare = tempDir("api-serve-only-");
    const serveEnv: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PORT: "0",
      HOST: "127.0.0.1",
      STATE_DIR: join(bare.dir, "state"),
      DATA_DIR: join(bare.dir, "data"),
    };
    try {
      // Without keys it refuses: N instances that each made their own would not agree.
      const refused = spawn(process.execPath, [join(ROOT, "api", "start.ts"), "--serve-only"], {
        cwd: ROOT,
        env: serveEnv,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let err = "";
      refused.stderr.on("data", (chunk: Buffer) => (err += chunk.toString("utf8")));
      expect(await new Promise<number | null>((resolve) => refused.on("exit", resolve))).toBe(1);
      expect(err).toContain(
        "--serve-only: no integrity-platform.example/ledger key; set LEDGER_SIGNING_KEY or LEDGER_SIGNING_KEY_FILE",
      );
      expect(existsSync(join(bare.dir, "state", "keys"))).toBe(false);

      // A bad INSTANCE_ID is refused before anything starts.
      const keys = { LEDGER_SIGNING_KEY: "4c".repeat(32), TOKEN_SIGNING_KEY: "6b".repeat(32) };
      mkdirSync(join(bare.dir, "state"), { recursive: true });
      const badId = spawnSync(process.execPath, [join(ROOT, "api", "start.ts"), "--serve-only"], {
        cwd: ROOT,
        env: { ...serveEnv, ...keys, INSTANCE_ID: "a b" },
        encoding: "utf8",
      });
      expect(badId.status).toBe(1);
      expect(badId.stderr).toContain("INSTANCE_ID must be");

      const served = await start({ ...serveEnv, ...keys, INSTANCE_ID: "api-7" }, ["--serve-only"]);
      try {
        expect(served.output()).toContain("  instance  api-7");
        expect(served.output()).not.toMatch(/running npm|pulse:|seeding/);
        const health = await fetch(`${served.url}/health`);
        expect(health.headers.get("instance-id")).toBe("api-7");
        expect(await health.json()).toMatchObject({
          history: { status: "absent" },
          ledger: { status: "ok", store: "sqlite", size: 0 },
        });
        const missing = await fetch(`${served.url}/nowhere`);
        expect([missing.status, missing.headers.get("instance-id")]).toEqual([404, "api-7"]);
      } finally {
        served.child.kill("SIGTERM");
      }
      expect(await served.exit).toEqual({ code: 0, signal: null });
      expect(served.output()).toMatch(
        /^\{"ts":"[^"]+","method":"GET","path":"\/health","status":200,.*"instance":"api-7"\}$/m,
      );
      // Nothing was made but the ledger it serves: no pulse history, no generated keys.
      expect(existsSync(join(bare.dir, "data", "pulse"))).toBe(false);
      expect(existsSync(join(bare.dir, "state", "keys"))).toBe(false);
    } finally {
      bare.cleanup();
    }
  });
});
