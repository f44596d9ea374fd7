/**
 * The static build as a CDN serves it: `site/dist` built once from the repository's data, served by
 * Debian's nginx with the configuration `npm run -s cdn -- nginx --root DIR --listen HOST:PORT`
 * prints (from the build's own header rules, site/src/lib/cdn-headers.ts, the rules `_headers`
 * holds), run as it is with `nginx -p PREFIX -c nginx.conf`, with no API anywhere. Then:
 *  - the configuration needs nothing outside its prefix and the build: no include, its own types,
 *    its pid, logs and temporary folders under the prefix;
 *  - Chromium crawls every page from `/`, and every file the pages and the manifests name is fetched:
 *    nothing is dead, and every response carries the headers the rules declare (immutable on
 *    /_astro/* and content-addressed copies, short-lived with revalidation on manifests, signatures
 *    and checkpoints, text types for .sig/.vkey, and the types of .bib/.csv/.jsonl/.json);
 *  - the /migration lookup verifies a proof in the browser from the static files alone;
 *  - the sealed deliberation proofs the /consensus page links are served at the API's path, the
 *    pipeline's copies byte for byte, as immutable JSON;
 *  - the `datapackage` reader (npm, Table Schema v1) loads every public area over HTTP, reads every
 *    resource and casts every row of every table, and every schema reference resolves.
 * Ledger tiles (written by the tile publication) are stood in for by files of the same names, so
 * the rules for them are checked against a real server too.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error: the datapackage reader ships no types
import { Package } from "datapackage";
import { AREAS } from "../core/datapackage/contract.ts";
import type { ConsensusRegistry } from "../core/schemas/consensus.ts";
import { listedResources } from "../core/datapackage/references.ts";
import {
  CACHE_DEFAULT,
  CACHE_IMMUTABLE,
  CACHE_SHORT,
  effectiveHeaders,
  headerRules,
  renderHeadersFile,
  servedPaths,
} from "../site/src/lib/cdn-headers.ts";
import { runIntegrityVerify } from "./support/integrity-verify.ts";
import { filesUnder } from "../store/files.ts";
import { buildSite, launchChromium, REPO_DATA_DIR, REPO_ROOT } from "./support/site/helpers.ts";

const tmp = mkdtempSync(join(tmpdir(), "cdn-static-"));
// Started as root, nginx's workers run as nobody: they must be able to read the build.
chmodSync(tmp, 0o755);
const siteDir = join(tmp, "dist");
const prefix = join(tmp, "nginx");
/** Stand-ins for the tile publication's files: a checkpoint, full and partial tiles and bundles. */
const TILE_FILES = [
  "ledger/checkpoint",
  "ledger/tile/0/000",
  "ledger/tile/0/x001/002",
  "ledger/tile/0/003.p/7",
  "ledger/tile/entries/000",
  "ledger/tile/entries/003.p/7",
  "ledger/envelopes/000",
  "ledger/envelopes/003.p/7",
];

let nginx: ChildProcess | undefined;
let base: string;
let context: BrowserContext;
let page: Page;
let builtHeadersFile: string;
/** What `npm run -s cdn -- nginx` printed. */
let nginxConf: string;
let builtFiles: string[];
let rules: ReturnType<typeof headerRules>;
const pages: string[] = [];
/** Every same-origin URL fetched: status and headers. */
const responses = new Map<string, { status: number; headers: Record<string, string> }>();

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

async function startNginx(conf: string, url: string): Promise<ChildProcess> {
  // As docs/cdn.md runs it: the prefix and the file, nothing else.
  const child = spawn("/usr/sbin/nginx", ["-p", prefix, "-c", conf], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) throw new Error(`nginx exited (${child.exitCode}): ${stderr}`);
    const up = await fetch(url).then(
      () => true,
      () => false,
    );
    if (up) return child;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`nginx did not answer at ${url}: ${stderr}`);
}

async function record(path: string): Promise<number> {
  if (responses.has(path)) return responses.get(path)!.status;
  const r = await fetch(base + path);
  await r.arrayBuffer();
  const headers: Record<string, string> = {};
  r.headers.forEach((value, name) => (headers[name] = value));
  responses.set(path, { status: r.status, headers });
  return r.status;
}

