/**
 * Reading one line of the v1 export, `{"address": …, "balance_gic": <JSON number>}`, keeping the
 * number's source text: a strict scanner instead of JSON.parse, because JSON.parse turns the number
 * into a float before anyone sees it, silently keeps the last of two equal keys, and rejects the
 * whole line over a `NaN` that a float system may have written — and then the address is lost too.
 *
 * The scanner reads one flat JSON object: members in any order, JSON whitespace anywhere between
 * tokens, string values with JSON escapes. A value that is not a string is kept as its raw token
 * (`1.005`, `1E2`, `-3`, `null`, `NaN`, `Infinity`), to be judged by core/money/units.ts
 * parseMic; nested objects or arrays are refused.
 */

export type V1LineProblem = "malformed-line";

export type V1Line =
  | {
      ok: true;
      /** The address string (decoded); not yet checked against the address format. */
      address: string;
      /** The balance_gic token exactly as written, or its decoded content if it was a JSON string. */
      value: string;
      /** What kind of token balance_gic was: a bare token (a number, or not) or a JSON string. */
      valueIsString: boolean;
    }
  | { ok: false; problem: V1LineProblem; detail: string; address: string | null };

const FIELDS = new Set(["address", "balance_gic"]);
const WS = /[ \t\n\r]*/y;
// A JSON string token: no raw control characters, only JSON escapes.
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
// A bare token: everything up to the next structural character or whitespace.
const BARE = /[^\s,{}[\]":]+/y;
// The common case, `{"address":"…","balance_gic":<bare>}` with optional spaces and no escapes.
const SIMPLE =
  /^\{[ \t\r]*"address"[ \t\r]*:[ \t\r]*"([^"\\\u0000-\u001f]*)"[ \t\r]*,[ \t\r]*"balance_gic"[ \t\r]*:[ \t\r]*([^\s,{}[\]":]+)[ \t\r]*\}[ \t\r]*$/;

function sticky(re: RegExp, text: string, at: number): string | null {
  re.lastIndex = at;
  const m = re.exec(text);
  return m ? m[0] : null;
}

/** Scans one export line. */
export function scanV1Line(line: string): V1Line {
  const simple = SIMPLE.exec(line);
  if (simple) return { ok: true, address: simple[1]!, value: simple[2]!, valueIsString: false };

  const members = new Map<string, { text: string; isString: boolean }>();
  let at = 0;
  const skip = () => {
    at += sticky(WS, line, at)!.length;
  };
  const fail = (detail: string): V1Line => {
    const address = members.get("address");
    return { ok: false, problem: "malformed-line", detail, address: address?.isString ? address.text : null };
  };
  skip();
  if (line[at] !== "{") return fail("not a JSON object");
  at += 1;
  skip();
  if (line[at] === "}") return fail("empty object");
  for (;;) {
    const keyToken = sticky(STRING, line, at);
    if (keyToken === null) return fail(`expected a member name at column ${at + 1}`);
    at += keyToken.length;
    const key = JSON.parse(keyToken) as string;
    skip();
    if (line[at] !== ":") return fail(`expected ':' at column ${at + 1}`);
    at += 1;
    skip();
    let value: { text: string; isString: boolean };
    const stringToken = line[at] === '"' ? sticky(STRING, line, at) : null;
    if (stringToken !== null) {
      value = { text: JSON.parse(stringToken) as string, isString: true };
      at += stringToken.length;
    } else {
      const bare = sticky(BARE, line, at);
      if (bare === null) return fail(`expected a value for "${key}" at column ${at + 1}`);
      value = { text: bare, isString: false };
      at += bare.length;
    }
    if (members.has(key)) return fail(`member "${key}" appears twice`);
    members.set(key, value);
    skip();
    if (line[at] === ",") {
      at += 1;
      skip();
      continue;
    }
    if (line[at] === "}") {
      at += 1;
      break;
    }
    return fail(`expected ',' or '}' at column ${at + 1}`);
  }
  skip();
  if (at !== line.length) return fail(`unexpected text after the object at column ${at + 1}`);
  for (const key of members.keys()) if (!FIELDS.has(key)) return fail(`unknown member "${key}"`);
  const address = members.get("address");
  const balance = members.get("balance_gic");
  if (!address) return fail(`no "address"`);
  if (!address.isString) return fail(`"address" is not a string`);
  if (!balance) return fail(`no "balance_gic"`);
  return { ok: true, address: address.text, value: balance.text, valueIsString: balance.isString };
}
