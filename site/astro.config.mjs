// Astro configuration of the portal: a fully static site, built from the files under data/.
//
// Environment (read when the build starts, never by the pages at run time — there is none):
//   SITE_URL, PUBLIC_API_ORIGIN, PUBLIC_CONTACT  where the copy is served, where its API is (or none)
//             and whom a reader writes to: src/lib/public-origins.ts (SITE_URL is required in CI)
//   DATA_DIR  the data directory to publish (default <repo>/data, resolved from this file)
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import sitemap from "@astrojs/sitemap";
import { defineConfig } from "astro/config";
import { publishAreas, verifyAllAreas, verifySchemas } from "./src/lib/datapackage.ts";
import { apiDescriptionModule } from "./src/lib/api-description-module.ts";
import { publishMigration } from "./src/lib/migration.ts";
import { publishLedger } from "./src/lib/ledger.ts";
import { publishProofCopies } from "./src/lib/consensus-proofs.ts";
import { pulseStaticFiles, readPulseHistory } from "./src/lib/pulse-history.ts";
import { effectiveHeaders, headerRules, renderHeadersFile, servedPaths } from "./src/lib/cdn-headers.ts";
import { satteri } from "@astrojs/markdown-satteri";
import { manualHastPlugin } from "./src/lib/manual.ts";
import { publicOrigins } from "./src/lib/public-origins.ts";
import { packTool, publishTool, toolPaths, verifierToolModule } from "./src/lib/verifier-tool.ts";

const here = dirname(fileURLToPath(import.meta.url));
const dataDir = resolve(here, process.env.DATA_DIR || join("..", "data"));
/** Fails the build, naming the variable, when SITE_URL is missing in CI or a value is malformed. */
const site = publicOrigins().site;
/** The downloaders' verifier, packed once per build: the pages print its path, the build publishes its bytes. */
const verifierTool = packTool(resolve(here, "..", "packages", "integrity-verify"));

/**
 * The manual's hast plugin, named after a digest of its source: Astro keeps rendered docs pages in
 * its content cache until the config changes, and a plugin's code is not part of the config it
 * compares (functions do not serialize) — its name is, so a changed plugin re-renders every page.
 */
const manualPluginSource = readFileSync(new URL("./src/lib/manual.ts", import.meta.url));
const manualPlugin = {
  ...manualHastPlugin,
  name: `${manualHastPlugin.name}-${createHash("sha256").update(manualPluginSource).digest("hex").slice(0, 12)}`,
};

/**
 * The five data areas (src/lib/datapackage.ts). Before any page is rendered, every generated area
 * is verified — manifest signature, then each listed file's size and SHA-256 — so a tampered or
 * stale file fails the build, naming the file, and nothing is published. Once the pages are
 * written, the PUBLIC files are copied (the bytes just verified) with each area's datapackage.json
 * and .sig, the extension-less /economy/{supply,mii,coordination,roi}, data/keys/*.vkey to /keys/
 * and data/schemas/** to /schemas/** — only when that folder is exactly what core/schemas gives
 * (`verifySchemas`: a schema changed by hand fails the build). Keyed files (access other than
 * "public") are never copied.
 */
function publishDataAreas() {
  return {
    name: "integrity:data-areas",
    hooks: {
      "astro:build:start": ({ logger }) => {
        const verified = verifyAllAreas(dataDir);
        verifySchemas(dataDir);
        logger.info(
          verified.length === 0
            ? `no data areas under ${join(dataDir, "areas")}: the area pages say so`
            : `verified ${verified.map((v) => `${v.area} (${v.manifest.resources.length})`).join(", ")}`,
        );
      },
      "astro:build:done": async ({ dir, logger }) => {
        const report = await publishAreas(dataDir, fileURLToPath(dir));
        for (const a of report.areas)
          logger.info(`published ${a.area}: ${a.files} public files (${a.keyed} keyed, not copied)`);
        logger.info(`published ${report.keys} key file(s)${report.schemas ? " and /schemas/" : ""}`);
        for (const f of report.releasesElsewhere)
          logger.info(`${f}: not in this build (an earlier release's file, served from its own deployment)`);
      },
    },
  };
}

