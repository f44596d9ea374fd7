/**
 * Curated inputs: `data/sources/<path>`, read by the generators through the SourceReader of
 * pipeline/step.ts. Every JSON source is parsed and validated by a zod schema before a generator
 * sees it; an error names the file and the field path (`data/sources/scoring.json: weights.gi:
 * expected number, received string`).
 *
 * A reader may be scoped to the sources a step declares: reading anything else throws, because an
 * undeclared input would be missing from the step's input hash and its output would go stale
 * without the runner noticing.
 */
import { readFileSync } from "node:fs";
import { isAbsolute, join, normalize } from "node:path";
import type { z } from "zod";
import type { SourceReader } from "./step.ts";
import { formatIssues } from "../core/zod-issues.ts";
import { CodedError } from "../core/errors.ts";

export class SourceError extends CodedError<"invalid-source"> {
  readonly file: string;
  constructor(file: string, message: string) {
    super("invalid-source", `${file}: ${message}`);
    this.file = file;
  }
}

export interface SourceReaderOptions {
  /** How files are named in messages; default `data/sources`. */
  label?: string;
  /** Source paths (relative to the folder) the caller may read; all when absent. */
  allowed?: ReadonlySet<string>;
  /** Who is reading, for the "not declared" message (e.g. the step id). */
  reader?: string;
}

/** Refuses absolute paths, `..`, backslashes and empty segments: a source path stays inside the folder. */
export function checkSourcePath(path: string): string {
  if (typeof path !== "string" || path === "" || isAbsolute(path) || path.includes("\\")) {
    throw new Error(`invalid source path ${JSON.stringify(path)}: expected a relative POSIX path`);
  }
  const segments = path.split("/");
  if (segments.some((s) => s === "" || s === "." || s === "..") || normalize(path) !== path) {
    throw new Error(`invalid source path ${JSON.stringify(path)}: no empty, "." or ".." segments`);
  }
  return path;
}

/** `dir`: the sources folder, or where each source path is (keyed sources live apart: pipeline/layout.ts). */
export function createSourceReader(
  dir: string | ((path: string) => string),
  options: SourceReaderOptions = {},
): SourceReader {
  const label = options.label ?? "data/sources";
  const read = (path: string): string => {
    checkSourcePath(path);
    const file = `${label}/${path}`;
    if (options.allowed && !options.allowed.has(path)) {
      throw new SourceError(file, `read by ${options.reader ?? "a step"} but not declared as input "sources/${path}"`);
    }
    try {
      return readFileSync(typeof dir === "string" ? join(dir, path) : dir(path), "utf8");
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new SourceError(file, code === "ENOENT" ? "file not found" : (error as Error).message);
    }
  };
  return {
    text: read,
    json<T>(path: string, schema: z.ZodType<T>): T {
      const file = `${label}/${path}`;
      const text = read(path);
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (error) {
        throw new SourceError(file, `not valid JSON (${(error as Error).message})`);
      }
      const result = schema.safeParse(parsed);
      if (!result.success) {
        throw new SourceError(file, formatIssues(result.error.issues));
      }
      return result.data;
    },
  };
}