beforeAll(async () => {
  const build = await buildSite(REPO_DATA_DIR, siteDir);
  if (build.code !== 0) throw new Error(`site build failed:\n${build.output}`);
  builtHeadersFile = readFileSync(join(siteDir, "_headers"), "utf8");
  builtFiles = filesUnder(siteDir);
  for (const file of TILE_FILES) {
    if (existsSync(join(siteDir, file))) continue; // the build's own ledger publication: keep it
    mkdirSync(dirname(join(siteDir, file)), { recursive: true });
    writeFileSync(join(siteDir, file), file.endsWith("checkpoint") ? "stand-in checkpoint\n" : Buffer.from([0, 1, 2]));
  }
  const files = filesUnder(siteDir).filter((f) => f !== "_headers");
  rules = headerRules(files);
  mkdirSync(prefix, { recursive: true });
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const printed = spawnSync(
    "npm",
    ["run", "-s", "cdn", "--", "nginx", "--root", siteDir, "--listen", `127.0.0.1:${port}`],
    { cwd: REPO_ROOT, encoding: "utf8" },
  );
  if (printed.status !== 0) throw new Error(`npm run -s cdn -- nginx failed:\n${printed.stderr}`);
  nginxConf = printed.stdout;
  writeFileSync(join(prefix, "nginx.conf"), nginxConf);
  nginx = await startNginx("nginx.conf", `${base}/`);

  context = await launchChromium(join(tmp, "profile"), { width: 1280, height: 900 });
  page = context.pages()[0] ?? (await context.newPage());
  // Every page from /, in the browser; every other same-origin URL a page names is fetched.
  const queue = ["/"];
  const seen = new Set(queue);
  while (queue.length > 0) {
    const path = queue.shift()!;
    const response = await page.goto(base + path);
    responses.set(path, { status: response?.status() ?? 0, headers: response?.headers() ?? {} });
    if (!response || response.status() !== 200 || !(response.headers()["content-type"] ?? "").includes("text/html"))
      continue;
    pages.push(path);
    const urls = await page.evaluate(() =>
      [
        ...Array.from(document.querySelectorAll("a[href], link[href]")).map((e) => e.getAttribute("href")),
        ...Array.from(document.querySelectorAll("img[src], script[src], source[src]")).map((e) =>
          e.getAttribute("src"),
        ),
      ]
        .filter((v): v is string => !!v)
        .map((v) => new URL(v, location.href))
        .filter((u) => u.origin === location.origin)
        .map((u) => u.pathname),
    );
    for (const url of urls) {
      if (seen.has(url)) continue;
      seen.add(url);
      if (url.endsWith("/") || !/\.[a-z0-9]+$/i.test(url)) {
        const head = await fetch(base + url);
        if ((head.headers.get("content-type") ?? "").includes("text/html") || head.status !== 200) queue.push(url);
        else await record(url);
      } else await record(url);
    }
  }
  // Every file the manifests name (stable and content-addressed paths), and the tile stand-ins.
  for (const area of AREAS) {
    const manifest = JSON.parse(readFileSync(join(REPO_DATA_DIR, "areas", area, "datapackage.json"), "utf8")) as {
      version: string;
      resources: { path: string; immutablePath?: string }[];
    };
    const release = `/${area}/releases/${manifest.version}`;
    for (const path of [
      `/${area}/datapackage.json`,
      `/${area}/datapackage.json.sig`,
      `/${area}/releases.json`,
      `${release}/datapackage.json`,
      `${release}/datapackage.json.sig`,
    ])
      await record(path);
    for (const r of manifest.resources) {
      await record(`/${area}/${r.path}`);
      if (r.immutablePath) await record(`/${area}/${r.immutablePath}`);
      // Beside the release's manifest copy too, where a Data Package reader of that copy resolves them.
      await record(`${release}/${r.path}`);
      if (r.immutablePath) await record(`${release}/${r.immutablePath}`);
    }
  }
  for (const path of [
    "/keys/datasets.vkey",
    "/keys/ledger.vkey",
    "/migration/checkpoint",
    "/migration/snapshot.jsonl",
    "/asyncapi.json",
    "/openapi.json",
    ...TILE_FILES.map((f) => `/${f}`),
  ])
    await record(path);
}, 300_000);

