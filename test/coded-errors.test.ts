/**
 * One error base: every error class of the production code extends CodedError (core/errors.ts), so
 * callers branch on a `code` and the API maps codes to problems in one place. The standalone
 * verifier package (packages/integrity-verify) has its own single error class and is not scanned.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const PRODUCTION = ["core", "store", "pipeline", "api", "cli", "site/src"];

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(path);
    else if (/\.(ts|mts)$/.test(entry.name) && !entry.name.endsWith(".test.ts")) yield path;
  }
}

/** `class X extends Error` (or a built-in error type) in a file: each is a class outside the base. */
export function uncodedErrorClasses(text: string): string[] {
  return [...text.matchAll(/class\s+(\w+)\s+extends\s+(?:Error|TypeError|RangeError|SyntaxError)\b/g)].map(
    (m) => m[1]!,
  );
}

describe("error classes", () => {
  it("finds a class that extends Error directly (the check itself works)", () => {
    expect(
      uncodedErrorClasses("export class OddError extends Error {}\nclass Fine extends CodedError<'x'> {}"),
    ).toEqual(["OddError"]);
  });

  it("every production error class extends CodedError", () => {
    const found: string[] = [];
    for (const folder of PRODUCTION) {
      for (const file of sources(join(ROOT, folder))) {
        for (const name of uncodedErrorClasses(readFileSync(file, "utf8")))
          found.push(`${relative(ROOT, file)}: ${name}`);
      }
    }
    expect(found).toEqual([]);
  });
});
