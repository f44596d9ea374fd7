/** Runs the installed `integrity-verify` command (node_modules/.bin) as a downloader would, and collects what it printed. */
import { spawn } from "node:child_process";
import { mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { REPO_ROOT } from "./site/helpers.ts";

/**
 * The installed command (node_modules/.bin, as `npx integrity-verify` runs it), or this checkout's
 * own bin when node_modules is shared with another checkout (a git worktree), whose link would run
 * that checkout's code instead of the one under test.
 */
export function integrityVerifyBin(repo: string): string {
  const installed = join(repo, "node_modules", ".bin", "integrity-verify");
  const own = join(repo, "packages", "integrity-verify", "bin", "integrity-verify.js");
  try {
    return realpathSync(installed) === realpathSync(own) ? installed : own;
  } catch {
    return own;
  }
}

const BIN = integrityVerifyBin(REPO_ROOT);

export function runIntegrityVerify(
  cwd: string,
  ...args: string[]
): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr.on("data", (c: Buffer) => (err += c.toString()));
  return new Promise((done) => child.on("close", (code) => done({ code, out, err })));
}

/**
 * `npx` as a downloader runs it: from `cwd` (an empty folder), on a PATH without any node_modules/.bin
 * (where an installed copy would answer instead), with no npm settings inherited from the test run,
 * and npm's cache and user config in a new folder under `scratch`.
 */
export function npxAsDownloader(
  scratch: string,
  cwd: string,
  ...args: string[]
): Promise<{ code: number | null; out: string; err: string }> {
  const home = mkdtempSync(join(scratch, "npm-"));
  writeFileSync(join(home, "npmrc"), "");
  const path = [
    dirname(process.execPath),
    ...(process.env.PATH ?? "").split(delimiter).filter((d) => d && !d.includes("node_modules")),
  ].join(delimiter);
  const env: NodeJS.ProcessEnv = {
    PATH: path,
    HOME: home,
    npm_config_userconfig: join(home, "npmrc"),
    npm_config_update_notifier: "false",
    npm_config_audit: "false",
    npm_config_fund: "false",
  };
  const child = spawn("npx", ["--yes", "--cache", join(home, "cache"), ...args], {
    cwd,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr.on("data", (c: Buffer) => (err += c.toString()));
  return new Promise((done) => child.on("close", (code) => done({ code, out, err })));
}