/**
 * The migration's verification tree (data/migration/), verified whole (src/lib/migration.ts) and
 * copied to /migration/ once the pages are written: the /migration page's lookup fetches the signed
 * checkpoint from there, and the leaves and reports are downloadable beside the page.
 */
function publishMigrationTree() {
  return {
    name: "integrity:migration",
    hooks: {
      "astro:build:done": async ({ dir, logger }) => {
        const size = await publishMigration(dataDir, fileURLToPath(dir));
        logger.info(
          size === 0
            ? "no migration tree under data/migration: nothing to publish"
            : `published the migration tree (${size} leaves) to /migration/`,
        );
      },
    },
  };
}

/**
 * The ledger's signed checkpoint and its C2SP tiles (data/ledger/, docs/ledger-tiles.md), checked
 * against data/keys/ledger.vkey and each other (src/lib/ledger.ts) and copied to /ledger/ once the
 * pages are written: /ledger/checkpoint, /ledger/tile/<L>/<N>[.p/<W>], and the bundles: the envelopes
 * at /ledger/envelopes/<N>[.p/<W>] (leaf-data bundles would be at /ledger/tile/entries/…).
 */
function publishLedgerTiles() {
  return {
    name: "integrity:ledger",
    hooks: {
      "astro:build:done": async ({ dir, logger }) => {
        const ledger = await publishLedger(dataDir, fileURLToPath(dir));
        if (!ledger) logger.info("no ledger checkpoint under data/ledger: nothing to publish");
        else if (!ledger.tiles)
          logger.warn(
            `published /ledger/checkpoint (size ${ledger.size}) without tiles: data/ledger/tile does not exist yet (run the pipeline)`,
          );
        else logger.info(`published /ledger/checkpoint and its tiles (size ${ledger.size}) to /ledger/`);
      },
    },
  };
}

/**
 * The static copies of the sealed deliberation proofs (data/consensus/proofs/, pipeline/proof-copies.ts),
 * each checked against data/keys/ledger.vkey (src/lib/consensus-proofs.ts) and written to the API's
 * path /v1/consensus/proofs/<id> once the pages are written: the /consensus page links them.
 */
function publishConsensusProofs() {
  return {
    name: "integrity:consensus-proofs",
    hooks: {
      "astro:build:done": async ({ dir, logger }) => {
        const n = await publishProofCopies(dataDir, fileURLToPath(dir));
        logger.info(
          n === 0
            ? "no proof copies under data/consensus/proofs: nothing to publish"
            : `published ${n} sealed proof(s) to /v1/consensus/proofs/`,
        );
      },
    },
  };
}

/**
 * The downloaders' verifier (packages/integrity-verify) as an npm tarball, written deterministically
 * (src/lib/verifier-tool.ts), at /tools/<name>-<version>.tgz with its SHA-256 in `sha256sum`
 * format beside it: `npx --yes --package=<its URL> integrity-verify …` runs it without the npm
 * registry, where the package is not published (docs/verify-downloads.md).
 */
function publishVerifierTool() {
  return {
    name: "integrity:verifier-tool",
    hooks: {
      "astro:build:done": ({ dir, logger }) => {
        publishTool(verifierTool, fileURLToPath(dir));
        logger.info(`published ${toolPaths(verifierTool.fileName).tarballPath} (sha256 ${verifierTool.sha256})`);
      },
    },
  };
}

/**
 * `_headers` (Cloudflare Pages, Netlify): the cache policy and media types of every built file, from
 * the rules of src/lib/cdn-headers.ts (docs/cdn.md). It must stay the LAST integration: it reads the
 * files the others wrote (a partial ledger tile gets a rule of its own).
 */
