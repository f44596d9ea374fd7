/** Runs the installed `integrity-verify` command (node_modules/.bin) as a downloader would, and collects what it printed. */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { REPO_ROOT } from "./site/helpers.ts";

const BIN = join(REPO_ROOT, "node_modules", ".bin", "integrity-verify");

export function runIntegrityVerify(cwd: string, ...args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr.on("data", (c: Buffer) => (err += c.toString()));
  return new Promise((done) => child.on("close", (code) => done({ code, out, err })));
}
