/**
 * What a request body's JSON must also be, beyond parsing, before any route reads it: one value
 * per member name, no member named `__proto__`, and nothing the ledger's canonical form (RFC 8785,
 * core/canonical.ts) cannot hold. JSON.parse keeps the last of two equal names, and a schema that
 * rebuilds an object by assignment turns `__proto__` into the object's prototype: either way what
 * a route decides and records would differ from what the client sent (and from what a proxy or an
 * audit tool reading the same text sees). A lone surrogate or a number beyond double range would
 * pass the schemas and fail only when the entry is sealed. Each is refused here, with a pointer.
 * @module
 */
import { isCanonicalizableJson } from "./canonical.ts";

/** Why a parsed body is refused: the JSON Pointer (RFC 6901) of the member and the reason. */
export interface JsonBodyProblem {
  pointer: string;
  reason: string;
}

/**
 * The first problem of `text`, or null when it has none — or is not JSON at all, which is the
 * parser's to refuse. `members` is the text's member count from the depth scan (core/json-depth.ts
 * `scanJson`), which must already have found it within the depth bound: the walk recurses on it.
 */
export function jsonBodyProblem(text: string, members: number): JsonBodyProblem | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const walked = { members: 0 };
  const found = walk(value, "", walked);
  if (found) return found;
  // Every ':' outside a string of valid JSON separates one member: fewer names than that in the
  // parsed value means a name was given twice in one object.
  if (walked.members !== members) return { pointer: "", reason: "a member name appears twice in one object" };
  return null;
}

/** The first problem at or below `value` (at pointer `at`); counts the object members it passes. */
function walk(value: unknown, at: string, walked: { members: number }): JsonBodyProblem | null {
  if (typeof value !== "object" || value === null) {
    return isCanonicalizableJson(value)
      ? null
      : {
          pointer: at,
          reason:
            typeof value === "number" ? "a number beyond the range of a double" : "a string with a lone surrogate",
        };
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = walk(value[i], `${at}/${i}`, walked);
      if (found) return found;
    }
    return null;
  }
  for (const key of Object.keys(value)) {
    walked.members += 1;
    const member = `${at}/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`;
    if (key === "__proto__") return { pointer: member, reason: "a member named __proto__" };
    if (!isCanonicalizableJson(key)) return { pointer: member, reason: "a member name with a lone surrogate" };
    const found = walk((value as Record<string, unknown>)[key], member, walked);
    if (found) return found;
  }
  return null;
}
