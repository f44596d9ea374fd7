/**
 * One example document of every published schema (core/schemas/index.ts): what each schema's
 * OpenAPI description shows (api/openapi/responses.ts), and the document the schema tests accept.
 * The examples are written by kind — the areas' files (examples-areas.ts), the API's own documents
 * (examples-api.ts), made of the parts in examples-parts.ts — and each is checked against its
 * schema's type where it is written; `Examples` here makes a missing entry a compile error. The
 * schema tests' counter-examples are JSON Patches of these examples, kept as data in
 * test/fixtures/schemas/ (read by test/support/core/schemas/helpers.ts).
 */
import { apiExamples } from "./examples-api.ts";
import { areaExamples } from "./examples-areas.ts";
import type { Examples } from "./examples-parts.ts";

export type { Examples } from "./examples-parts.ts";

export const examples: Examples = { ...apiExamples, ...areaExamples };
