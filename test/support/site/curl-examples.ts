/**
 * The API reference's examples as a test reads them: a `curl -i` command as the page shows it
 * (site/src/lib/api-reference.ts writes them) parsed into a request, an example response message
 * split into status, media type and body, and the comparison of a documented answer with a real
 * one, except the fields the caller names as varying.
 */
import { isDeepStrictEqual } from "node:util";

export interface CurlRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/** The shell words of a command made of single-quoted strings and plain words (`\`-newline continues). */
function shellWords(command: string): string[] {
  const words: string[] = [];
  const text = command.replace(/\\\n/g, " ");
  let i = 0;
  while (i < text.length) {
    if (/\s/.test(text[i]!)) {
      i++;
      continue;
    }
    let word = "";
    while (i < text.length && !/\s/.test(text[i]!)) {
      if (text[i] === "'") {
        const end = text.indexOf("'", i + 1);
        if (end < 0) throw new Error(`unclosed quote in ${command}`);
        word += text.slice(i + 1, end);
        i = end + 1;
      } else if (text[i] === "\\") {
        word += text[i + 1] ?? "";
        i += 2;
      } else word += text[i++];
    }
    words.push(word);
  }
  return words;
}

/** A `curl -i [-X M] [-H 'h: v']… [--data 'b'] 'url'` command as a request. */
export function parseCurl(command: string): CurlRequest {
  const words = shellWords(command.trim());
  if (words[0] !== "curl" || words[1] !== "-i") throw new Error(`not a curl -i command: ${command}`);
  const request: CurlRequest = { method: "GET", url: "", headers: {} };
  for (let i = 2; i < words.length; i++) {
    const word = words[i]!;
    if (word === "-X") request.method = words[++i]!;
    else if (word === "-H") {
      const [name, ...value] = words[++i]!.split(":");
      request.headers[name!.trim()] = value.join(":").trim();
    } else if (word === "--data") {
      request.body = words[++i]!;
      if (request.method === "GET") request.method = "POST";
    } else if (word.startsWith("-")) throw new Error(`unknown curl option ${word}`);
    else request.url = word;
  }
  return request;
}

export interface Message {
  status: number;
  contentType: string;
  body: string;
}

/** An example response as the page shows it: the status line, header fields, a blank line, the body. */
export function splitMessage(text: string): Message {
  const [head, ...rest] = text.split("\n\n");
  const lines = head!.split("\n");
  const status = Number(/^HTTP\/1\.1 (\d{3})\b/.exec(lines[0]!)?.[1]);
  const contentType = lines.find((l) => /^content-type:/i.test(l))?.replace(/^content-type:\s*/i, "") ?? "";
  return { status, contentType, body: rest.join("\n\n") };
}

/**
 * What may differ between the documented and the real answer, and why: some JSON fields (a name is
 * a top-level member; `/a/b` a JSON pointer to a nested one), or (`values`) every value, for an answer that is published data (its field names must still be
 * the documented ones), or (`body`) the whole body (a document the page describes, not copies).
 */
export type Varies = { fields: string[]; why: string } | { values: true; why: string } | { body: true; why: string };

/** Removes a member named by its name or by a JSON pointer (RFC 6901), if it is there. */
function removeField(document: object, field: string): void {
  const path = field.startsWith("/")
    ? field
        .slice(1)
        .split("/")
        .map((s) => s.replaceAll("~1", "/").replaceAll("~0", "~"))
    : [field];
  let at: unknown = document;
  for (const name of path.slice(0, -1))
    at = at !== null && typeof at === "object" ? (at as Record<string, unknown>)[name] : undefined;
  if (at !== null && typeof at === "object") delete (at as Record<string, unknown>)[path.at(-1)!];
}

const mediaOf = (contentType: string) => contentType.split(";")[0]!.trim().toLowerCase();
const isJson = (media: string) => media === "application/json" || media.endsWith("+json");

/**
 * Null when `actual` is what `documented` says: the same status and media type and, for JSON, the
 * same document once the varying fields are removed from both. A body the page shows as
 * `(media type: what it is)` (a file, a PDF, a CSV) is a description, not a copy: its media type
 * is what is compared. Otherwise, what differs.
 */
export function sameExceptVarying(documented: Message, actual: Message, varies?: Varies): string | null {
  if (documented.status !== actual.status)
    return `status ${actual.status}, documented ${documented.status}: ${actual.body.slice(0, 300)}`;
  if (mediaOf(documented.contentType) !== mediaOf(actual.contentType))
    return `media type ${actual.contentType}, documented ${documented.contentType}`;
  if (/^\(.*\)$/s.test(documented.body.trim()) || (varies && "body" in varies)) return null;
  if (!isJson(mediaOf(documented.contentType)))
    return documented.body === actual.body ? null : `body differs: ${actual.body.slice(0, 300)}`;
  const strip = (text: string) => {
    const value = JSON.parse(text) as unknown;
    const isObject = value !== null && typeof value === "object" && !Array.isArray(value);
    if (varies && "values" in varies)
      return isObject ? Object.keys(value).sort() : Array.isArray(value) ? "an array" : typeof value;
    if (isObject) for (const field of varies?.fields ?? []) removeField(value, field);
    return value;
  };
  const [want, got] = [strip(documented.body), strip(actual.body)];
  return isDeepStrictEqual(want, got) ? null : `body differs: ${JSON.stringify(got).slice(0, 400)}`;
}
