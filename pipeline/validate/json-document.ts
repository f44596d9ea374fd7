/** A whole JSON document's bytes, checked as a downloader reads them: UTF-8 without BOM, JSON, its schema. */
import type { ValidateFunction } from "ajv";
import { DataError } from "./data-error.ts";
import { ajvProblem } from "./json-schemas.ts";

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Parses a JSON file's bytes (UTF-8, no BOM) and validates it; throws a DataError naming the file. */
export function validateJsonBytes(file: string, bytes: Uint8Array, validate: ValidateFunction): unknown {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new DataError("encoding", file, "not valid UTF-8");
  }
  if (text.startsWith("\uFEFF")) throw new DataError("encoding", file, "starts with a byte order mark");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new DataError("syntax", file, `not valid JSON (${(error as Error).message})`);
  }
  if (!validate(value))
    throw new DataError("schema", file, `does not match its JSON Schema: ${ajvProblem(validate.errors)}`);
  return value;
}
