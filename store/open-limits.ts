/**
 * The one place the API's limits store is chosen (store/limits.ts): PostgreSQL when
 * `DATABASE_URL=postgres://…` is set (the switch of the whole platform, docs/deployment.md), else
 * this process's memory, the embedded default.
 */
import { hostname } from "node:os";
import type { LimitsStore } from "./limits.ts";
import { memoryLimits } from "./memory-limits.ts";
import { openPostgresLimits } from "./postgres-limits.ts";

/** Whether a DATABASE_URL names PostgreSQL. */
export function isPostgresUrl(url: string | undefined): url is string {
  return url !== undefined && /^postgres(ql)?:\/\//i.test(url);
}

/**
 * `instance`: what names this instance's connection rows when they are shared (default INSTANCE_ID,
 * else `<hostname>:<port>`, which a restart on the same host and port keeps).
 */
export async function openLimits(env: NodeJS.ProcessEnv, port: number): Promise<LimitsStore> {
  const url = env.DATABASE_URL;
  if (!isPostgresUrl(url)) return memoryLimits();
  return openPostgresLimits(url, { instanceId: env.INSTANCE_ID || `${hostname()}:${port}` });
}