function publishHeaders() {
  return {
    name: "integrity:headers",
    hooks: {
      "astro:build:done": async ({ dir, logger }) => {
        const root = fileURLToPath(dir);
        const files = (await readdir(root, { recursive: true, withFileTypes: true }))
          .filter((e) => e.isFile())
          .map((e) => relative(root, join(e.parentPath, e.name)).split(sep).join("/"));
        const rules = headerRules(files);
        // No two rules may set one header of a built path (a host would join the values): fail here.
        for (const file of files) for (const path of servedPaths(file)) effectiveHeaders(rules, path);
        await writeFile(join(root, "_headers"), renderHeadersFile(rules));
        logger.info(`wrote _headers (${rules.length} rules)`);
      },
    },
  };
}

/**
 * The pulse history checked when the build starts (src/lib/pulse-history.ts): a history that
 * cannot be vouched for fails the build, naming the problem, before any page is rendered; so does a
 * static copy under data/v1/ that is not exactly what the signed history gives (missing, differing
 * or extra), naming the file, as `npm run pulse -- --verify` would. The pages read the history
 * again through src/lib/pulse.ts. Once the pages are written, /v1/pulse/* (badges, history, latest
 * record) are written from the signed records (core/pulse/static-files.ts), never copied from
 * data/v1/; nothing before the first pulse.
 */
function publishPulse() {
  /** @type {Map<string, Uint8Array>} */
  let files = new Map();
  return {
    name: "integrity:pulse",
    hooks: {
      "astro:build:start": ({ logger }) => {
        const { records } = readPulseHistory(dataDir);
        files = pulseStaticFiles(dataDir, records);
        logger.info(
          records.length === 0
            ? "no pulse history yet: the pages say so"
            : `pulse history verified: ${records.length} record(s) under its signed checkpoint, ${files.size} static copies match`,
        );
      },
      "astro:build:done": async ({ dir, logger }) => {
        const root = fileURLToPath(dir);
        for (const [path, bytes] of files) {
          await mkdir(dirname(join(root, path)), { recursive: true });
          await writeFile(join(root, path), bytes);
        }
        logger.info(
          files.size === 0
            ? "no pulse record yet: no /v1/pulse files to publish"
            : `published ${files.size} /v1/pulse files from the signed history`,
        );
      },
    },
  };
}

/**
 * `virtual:integrity/data-dir`: the absolute data directory of this build, for src/lib/pulse.ts.
 * A virtual module rather than a `define`, so that another DATA_DIR does not change Vite's
 * config hash (and so does not re-optimise dependencies or race with another build's cache).
 */
function dataDirModule() {
  const id = "virtual:integrity/data-dir";
  return {
    name: "integrity:data-dir",
    resolveId: (source) => (source === id ? `\0${id}` : undefined),
    load: (resolved) => (resolved === `\0${id}` ? `export default ${JSON.stringify(dataDir)};\n` : undefined),
  };
}

export default defineConfig({
  site,
  output: "static",
  outDir: "./dist",
  trailingSlash: "ignore",
  build: {
    format: "directory",
    // One small stylesheet, cached across pages instead of inlined into each of them.
    inlineStylesheets: "never",
  },
  devToolbar: { enabled: false },
  // The manual (docs/*.md, src/content.config.ts): links between pages rewritten for the portal,
  // tables in their own scroll boxes; code blocks plain (wrapped by the stylesheet, no inline colours).
  markdown: { syntaxHighlight: false, processor: satteri({ hastPlugins: [manualPlugin] }) },
  // The sitemap lists every page but the 404 page (sitemap-index.xml, linked from robots.txt).
  integrations: [
    publishPulse(),
    publishDataAreas(),
    publishMigrationTree(),
    publishLedgerTiles(),
    publishConsensusProofs(),
    publishVerifierTool(),
    sitemap({ filter: (page) => !/\/404\/?$/.test(new URL(page).pathname) }),
    publishHeaders(),
  ],
  vite: {
    plugins: [dataDirModule(), apiDescriptionModule(resolve(here, ".."), dataDir), verifierToolModule(verifierTool)],
  },
});
