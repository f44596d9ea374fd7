/**
 * A small static file server for tests: a folder (a built site) over HTTP on a free loopback port,
 * as a CDN serves it — `<dir>/index.html` for a folder, 404 otherwise — with per-path overrides, so a
 * test can play a CDN that serves a tampered byte, or a missing file (override with null), or a
 * hostile origin that stalls after one byte or never ends its body (test/support/hostile-answers.ts).
 */
import { createServer, type Server } from "node:http";
import { readFile, stat } from "node:fs/promises";
import { extname, join, normalize, sep } from "node:path";
import { HostileAnswers, type Hostile } from "./hostile-answers.ts";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css",
  ".js": "text/javascript",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".csv": "text/csv",
  ".pdf": "application/pdf",
  ".xml": "application/xml",
  ".txt": "text/plain",
};

export interface StaticServer {
  url: string;
  /** Path (as requested, e.g. "/academics/papers.json") → the bytes to serve instead, null for a 404, or a hostile answer. */
  overrides: Map<string, Uint8Array | null | Hostile>;
  /** The hostile answers given: body bytes sent per path. */
  hostile: HostileAnswers;
  close: () => Promise<void>;
}

/** Serves `root` on 127.0.0.1:`port` (0: a free port). */
export async function serveStatic(root: string, port = 0): Promise<StaticServer> {
  const overrides = new Map<string, Uint8Array | null | Hostile>();
  const hostile = new HostileAnswers();
  const server: Server = createServer((req, res) => {
    void (async () => {
      const path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
      if (overrides.has(path)) {
        const body = overrides.get(path);
        if (body === "stall" || body === "endless") return void hostile.answer(path, res, body);
        res
          .writeHead(body ? 200 : 404, { "content-type": TYPES[extname(path)] ?? "application/octet-stream" })
          .end(body ?? "not found");
        return;
      }
      let file = normalize(join(root, path));
      if (file !== root && !file.startsWith(root + sep)) return void res.writeHead(404).end();
      const info = await stat(file).catch(() => null);
      if (info?.isDirectory()) file = join(file, "index.html");
      const body = await readFile(file).catch(() => null);
      if (!body) return void res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" }).end(body);
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });
  const address = server.address();
  const bound = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${bound}`,
    overrides,
    hostile,
    close: () => {
      hostile.destroyAll();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
