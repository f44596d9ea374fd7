/**
 * `npm run deploy:local [-- --instances N] [--port P]`: a try-out of a deployment on this machine —
 * N API instances (`npm run serve`, each its own process, on ports P+1 … P+N) over the current
 * state (one SQLite ledger file, or PostgreSQL when DATABASE_URL is set), behind HAProxy with
 * deploy/haproxy.cfg, on 127.0.0.1:P (default 8080). Ctrl-C stops them all. docs/deployment.md.
 *
 * The state must exist (`npm start` once makes it: keys, ledger, data); the instances share its
 * keys and ledger through the environment this script passes on.
 */
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { startLocalCluster } from "./local-cluster.ts";

const { values } = parseArgs({
  options: {
    instances: { type: "string", default: "3" },
    port: { type: "string", default: "8080" },
  },
});
const instances = Number(values.instances);
const port = Number(values.port);
if (!Number.isInteger(instances) || instances < 1 || instances > 32)
  throw new Error("--instances must be an integer from 1 to 32");
if (!Number.isInteger(port) || port < 1 || port + instances > 65535)
  throw new Error("--port must be a TCP port with --instances more free above it");

const state = resolve(process.env.STATE_DIR ?? ".state");
const dir = join(state, "deploy");
mkdirSync(dir, { recursive: true, mode: 0o700 });
const origin = `http://127.0.0.1:${port}`;
const env = (_: number): NodeJS.ProcessEnv => ({
  ...process.env,
  STATE_DIR: state,
  // Requests arrive with the balancer's Host; X-Forwarded-For is trusted from the balancer only.
  PUBLIC_ORIGINS: [process.env.PUBLIC_ORIGINS, origin].filter(Boolean).join(","),
  TRUSTED_PROXIES: process.env.TRUSTED_PROXIES ?? "127.0.0.1",
});

const cluster = await startLocalCluster({
  instances,
  port,
  instancePorts: Array.from({ length: instances }, (_, i) => port + 1 + i),
  env,
  dir,
  echo: (source, line) => console.log(`${source.padEnd(7)} ${line}`),
});
console.log(
  [
    `balancer  ${cluster.url}  (HAProxy, ${cluster.configPath})`,
    ...cluster.instances.map((i) => `  ${i.id}    ${i.url}`),
    `  runtime API: echo "show stat" | socat stdio ${cluster.socketPath}`,
    "Ctrl-C stops every instance and the balancer.",
  ].join("\n"),
);
let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  void cluster.stop().then(() => process.exit(0));
};
process.once("SIGINT", stop);
process.once("SIGTERM", stop);
