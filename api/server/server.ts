/**
 * The API (and optionally the built site) on a real HTTP server via @hono/node-server.
 * `port: 0` picks a free port; the returned `url` has the actual one. `close()` stops accepting,
 * lets requests in flight finish (closing idle keep-alive connections at once), and after
 * `graceMs` cuts whatever is left.
 *
 * WebSocket upgrades (the simulation, api/routes/simulation.ts) are handled by the same server:
 * @hono/node-server routes the upgrade request through the app and completes it with a `ws`
 * WebSocketServer in `noServer` mode, which refuses frames over 64 KiB itself (close 1009; the
 * session's own, smaller limit answers first with an error message). `close()` sends open
 * WebSockets a 1001 close frame and destroys any still open after `graceMs`.
 */
import { ApiKeyStore, keysPath } from "../clients/api-keys.ts";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { WebSocketServer } from "ws";
import type { Hono } from "hono";
import { createApp, type AppOptions } from "../app.ts";
import { guardHttpFraming } from "../http/framing.ts";
import type { LogSink } from "../middleware/request-log.ts";

export interface ServerOptions {
  host: string;
  port: number;
  dataDir: string;
  siteDir?: string;
  log?: LogSink;
  now?: () => Date;
  bodyLimitBytes?: number;
  /** The access ledger: API keys and the keyed-access audit (default: DATABASE_URL's `access` schema, else ACCESS_LEDGER_DB or <STATE_DIR>/access.sqlite). */
  keysFile?: string;
  /** Web origins besides the server's own that may open the simulation WebSocket (ALLOWED_ORIGINS). */
  trustedOrigins?: readonly string[];
  /** The origins this server is reached by besides its own address (`Host` check; default PUBLIC_ORIGINS and SITE_URL). */
  publicOrigins?: readonly string[];
  /** Bounds of the simulation WebSocket. */
  simulation?: AppOptions["simulation"];
  /** Where quotas and open connections are counted (default: this process; the caller closes it). */
  limits?: AppOptions["limits"];
  /** Proxies whose X-Forwarded-For names the client (default TRUSTED_PROXIES). */
  trustedProxies?: AppOptions["trustedProxies"];
  /** The ledger of the authority, consensus and balance routes, and the token key's public half. */
  ledger?: AppOptions["ledger"];
  tokenPublicKeyHex?: string;
  /** The token key's secret half, for POST /avm/operator/issue-token. */
  tokenSecretKeyHex?: string;
  /** POST /keys/requests per client per UTC day (default KEY_REQUEST_DAILY_QUOTA; null: unlimited). */
  keyRequestQuota?: number | null;
  /** This instance's id among N behind a load balancer (INSTANCE_ID): `Instance-Id` on every response, `instance` in the log. */
  instanceId?: string;
}

/** Largest WebSocket frame `ws` accepts at all; the simulation's own limit is smaller. */
const MAX_WEBSOCKET_PAYLOAD = 64 * 1024;

export interface RunningServer {
  url: string;
  port: number;
  close(graceMs?: number): Promise<void>;
}

/** Serves any Hono app (the bench uses this for its own app too). */
export function listen(app: Hono<any, any, any>, host: string, port: number): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const websockets = new WebSocketServer({ noServer: true, maxPayload: MAX_WEBSOCKET_PAYLOAD });
    const server = serve({ fetch: app.fetch, hostname: host, port, websocket: { server: websockets } }) as Server;
    guardHttpFraming(server);
    server.once("error", reject);
    server.once("listening", () => {
      server.off("error", reject);
      const address = server.address() as AddressInfo;
      const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
      resolve({
        url: `http://${shownHost}:${address.port}`,
        port: address.port,
        close: (graceMs = 5000) => closeServer(server, websockets, graceMs),
      });
    });
  });
}

function closeServer(server: Server, websockets: WebSocketServer, graceMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      server.closeAllConnections();
      for (const ws of websockets.clients) ws.terminate();
    }, graceMs);
    timer.unref();
    server.close((error) => {
      clearTimeout(timer);
      if (error && (error as NodeJS.ErrnoException).code !== "ERR_SERVER_NOT_RUNNING") reject(error);
      else resolve();
    });
    server.closeIdleConnections();
    for (const ws of websockets.clients) ws.close(1001, "server shutting down");
  });
}

/**
 * The app on a real server. The server owns its key store: `close()` closes it after the last
 * request, which writes the anonymous refusals counted in the current window (api-keys.ts).
 */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const keys = new ApiKeyStore(options.keysFile ?? keysPath());
  const app = createApp({
    dataDir: options.dataDir,
    ...(options.siteDir !== undefined ? { siteDir: options.siteDir } : {}),
    ...(options.log ? { log: options.log } : {}),
    ...(options.now ? { now: options.now } : {}),
    ...(options.bodyLimitBytes !== undefined ? { bodyLimitBytes: options.bodyLimitBytes } : {}),
    keys,
    ...(options.trustedOrigins ? { trustedOrigins: options.trustedOrigins } : {}),
    ...(options.publicOrigins ? { publicOrigins: options.publicOrigins } : {}),
    ...(options.simulation ? { simulation: options.simulation } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.trustedProxies ? { trustedProxies: options.trustedProxies } : {}),
    ...(options.ledger ? { ledger: options.ledger } : {}),
    ...(options.tokenPublicKeyHex ? { tokenPublicKeyHex: options.tokenPublicKeyHex } : {}),
    ...(options.tokenSecretKeyHex ? { tokenSecretKeyHex: options.tokenSecretKeyHex } : {}),
    ...(options.keyRequestQuota !== undefined ? { keyRequestQuota: options.keyRequestQuota } : {}),
    ...(options.instanceId !== undefined ? { instanceId: options.instanceId } : {}),
  });
  let running: RunningServer;
  try {
    running = await listen(app, options.host, options.port);
  } catch (error) {
    await keys.close();
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    ...running,
    close: (graceMs) => (closing ??= running.close(graceMs).finally(() => keys.close())),
  };
}
