/**
 * The one place the API's limits store is opened (store/limits.ts), from the stores' one resolved
 * location (store/store-location.ts), by its driver: in the database when every store is in one
 * (PostgreSQL, the switch of the whole platform, docs/deployment.md), else this process's memory,
 * the embedded default. It never reads DATABASE_URL itself: the limits are where the ledger and
 * the access ledger are.
 */
import { hostname } from "node:os";
import type { LimitsStore } from "./limits.ts";
import type { StoreLocation } from "./store-location.ts";

/**
 * `instance`: what names this instance's connection rows when they are shared (default INSTANCE_ID,
 * else `<hostname>:<port>`, which a restart on the same host and port keeps).
 */
export async function openLimits(location: StoreLocation, env: NodeJS.ProcessEnv, port: number): Promise<LimitsStore> {
  return location.driver.limits(location.ledger, env.INSTANCE_ID || `${hostname()}:${port}`);
}
