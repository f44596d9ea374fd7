/**
 * JSON output of the generators: one way to write a published JSON document.
 *
 * Every document is checked against its zod schema before it is written (the runner checks the
 * published JSON Schema again), then written as `JSON.stringify(doc, null, 2) + "\n"`: two-space
 * indentation, keys in the order the generator built them, a final newline. Key order is part of
 * the bytes, so generators build objects in a fixed order (the schema's field order).
 */
import type { z } from "zod";
import { formatIssues } from "../../core/zod-issues.ts";

/** The published text of a JSON document. */
export function jsonText(doc: unknown): string {
  return `${JSON.stringify(doc, null, 2)}\n`;
}

/**
 * Validates `doc` with `schema` and returns its published text; throws naming the output and every
 * failing field (a generator bug, never user input).
 */
export function publishJson<T>(what: string, schema: z.ZodType<T>, doc: T): string {
  const result = schema.safeParse(doc);
  if (!result.success) {
    throw new Error(`${what} does not match its schema: ${formatIssues(result.error.issues)}`);
  }
  return jsonText(doc);
}

/** Reads and validates another step's JSON output (a declared `step:<id>` input). */
export function readStepJson<T>(outputs: ReadonlyMap<string, Uint8Array>, id: string, schema: z.ZodType<T>): T {
  const bytes = outputs.get(id);
  if (!bytes) throw new Error(`output of step ${id} is not available (declare "step:${id}" as an input)`);
  const result = schema.safeParse(JSON.parse(new TextDecoder().decode(bytes)));
  if (!result.success) throw new Error(`output of step ${id} does not match its schema`);
  return result.data;
}
