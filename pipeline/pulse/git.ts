/**
 * Running git: execFile with an argument array (no shell), output as bytes or text. Every git read
 * of the indexer goes through here.
 */
import { execFile } from "node:child_process";
import { CodedError } from "../../core/errors.ts";

export class GitError extends CodedError<"git-failed"> {
  /** git's exit status, or null when it was killed by a signal. */
  readonly exitCode: number | null;
  readonly stderr: string;
  constructor(args: readonly string[], exitCode: number | null, stderr: string) {
    super(
      "git-failed",
      `git ${args.join(" ")} failed${exitCode === null ? "" : ` (exit ${exitCode})`}: ${stderr.trim() || "no message"}`,
    );
    this.exitCode = exitCode;
    this.stderr = stderr;
  }
}

// Large enough for `git ls-files` of a big monorepo or a long history file at an old revision.
const MAX_BUFFER = 512 * 1024 * 1024;

/** Runs git in `repo` and returns stdout as bytes. */
export function gitBytes(repo: string, args: readonly string[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    execFile(
      "git",
      ["-C", repo, ...args],
      // Fixed locale and no pager: output is parsed, never shown.
      { encoding: "buffer", maxBuffer: MAX_BUFFER, env: { ...process.env, LC_ALL: "C", GIT_PAGER: "cat" } },
      (error, stdout, stderr) => {
        if (error) {
          const code = typeof error.code === "number" ? error.code : null;
          reject(new GitError(args, code, stderr.toString("utf8") || error.message));
        } else resolve(stdout);
      },
    );
  });
}

export async function git(repo: string, args: readonly string[]): Promise<string> {
  return (await gitBytes(repo, args)).toString("utf8");
}

/** The top-level directory of the work tree that holds `path`, or null if it is not inside one. */
export async function gitTopLevel(path: string): Promise<string | null> {
  try {
    return (await git(path, ["rev-parse", "--show-toplevel"])).trim();
  } catch (error) {
    if (error instanceof GitError) return null;
    throw error;
  }
}
