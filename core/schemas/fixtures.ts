/**
 * The examples (./examples.ts) in the shape api/routes/area-files.ts still reads for its OpenAPI
 * examples (`fixtures[name].valid`); that module should import `examples` instead, and this one
 * then goes. Nothing else imports it.
 */
import { examples, type Examples } from "./examples.ts";

export const fixtures = Object.fromEntries(Object.entries(examples).map(([name, valid]) => [name, { valid }])) as {
  [K in keyof Examples]: { valid: Examples[K] };
};
