/**
 * The API (and optionally the built site) on a real HTTP server via @hono/node-server.
 * `port: 0` picks a free port; the returned `url` has the actual one. `close()` stops accepting,
 * lets requests in flight finish (closing idle keep-alive connections at once), and after
 * `graceMs` cuts whatever is left.
 */
import { ApiKeyStore, keysPath } from "./api-keys.ts";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { Hono } from "hono";
import { createApp } from "./app.ts";
import { guardHttpFraming } from "./http-framing.ts";
import type { LogSink } from "./middleware/request-log.ts";

export interface ServerOptions {
  host: string;
  port: number;
  dataDir: string;
  siteDir?: string;
  log?: LogSink;
  now?: () => Date;
  bodyLimitBytes?: number;
  /** Hashed API keys (default: API_KEYS_FILE or <STATE_DIR>/api-keys.json). */
  keysFile?: string;
}

export interface RunningServer {
  url: string;
  port: number;
  close(graceMs?: number): Promise<void>;
}

/** Serves any Hono app (the bench uses this for its own app too). */
export function listen(app: Hono<any, any, any>, host: string, port: number): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname: host, port }) as Server;
    guardHttpFraming(server);
    server.once("error", reject);
    server.once("listening", () => {
      server.off("error", reject);
      const address = server.address() as AddressInfo;
      const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
      resolve({
        url: `http://${shownHost}:${address.port}`,
        port: address.port,
        close: (graceMs = 5000) => closeServer(server, graceMs),
      });
    });
  });
}

function closeServer(server: Server, graceMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => server.closeAllConnections(), graceMs);
    timer.unref();
    server.close((error) => {
      clearTimeout(timer);
      if (error && (error as NodeJS.ErrnoException).code !== "ERR_SERVER_NOT_RUNNING") reject(error);
      else resolve();
    });
    server.closeIdleConnections();
  });
}

export function startServer(options: ServerOptions): Promise<RunningServer> {
  const app = createApp({
    dataDir: options.dataDir,
    ...(options.siteDir !== undefined ? { siteDir: options.siteDir } : {}),
    ...(options.log ? { log: options.log } : {}),
    ...(options.now ? { now: options.now } : {}),
    ...(options.bodyLimitBytes !== undefined ? { bodyLimitBytes: options.bodyLimitBytes } : {}),
    keys: new ApiKeyStore(options.keysFile ?? keysPath()),
  });
  return listen(app, options.host, options.port);
}
