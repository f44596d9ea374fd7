import { request } from "node:http";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { PROBLEM_BASE } from "../problems/problem.ts";
import { sampleHistory, tempDir, testServer, type TestServer } from "../../test/support/api/helpers.ts";

const SECRET = "TOP-SECRET-OUTSIDE-THE-SITE";

/** A tiny fake `site/dist` next to a file that must never be served. */
function fakeSite(with404: boolean): { dist: string; cleanup: () => void } {
  const { dir, cleanup } = tempDir("api-site-");
  const dist = join(dir, "dist");
  const files: Record<string, string> = {
    "index.html": "<!doctype html><title>home</title>",
    "pulse/timeline/index.html": "<!doctype html><title>timeline</title>",
    "about.html": "<!doctype html><title>about</title>",
    "badge.svg": "<svg xmlns='http://www.w3.org/2000/svg'/>",
    "data/v1.json": '{"ok":true}',
    "assets/site.css": "body{}",
    "assets/app.js": "console.log(1)",
    "data/table.csv": "a,b\r\n1,2\r\n",
    "docs/paper.pdf": "%PDF-1.7\n",
    "v1/pulse/badge": "STATIC COPY",
    ".hidden": "hidden",
  };
  if (with404) files["404.html"] = "<!doctype html><title>not found page</title>";
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(join(dist, name, ".."), { recursive: true });
    writeFileSync(join(dist, name), content);
  }
  writeFileSync(join(dir, "secret.txt"), SECRET);
  symlinkSync(join(dir, "secret.txt"), join(dist, "link.txt"));
  return { dist, cleanup };
}

function rawGet(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, method: "GET" }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("static site serving", () => {
  let server: TestServer;
  let site: ReturnType<typeof fakeSite>;
  beforeAll(async () => {
    site = fakeSite(true);
    server = await testServer(sampleHistory(3), { siteDir: site.dist });
  });
  afterAll(async () => {
    await server.stop();
    site.cleanup();
  });

  test.each([
    ["/", "text/html; charset=utf-8", "home"],
    ["/pulse/timeline", "text/html; charset=utf-8", "timeline"],
    ["/pulse/timeline/", "text/html; charset=utf-8", "timeline"],
    ["/about", "text/html; charset=utf-8", "about"],
    ["/badge.svg", "image/svg+xml", "<svg"],
    ["/data/v1.json", "application/json; charset=utf-8", '"ok"'],
    ["/assets/site.css", "text/css; charset=utf-8", "body"],
    ["/assets/app.js", "text/javascript; charset=utf-8", "console"],
    ["/data/table.csv", "text/csv; charset=utf-8", "a,b"],
    ["/docs/paper.pdf", "application/pdf", "%PDF"],
  ])("GET %s → %s", async (path, type, content) => {
    const res = await fetch(server.url + path);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe(type);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(await res.text()).toContain(content);
  });

  test("API routes take precedence over files", async () => {
    const res = await fetch(`${server.url}/v1/pulse/badge`);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await res.text()).not.toContain("STATIC COPY");
  });

  test("unknown site paths get the site's 404.html with status 404 when the client prefers HTML", async () => {
    const browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
    const res = await fetch(`${server.url}/no/such/page`, { headers: { Accept: browser } });
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await res.text()).toContain("not found page");
    // Any other client (no Accept, */*, JSON) gets the problem.
    for (const accept of [undefined, "*/*", "application/json"]) {
      const other = await fetch(`${server.url}/no/such/page`, accept ? { headers: { Accept: accept } } : {});
      expect(other.status).toBe(404);
      expect(other.headers.get("content-type")).toBe("application/problem+json");
    }
  });

  test("unknown API paths stay problem+json", async () => {
    const res = await fetch(`${server.url}/v1/pulse/nothing`);
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(((await res.json()) as { type: string }).type).toBe(`${PROBLEM_BASE}not-found`);
  });

  test.each([
    "/..%2f..%2f..%2f..%2fetc/passwd",
    "/..%2fsecret.txt",
    "/%2e%2e/secret.txt",
    "/%2e%2e%2fsecret.txt",
    "/pulse/..%2f..%2f..%2fsecret.txt",
    "/..%5csecret.txt",
    "/link.txt",
    "/.hidden",
    "/index.html%00.txt",
    "/%E0%A4%A",
  ])("traversal attempt %s → 404, never a file outside", async (path) => {
    const res = await fetch(server.url + path);
    expect([400, 404]).toContain(res.status);
    const body = await res.text();
    expect(body).not.toContain(SECRET);
    expect(body).not.toContain("root:");
  });

  test.each(["/../secret.txt", "/../../../../etc/passwd", "/pulse/../../secret.txt"])(
    "raw request target %s → not a file outside",
    async (path) => {
      const { status, body } = await rawGet(server.port, path);
      expect([400, 404]).toContain(status);
      expect(body).not.toContain(SECRET);
      expect(body).not.toContain("root:");
    },
  );

  test("site paths answer 405 with Allow to other methods; paths that are no file 404", async () => {
    const res = await fetch(`${server.url}/index.html`, { method: "POST" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    for (const [method, path] of [
      ["PUT", "/v1/nonexistent"],
      ["DELETE", "/no/such/page"],
      ["POST", "/v1/pulse/nothing"],
    ] as const) {
      const missing = await fetch(server.url + path, { method });
      expect(missing.status, `${method} ${path}`).toBe(404);
      expect(missing.headers.get("content-type")).toBe("application/problem+json");
    }
  });
});

describe("a site without 404.html", () => {
  test("unknown paths → problem+json 404", async () => {
    const site = fakeSite(false);
    const server = await testServer(null, { siteDir: site.dist });
    try {
      const res = await fetch(`${server.url}/missing`);
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toBe("application/problem+json");
      expect((await fetch(`${server.url}/`)).status).toBe(200);
    } finally {
      await server.stop();
      site.cleanup();
    }
  });
});
