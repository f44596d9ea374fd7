/**
 * The portal as a browser test reads it: the site built from the repository's data (the run's
 * shared build), served with the API on loopback, and Debian's chromium on a page of it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { createApp } from "../../../api/app.ts";
import { listen, type RunningServer } from "../../../api/server/server.ts";
import { buildSite, launchChromium, REPO_DATA_DIR } from "./helpers.ts";

export interface PortalInBrowser {
  page: Page;
  context: BrowserContext;
  /** The API serving the built site; `url` is its origin. */
  server: RunningServer;
  close(): Promise<void>;
}

export async function portalInBrowser(
  prefix: string,
  viewport = { width: 1280, height: 900 },
): Promise<PortalInBrowser> {
  const tmp = mkdtempSync(join(tmpdir(), prefix));
  const siteDir = join(tmp, "site");
  const build = await buildSite(REPO_DATA_DIR, siteDir);
  if (build.code !== 0) throw new Error(`site build failed:\n${build.output}`);
  const server = await listen(
    createApp({ dataDir: REPO_DATA_DIR, siteDir, log: () => {}, trustedOrigins: [] }),
    "127.0.0.1",
    0,
  );
  const context = await launchChromium(join(tmp, "profile"), viewport);
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    page,
    context,
    server,
    async close() {
      await context.close();
      await server.close();
      rmSync(tmp, { recursive: true, force: true });
    },
  };
}
