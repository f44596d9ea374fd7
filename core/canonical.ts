/**
 * RFC 8785 JSON Canonicalization Scheme (JCS).
 *
 * One recursive pass that builds the output string. ECMAScript already does the hard parts:
 * `JSON.stringify(string)` escapes exactly as JCS §3.2.2.2 requires, `"" + number` is the
 * ECMAScript Number-to-String that JCS §3.2.2.3 adopts (and gives "0" for -0), and the default
 * `Array#sort` compares UTF-16 code units as JCS §3.2.3 requires.
 *
 * Input must be I-JSON (RFC 7493): anything JSON.stringify would silently drop, coerce or call
 * (undefined, NaN, toJSON, Date, Map, holes, lone surrogates…) is rejected with a path instead,
 * because a hash over a lossy rendering would not commit to the value the caller holds.
 * @module
 */
import { CodedError } from "./errors.ts";

/** Thrown when a value has no canonical JSON form; `path` is a JSON Pointer (RFC 6901). */
export class CanonicalizationError extends CodedError<"not-canonicalizable"> {
  readonly path: string;
  constructor(what: string, path: string) {
    super("not-canonicalizable", `cannot canonicalize ${what} at ${path === "" ? "(root)" : path}`);
    this.path = path;
  }
}

// Anything JSON.stringify would escape, or any surrogate. Most strings (keys, ids, digests,
// timestamps) match none of it and are quoted directly: one regex test instead of a
// JSON.stringify call per string, the largest single cost on small records.
const SPECIAL = /["\\\u0000-\u001F\uD800-\uDFFF]/;
// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const OBJECT_PROTO = Object.prototype;
const ARRAY_PROTO = Array.prototype;

/** Canonical JSON text of `value` (RFC 8785). Throws {@link CanonicalizationError}. */
export function canonicalize(value: unknown): string {
  // `path` holds the keys/indices from the root to the value being written and `seen` the
  // containers on that path (a cycle is a container that is its own ancestor). Both are only
  // read on the error path or for the ancestor check, so the happy path stays allocation-light.
  return write(value, [], []);
}

const encoder = new TextEncoder();

/** UTF-8 bytes of {@link canonicalize}: what gets hashed and signed. */
export function canonicalBytes(value: unknown): Uint8Array {
  return encoder.encode(canonicalize(value));
}

function write(value: unknown, path: (string | number)[], seen: object[]): string {
  switch (typeof value) {
    case "string":
      return writeString(value, path);
    case "number":
      if (!Number.isFinite(value)) fail(`non-finite number ${value}`, path);
      return "" + value;
    case "boolean":
      return value ? "true" : "false";
    case "object":
      if (value === null) return "null";
      if (seen.includes(value)) fail("a cycle (value contains itself)", path);
      return Array.isArray(value) ? writeArray(value, path, seen) : writeObject(value, path, seen);
    default:
      // undefined, bigint, function, symbol: no JSON form (bigint has no lossless one in I-JSON).
      return fail(typeof value, path);
  }
}

/**
 * Whether {@link canonicalize} can encode a value JSON.parse returned (or zod's `z.json()`
 * accepted). Of its rules only two can fail on such a value: a string or key with a lone surrogate
 * (JSON's `\ud800` escape) and a number beyond double range (`1e999` parses as Infinity). Cheaper
 * than building the text to find out.
 */
export function isCanonicalizableJson(value: unknown): boolean {
  switch (typeof value) {
    case "string":
      return !(SPECIAL.test(value) && LONE_SURROGATE.test(value));
    case "number":
      return Number.isFinite(value);
    case "object":
      if (value === null) return true;
      if (Array.isArray(value)) return value.every(isCanonicalizableJson);
      for (const key in value) {
        if (!isCanonicalizableJson(key) || !isCanonicalizableJson((value as Record<string, unknown>)[key]))
          return false;
      }
      return true;
    default:
      return typeof value === "boolean";
  }
}

function writeString(s: string, path: (string | number)[], what = "a string"): string {
  if (!SPECIAL.test(s)) return '"' + s + '"';
  if (LONE_SURROGATE.test(s)) fail(`${what} with a lone surrogate`, path);
  return JSON.stringify(s);
}

function writeArray(arr: unknown[], path: (string | number)[], seen: object[]): string {
  // Subclasses and other realms' arrays could carry behaviour or extra state; keep to plain ones.
  if (Object.getPrototypeOf(arr) !== ARRAY_PROTO) fail("an Array subclass instance", path);
  const n = arr.length;
  if (n === 0) return "[]";
  seen.push(arr);
  let out = "[";
  for (let i = 0; i < n; i++) {
    path.push(i);
    const item = arr[i];
    if (item === undefined && !(i in arr)) fail("an array hole (sparse array)", path);
    out += (i === 0 ? "" : ",") + write(item, path, seen);
    path.pop();
  }
  seen.pop();
  return out + "]";
}

function writeObject(obj: object, path: (string | number)[], seen: object[]): string {
  const proto = Object.getPrototypeOf(obj);
  if (proto !== OBJECT_PROTO && proto !== null) fail(`a non-plain object (${kindOf(obj)})`, path);
  if (Object.getOwnPropertySymbols(obj).length > 0) fail("a symbol-keyed property", path);
  const keys = Object.keys(obj);
  if (keys.length === 0) return "{}";
  sortKeys(keys);
  seen.push(obj);
  const rec = obj as Record<string, unknown>;
  let out = "";
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    path.push(key);
    out += memberHead(key, path) + write(rec[key], path, seen);
    path.pop();
  }
  seen.pop();
  return "{" + out.slice(1) + "}";
}

/**
 * `,"key":` for each short key seen, checked and quoted once: records repeat a few keys, and one
 * lookup is cheaper than a check and two concatenations per member. Bounded in count and in key
 * length (at most ~1 MB), emptied when full: keys from hostile input only cost speed.
 */
const HEADS = new Map<string, string>();
const MAX_HEADS = 4096;
const MAX_HEAD_KEY = 64;

function memberHead(key: string, path: (string | number)[]): string {
  let head = HEADS.get(key);
  if (head === undefined) {
    head = "," + writeString(key, path, "a key") + ":";
    if (key.length > MAX_HEAD_KEY) return head;
    if (HEADS.size >= MAX_HEADS) HEADS.clear();
    HEADS.set(key, head);
  }
  return head;
}

/**
 * Sorts by UTF-16 code units, like the default Array#sort: insertion sort for the few keys of a
 * typical record (cheaper than a call into the generic sort), Array#sort beyond.
 */
function sortKeys(keys: string[]): void {
  if (keys.length > 12) {
    keys.sort();
    return;
  }
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]!;
    let j = i - 1;
    while (j >= 0 && keys[j]! > key) {
      keys[j + 1] = keys[j]!;
      j -= 1;
    }
    keys[j + 1] = key;
  }
}

/** A name for the error message only: "Date", "Map", a class name, or "custom prototype". */
function kindOf(obj: object): string {
  const ctor: unknown = (obj as { constructor?: unknown }).constructor;
  return typeof ctor === "function" && ctor !== Object && ctor.name !== "" ? ctor.name : "custom prototype";
}

function fail(what: string, path: readonly (string | number)[]): never {
  throw new CanonicalizationError(what, pointer(path));
}

/** RFC 6901 JSON Pointer: "~" and "/" inside a key are escaped as "~0" and "~1". */
function pointer(path: readonly (string | number)[]): string {
  let out = "";
  for (const seg of path) out += "/" + String(seg).replaceAll("~", "~0").replaceAll("/", "~1");
  return out;
}
