/**
 * The scan: which files the repository holds, how many lines, and how many apps, packages and
 * workflows. The counting rules live in data/sources/scoring.json (`scan`); the defaults are
 *
 * - apps: a directory matching `apps/*`, or a top-level directory that directly holds an entry file
 *   (`cli.ts`, `main.ts`, `start.ts`, `server.ts`, `astro.config.{mjs,ts,js}`) — in this repository
 *   api/ (start.ts), site/ (astro.config.mjs) and pipeline/ (cli.ts);
 * - packages: every `package.json` except the root one;
 * - workflows: `.github/workflows/*.yml` and `*.yaml`.
 *
 * Local scan (default, or `--repo PATH`): the tracked files (`git ls-files`) as they are in the work
 * tree; lines = number of "\n" bytes of each text file, files holding a NUL byte are binary and
 * add no lines. GitHub scan (`--repo owner/name`): the git trees API, which gives paths and blob
 * sizes but no content, so lines are not measurable there (totalLines null, and said so).
 */
import { lstatSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ScanRules } from "./config.ts";
import { gitBytes } from "./git.ts";
import type { GitHubClient } from "./github.ts";

export interface ScanStats {
  totalFiles: number;
  /** null when lines could not be measured (GitHub scan). */
  totalLines: number | null;
  appsCount: number;
  packagesCount: number;
  workflowsCount: number;
}

export interface ScanResult {
  stats: ScanStats;
  /** What was scanned, for the report. */
  source: string;
  apps: string[];
  packages: string[];
  workflows: string[];
  notes: string[];
}

/** A glob over `/`-separated paths: `*` and `?` stay inside one segment, `**` spans segments. */
export function globToRegExp(glob: string): RegExp {
  let out = "";
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i]!;
    if (ch === "*" && glob[i + 1] === "*") {
      const slash = glob[i + 2] === "/";
      out += slash ? "(?:.*/)?" : ".*";
      i += slash ? 2 : 1;
    } else if (ch === "*") out += "[^/]*";
    else if (ch === "?") out += "[^/]";
    else out += ch.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${out}$`);
}

function matcher(globs: readonly string[]): (path: string) => boolean {
  const res = globs.map(globToRegExp);
  return (path) => res.some((re) => re.test(path));
}

/** Apps, packages and workflows among repository-relative file paths, each list sorted. */
export function classify(
  paths: readonly string[],
  rules: ScanRules,
): Pick<ScanResult, "apps" | "packages" | "workflows"> {
  const appGlob = matcher(rules.apps.globs);
  const entries = new Set(rules.apps.entryFiles);
  const apps = new Set<string>();
  for (const path of paths) {
    const parts = path.split("/");
    // Every ancestor directory of the file may be an app by glob.
    for (let depth = 1; depth < parts.length; depth++) {
      const dir = parts.slice(0, depth).join("/");
      if (appGlob(dir)) apps.add(dir);
    }
    if (parts.length === 2 && entries.has(parts[1]!)) apps.add(parts[0]!);
  }
  const isPackage = matcher(rules.packages.globs);
  const excluded = matcher(rules.packages.exclude);
  const isWorkflow = matcher(rules.workflows.globs);
  return {
    apps: [...apps].sort(),
    packages: paths.filter((p) => isPackage(p) && !excluded(p)).sort(),
    workflows: paths.filter(isWorkflow).sort(),
  };
}

/** Number of "\n" bytes, or null for a binary file (one holding a NUL byte). */
export function countLines(bytes: Uint8Array): number | null {
  if (bytes.indexOf(0) !== -1) return null;
  let n = 0;
  for (let at = bytes.indexOf(10); at !== -1; at = bytes.indexOf(10, at + 1)) n++;
  return n;
}

/** Scans the tracked files of the git work tree at `repo` (its top-level directory). */
export async function scanLocal(repo: string, rules: ScanRules): Promise<ScanResult> {
  const listing = await gitBytes(repo, ["ls-files", "-z"]);
  const paths = listing
    .toString("utf8")
    .split("\0")
    .filter((p) => p !== "");
  const notes: string[] = [];
  const present: string[] = [];
  let totalLines = 0;
  let binary = 0;
  const missing: string[] = [];
  for (const path of paths) {
    const full = join(repo, path);
    let stat;
    try {
      stat = lstatSync(full);
    } catch {
      missing.push(path); // tracked but deleted in the work tree: not part of the checkout
      continue;
    }
    if (stat.isDirectory()) {
      notes.push(`${path}: a submodule, not counted`);
      continue;
    }
    present.push(path);
    if (stat.isSymbolicLink()) continue; // a link holds a target, not lines
    const lines = countLines(readFileSync(full));
    if (lines === null) binary++;
    else totalLines += lines;
  }
  if (missing.length > 0)
    notes.push(
      `${missing.length} tracked file(s) missing from the work tree, not counted: ${missing.slice(0, 5).join(", ")}${missing.length > 5 ? ", …" : ""}`,
    );
  if (binary > 0) notes.push(`${binary} binary file(s) add no lines`);
  const found = classify(present, rules);
  return {
    stats: {
      totalFiles: present.length,
      totalLines,
      appsCount: found.apps.length,
      packagesCount: found.packages.length,
      workflowsCount: found.workflows.length,
    },
    source: `git work tree ${repo}`,
    ...found,
    notes,
  };
}

/** Scans a GitHub repository at `ref` through the git trees API (recursive). */
export async function scanGitHub(client: GitHubClient, ref: string, rules: ScanRules): Promise<ScanResult> {
  const tree = await client.tree(ref);
  if (tree.truncated) {
    throw new Error(
      `${client.slug}: the git trees API truncated the tree of ${ref}; scan a local clone with --repo PATH instead`,
    );
  }
  // Blobs only: "commit" entries are submodules; symlinks are blobs too, as in git ls-files.
  const paths = tree.entries.filter((e) => e.type === "blob").map((e) => e.path);
  const bytes = tree.entries.reduce((n, e) => n + (e.type === "blob" ? (e.size ?? 0) : 0), 0);
  const found = classify(paths, rules);
  return {
    stats: {
      totalFiles: paths.length,
      totalLines: null,
      appsCount: found.apps.length,
      packagesCount: found.packages.length,
      workflowsCount: found.workflows.length,
    },
    source: `GitHub ${client.slug}@${ref} (git trees API)`,
    ...found,
    notes: [
      `lines are not measurable through the git trees API (it gives ${bytes} bytes of blobs, not their content): totalLines unmeasured`,
    ],
  };
}
