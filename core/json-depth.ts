/**
 * The nesting depth of JSON text, found by one linear scan — no recursion and no parse — so a body
 * can be refused for its depth before anything recursive (JSON.parse's consumers: zod's `z.json()`,
 * the canonicalizer, a walk over the value) ever sees it. Depth counts open arrays and objects:
 * `1` and `"x"` are 0, `[]` and `{}` are 1, `{"a":[1]}` is 2.
 * @module
 */

/** The deepest nesting any request body may have: far beyond every schema's, far below a stack's. */
export const MAX_JSON_DEPTH = 64;

/**
 * One linear scan of JSON text: whether it nests deeper than `maxDepth` (the scan stops there), and
 * how many object members it has — each ':' outside a string separates one. Brackets and colons
 * inside strings are skipped (escapes included); the text is not otherwise checked — a malformed one
 * is the parser's to refuse.
 */
export function scanJson(text: string, maxDepth: number = MAX_JSON_DEPTH): { tooDeep: boolean; members: number } {
  let depth = 0;
  let members = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 0x5c /* \ */) i += 1;
      else if (code === 0x22 /* " */) inString = false;
    } else if (code === 0x22) {
      inString = true;
    } else if (code === 0x5b /* [ */ || code === 0x7b /* { */) {
      depth += 1;
      if (depth > maxDepth) return { tooDeep: true, members };
    } else if (code === 0x5d /* ] */ || code === 0x7d /* } */) {
      depth -= 1;
    } else if (code === 0x3a /* : */) {
      members += 1;
    }
  }
  return { tooDeep: false, members };
}

/** Whether `text` nests no deeper than `maxDepth` ({@link scanJson}). */
export function jsonDepthWithin(text: string, maxDepth: number = MAX_JSON_DEPTH): boolean {
  return !scanJson(text, maxDepth).tooDeep;
}