afterAll(async () => {
  await context?.close();
  if (nginx && nginx.exitCode === null) {
    const exited = new Promise((r) => nginx!.once("exit", r));
    nginx.kill("SIGTERM");
    await exited;
  }
  rmSync(tmp, { recursive: true, force: true });
});

describe("the static build served by nginx from its own header rules", () => {
  it("wrote _headers from the rules, with no two rules setting one header of a built path", () => {
    expect(builtHeadersFile).toBe(renderHeadersFile(headerRules(builtFiles)));
    expect(builtHeadersFile).toMatch(/^\/_astro\/\*\n {2}Cache-Control: public, max-age=31536000, immutable$/m);
    for (const file of builtFiles)
      for (const path of servedPaths(file)) expect(() => effectiveHeaders(rules, path)).not.toThrow();
  });

  it("is served with the configuration `npm run -s cdn -- nginx` prints, which needs nothing outside its prefix and the build", () => {
    expect(nginxConf).toMatch(/^daemon off;$/m);
    expect(nginxConf).not.toMatch(/^\s*include\b/m);
    expect(nginxConf).toMatch(/^ {2}types \{$/m);
    // Every path nginx writes is relative: under the prefix it runs with.
    for (const directive of [
      "pid",
      "error_log",
      "access_log",
      "client_body_temp_path",
      "proxy_temp_path",
      "fastcgi_temp_path",
      "uwsgi_temp_path",
      "scgi_temp_path",
    ]) {
      expect(nginxConf, directive).toMatch(new RegExp(`^\\s*${directive} "[a-z_]+(?:\\.[a-z]+)?"`, "m"));
    }
    expect(readdirSync(prefix).sort()).toEqual(
      expect.arrayContaining(["access.log", "client_body_temp", "error.log", "nginx.conf", "nginx.pid"]),
    );
    expect(readFileSync(join(prefix, "access.log"), "utf8")).toMatch(/"GET \/ HTTP\/1\.1" 200 /);
    expect(Number(readFileSync(join(prefix, "nginx.pid"), "utf8"))).toBe(nginx!.pid);
    // Usage: the server is named, --root is a built site, --listen is HOST:PORT.
    const cdn = (...args: string[]) =>
      spawnSync("npm", ["run", "-s", "cdn", "--", ...args], { cwd: REPO_ROOT, encoding: "utf8" });
    const help = cdn("--help");
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/nginx -p PREFIX -c FILE/);
    const bad = cdn("nginx", "--root", siteDir, "--listen", "127.0.0.1");
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--listen "127\.0\.0\.1" is not HOST:PORT/);
    expect(cdn("nginx", "--root", prefix, "--listen", "127.0.0.1:8080").stderr).toMatch(/no index\.html here/);
  });

  it("has no dead link: every page, asset and file named answers 200 without an API", () => {
    expect(pages).toEqual(expect.arrayContaining(["/", "/government/", "/consensus/", "/migration/", "/philosophy/"]));
    expect([...responses].filter(([, r]) => r.status !== 200).map(([p, r]) => `${p} ${r.status}`)).toEqual([]);
    expect([...responses.keys()]).toContain("/asyncapi.json");
    expect(pages.length).toBeGreaterThanOrEqual(10);
    expect(responses.size).toBeGreaterThan(100);
  });

  it("serves the sealed proofs the /consensus page links: the pipeline's copies at the API's path, immutable JSON", async () => {
    const registry = JSON.parse(
      readFileSync(join(REPO_DATA_DIR, "areas", "philosophy", "consensus-registry.json"), "utf8"),
    ) as ConsensusRegistry;
    const linked = [...responses.keys()].filter((p) => p.startsWith("/v1/consensus/proofs/")).sort();
    expect(registry.recent_proofs.length).toBeGreaterThan(0);
    expect(linked).toEqual(registry.recent_proofs.map((p) => `/v1/consensus/proofs/${p.delib_id}`).sort());
    for (const path of linked) {
      expect(responses.get(path)!.headers["cache-control"], path).toBe(CACHE_IMMUTABLE);
      expect(responses.get(path)!.headers["content-type"], path).toBe("application/json");
      const served = Buffer.from(await (await fetch(base + path)).arrayBuffer());
      expect(
        served.equals(readFileSync(join(REPO_DATA_DIR, "consensus", "proofs", `${path.split("/").at(-1)}.json`))),
        path,
      ).toBe(true);
    }
    // Every copy is published, not only those the page links.
    const copies = readdirSync(join(REPO_DATA_DIR, "consensus", "proofs"));
    expect(builtFiles.filter((f) => f.startsWith("v1/consensus/proofs/")).length).toBe(copies.length);
  });

  it("sends every response the headers its rules declare", () => {
    const wrong: string[] = [];
    for (const [path, r] of responses) {
      const expected = effectiveHeaders(rules, path);
      if (r.headers["cache-control"] !== expected["Cache-Control"])
        wrong.push(`${path}: Cache-Control ${r.headers["cache-control"]}, declared ${expected["Cache-Control"]}`);
      if (expected["Content-Type"] && r.headers["content-type"] !== expected["Content-Type"])
        wrong.push(`${path}: Content-Type ${r.headers["content-type"]}, declared ${expected["Content-Type"]}`);
      if (r.headers["x-content-type-options"] !== "nosniff") wrong.push(`${path}: no nosniff`);
    }
    expect(wrong).toEqual([]);
  });

  it("caches by what a path promises: hashed and content-addressed for a year, manifests and checkpoints briefly, the rest revalidated", () => {
    const of = (test: (p: string) => boolean) => [...responses].filter(([p]) => test(p));
    const type = (p: string) => responses.get(p)!.headers["content-type"];
    const cache = (p: string) => responses.get(p)!.headers["cache-control"];
    expect(of((p) => p.startsWith("/_astro/")).length).toBeGreaterThan(0);
    for (const [p, r] of of((p) => p.startsWith("/_astro/") || /^\/[a-z]+\/sha256\//.test(p)))
      expect(r.headers["cache-control"], p).toBe(CACHE_IMMUTABLE);
    const release = (p: string) => AREAS.some((a) => p.startsWith(`/${a}/releases/`));
    for (const [p, r] of of(
      (p) =>
        !release(p) &&
        (p.endsWith("/datapackage.json") ||
          p.endsWith(".sig") ||
          p.endsWith("/checkpoint") ||
          p.endsWith("/releases.json")),
    ))
      expect(r.headers["cache-control"], p).toBe(CACHE_SHORT);
    // A release's copies never change: a new release adds a folder.
    expect(of(release).length).toBeGreaterThan(0);
    for (const [p, r] of of(release)) expect(r.headers["cache-control"], p).toBe(CACHE_IMMUTABLE);
    for (const p of ["/", "/government/", "/economy/mic-history.csv", "/keys/datasets.vkey"])
      expect(cache(p), p).toBe(CACHE_DEFAULT);
    expect(type("/government/datapackage.json.sig")).toBe("text/plain; charset=utf-8");
    expect(type("/keys/datasets.vkey")).toBe("text/plain; charset=utf-8");
    expect(type("/academics/citations.bib")).toBe("application/x-bibtex; charset=utf-8");
    expect(type("/economy/mic-history.csv")).toBe("text/csv; charset=utf-8; header=present");
    expect(type("/migration/snapshot.jsonl")).toBe("application/jsonl; charset=utf-8");
    expect(type("/economy/supply.json")).toBe("application/json");
    // Ledger tiles: full tiles and bundles immutable octets, partial ones and the checkpoint short-lived.
    expect([cache("/ledger/tile/0/000"), type("/ledger/tile/0/000")]).toEqual([
      CACHE_IMMUTABLE,
      "application/octet-stream",
    ]);
    expect(cache("/ledger/tile/0/x001/002")).toBe(CACHE_IMMUTABLE);
    expect(cache("/ledger/tile/entries/000")).toBe(CACHE_IMMUTABLE);
    expect([cache("/ledger/tile/0/003.p/7"), cache("/ledger/tile/entries/003.p/7")]).toEqual([
      CACHE_SHORT,
      CACHE_SHORT,
    ]);
    // Envelope bundles, at their own URL beside the tiles: the same rule as the entry bundles.
    expect([cache("/ledger/envelopes/000"), type("/ledger/envelopes/000")]).toEqual([
      CACHE_IMMUTABLE,
      "application/octet-stream",
    ]);
    expect(cache("/ledger/envelopes/003.p/7")).toBe(CACHE_SHORT);
    expect([cache("/ledger/checkpoint"), type("/ledger/checkpoint")]).toEqual([
      CACHE_SHORT,
      "text/plain; charset=utf-8",
    ]);
    // The verifier's tarball, named by its version, and its SHA-256: linked from the pages, immutable.
    const tools = [...responses.keys()].filter((p) => p.startsWith("/tools/")).sort();
    expect(tools).toEqual([
      expect.stringMatching(/^\/tools\/integrity-verify-\d+\.\d+\.\d+\.tgz$/),
      expect.stringMatching(/^\/tools\/integrity-verify-.*\.tgz\.sha256$/),
    ]);
    expect([cache(tools[0]!), type(tools[0]!)]).toEqual([CACHE_IMMUTABLE, "application/gzip"]);
    expect([cache(tools[1]!), type(tools[1]!)]).toEqual([CACHE_IMMUTABLE, "text/plain; charset=utf-8"]);
  });

  it("serves each public file's content-addressed copy with the bytes its hash names", async () => {
    for (const area of AREAS) {
      const manifest = JSON.parse(readFileSync(join(REPO_DATA_DIR, "areas", area, "datapackage.json"), "utf8")) as {
        resources: { path: string; hash: string; immutablePath?: string; access: string }[];
      };
      for (const r of manifest.resources) {
        expect(r.access).toBe("public");
        expect(r.immutablePath, `${area}/${r.path}`).toBeDefined();
        const bytes = Buffer.from(await (await fetch(`${base}/${area}/${r.immutablePath}`)).arrayBuffer());
        expect(`sha256:${createHash("sha256").update(bytes).digest("hex")}`).toBe(r.hash);
      }
    }
  });

  it("verifies a migration proof in the browser from the static files alone, and refuses an unknown address", async () => {
    await page.goto(`${base}/migration/`);
    const lookup = async (address: string) => {
      await page.fill("#lookup-address", address);
      await page.click("migration-lookup button[type=submit]");
      await page.waitForFunction(() =>
        ["verified", "refused", "unavailable"].includes(
          document.querySelector<HTMLElement>(".lookup-result")?.dataset.verdict ?? "",
        ),
      );
      return page.locator(".lookup-result").evaluate((e) => [(e as HTMLElement).dataset.verdict, e.textContent ?? ""]);
    };
    const [verdict, text] = await lookup("ATLAS");
    expect(verdict, text).toBe("verified");
    expect((await lookup("NOBODY-HERE"))[0]).toBe("refused");
  });
});

describe("a standard Data Package reader (datapackage on npm, Table Schema v1) on the served build", () => {
  it("loads every public area, reads every resource, casts every row, and resolves every schema reference", async () => {
    let tables = 0;
    for (const area of AREAS) {
      const url = `${base}/${area}/datapackage.json`;
      const pkg = await Package.load(url);
      expect(pkg.valid, `${area}: ${pkg.errors}`).toBe(true);
      const raw = pkg.descriptor as { resources: { jsonSchema?: unknown }[] };
      // The keyed files are listed apart, where a reader does not look; every listed file is here.
      expect(pkg.resources.length).toBe(raw.resources.length);
      const keyed = listedResources<{ access: string }>(
        JSON.parse(readFileSync(join(REPO_DATA_DIR, "areas", area, "datapackage.json"), "utf8")),
      ).filter((r) => r.access !== "public");
      expect(raw.resources.length + keyed.length).toBeGreaterThan(0);
      for (const resource of pkg.resources) {
        const descriptor = resource.descriptor as {
          name: string;
          bytes: number;
          jsonSchema?: string | { items: { $ref: string } };
        };
        if (resource.tabular) {
          // read({cast: true}) throws on the first cell that does not cast.
          const rows = (await resource.read({ cast: true })) as unknown[][];
          expect(rows.length, descriptor.name).toBeGreaterThan(0);
          const datetimes = (resource.schema.fields as { type: string }[]).flatMap((f, i) =>
            f.type === "datetime" ? [i] : [],
          );
          for (const row of rows) for (const i of datetimes) expect(row[i]).toBeInstanceOf(Date);
          tables += 1;
        } else {
          const bytes = (await resource.rawRead()) as Buffer;
          expect(bytes.length, descriptor.name).toBe(descriptor.bytes);
        }
        const ref =
          typeof descriptor.jsonSchema === "string" ? descriptor.jsonSchema : descriptor.jsonSchema?.items.$ref;
        if (ref) {
          const schema = await fetch(new URL(ref, url));
          expect(schema.status, `${area}/${descriptor.name}: ${ref}`).toBe(200);
          expect(((await schema.json()) as { $id: string }).$id).toMatch(
            /^https:\/\/integrity-platform\.example\/schemas\//,
          );
        }
      }
    }
    expect(tables).toBe(3); // mii-timeline, mic-history, cathedral-multipliers (the audit-trail CSV is keyed)
  }, 120_000);
});

describe("checking what nginx serves, without a clone", () => {
  it("lets a downloader check a dataset and a ledger entry with one command, and fails on a tampered byte", async () => {
    const run = (...args: string[]) => runIntegrityVerify(tmp, ...args);
    const size = Number(readFileSync(join(siteDir, "ledger", "checkpoint"), "utf8").split("\n")[1]);
    const area = await run(`${base}/academics/`);
    expect(area.err).toBe("");
    expect(area.code).toBe(0);
    const entry = await run("--ledger", `${base}/ledger/`, "--entry", String(size - 1));
    expect(entry.code, entry.err).toBe(0);
    // nginx serves the folder as it is on disk: one changed byte, and the command says so.
    const file = join(siteDir, "academics", "papers.json");
    const original = readFileSync(file);
    const changed = Buffer.from(original);
    changed[10] = changed[10]! ^ 1;
    writeFileSync(file, changed);
    try {
      const bad = await run(`${base}/academics/`);
      expect(bad.code).toBe(1);
      expect(bad.err).toMatch(/papers\.json.*\[hash-mismatch\]$/m);
    } finally {
      writeFileSync(file, original);
    }
  }, 120_000);

  it("checks a dataset and a ledger entry on the /verify page, in the browser, from the served build alone", async () => {
    const submit = async (form: string, result: string) => {
      await page.click(`#${form} button[type=submit]`);
      await page.waitForFunction(
        (id) => ["verified", "failed", "error"].includes(document.getElementById(id)?.dataset.verdict ?? ""),
        result,
      );
      return {
        verdict: await page.locator(`#${result}`).getAttribute("data-verdict"),
        text: (await page.locator(`#${result}`).textContent()) ?? "",
      };
    };
    await page.goto(`${base}/verify/`);
    await page.fill("#area-url", `${base}/academics/`);
    const area = await submit("area-form", "area-result");
    expect(area.text).toContain("Verified in your browser: the academics manifest");
    expect(area.verdict).toBe("verified");
    const size = Number(readFileSync(join(siteDir, "ledger", "checkpoint"), "utf8").split("\n")[1]);
    await page.goto(`${base}/verify/`);
    await page.fill("#ledger-entry", String(size - 1));
    const entry = await submit("ledger-form", "ledger-result");
    // The portal's ledger serves envelopes (at /ledger/envelopes/, none at the C2SP /ledger/tile/entries/):
    // the leaf hash is proven, the envelope is shown NOT verified.
    expect(entry.text).toContain(
      `entry ${size - 1}'s leaf hash is in the signed log of ${size.toLocaleString("en")} entries. Its envelope below is NOT verified`,
    );
    expect(entry.text).toContain(`"seq":${size - 1},`);
    expect(entry.verdict).toBe("verified");
  }, 120_000);
});
