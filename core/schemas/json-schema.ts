/**
 * Conversion of a registry entry to its published JSON Schema (draft 2020-12).
 *
 * Refinements that JSON Schema cannot express (cross-field checks such as the 90-day bound of
 * authority_context, pulse history count = items.length, v2 balance formatting) are enforced by zod
 * only; the JSON Schemas describe everything else, identically.
 */
import { z } from "zod";

/** Base URI of every published schema `$id`. */
export const SCHEMA_BASE_URI = "https://integrity-platform.example/schemas/";

/** Registry names: kebab-case segments, optionally `<area>/<file-stem>`. */
const NAME_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*(?:\/[a-z0-9]+(?:-[a-z0-9]+)*)?$/;

/** The `$id` of a published schema. */
export function schemaId(name: string): string {
  return `${SCHEMA_BASE_URI}${name}.schema.json`;
}

/** A JSON Schema document as a plain JSON object. */
export type JsonSchemaDocument = { [key: string]: unknown };

/**
 * The JSON Schema of one registry entry: `$schema`, `$id`, `title` first, then what zod generates.
 * Deterministic: the same zod schema always gives the same object with the same key order.
 */
export function toPublishedJsonSchema(name: string, schema: z.ZodType): JsonSchemaDocument {
  if (!NAME_PATTERN.test(name)) {
    throw new Error(`invalid published schema name: ${JSON.stringify(name)}`);
  }
  const generated = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    // The schemas have no transforms, defaults or coercions, so input and output shapes coincide;
    // "output" describes the documents as published.
    io: "output",
    unrepresentable: "throw",
    cycles: "ref",
    reused: "inline",
  }) as JsonSchemaDocument;
  const { $schema, ...rest } = generated;
  return {
    $schema: $schema ?? "https://json-schema.org/draft/2020-12/schema",
    $id: schemaId(name),
    title: name,
    ...rest,
  };
}
