/**
 * BibTeX writing and checking.
 *
 * Output is pure ASCII: every character outside printable ASCII is written as a LaTeX command
 * (`ü` → `{\"u}`, `ß` → `{\ss}`, `—` → `---`), every BibTeX/LaTeX special character is escaped
 * (`{ } \ % & $ # _ ^ ~`), and a character with no known LaTeX form is an error naming it (fix the
 * curated source) rather than a silently broken entry.
 *
 * Titles additionally protect case: a word with an upper-case letter after its first character
 * (an acronym or mixed case: `GI`, `MII`, `BibTeX`, `McKay`) is wrapped in braces, so styles that
 * lower-case titles keep it.
 */

/** Escapes of the ten LaTeX special characters. */
const SPECIAL: Record<string, string> = {
  "\\": "\\textbackslash{}",
  "{": "\\{",
  "}": "\\}",
  "%": "\\%",
  "&": "\\&",
  $: "\\$",
  "#": "\\#",
  _: "\\_",
  "^": "\\textasciicircum{}",
  "~": "\\textasciitilde{}",
};

/** Non-ASCII characters that are not a letter plus accents. */
const NAMED: Record<string, string> = {
  ß: "{\\ss}",
  æ: "{\\ae}",
  Æ: "{\\AE}",
  œ: "{\\oe}",
  Œ: "{\\OE}",
  ø: "{\\o}",
  Ø: "{\\O}",
  ł: "{\\l}",
  Ł: "{\\L}",
  ı: "{\\i}",
  đ: "{\\dj}",
  Đ: "{\\DJ}",
  þ: "{\\th}",
  Þ: "{\\TH}",
  ð: "{\\dh}",
  Ð: "{\\DH}",
  "\u2014": "---", // em dash
  "\u2013": "--", // en dash
  "\u2010": "-", // hyphen
  "\u2011": "-", // non-breaking hyphen
  "\u2018": "`",
  "\u2019": "'",
  "\u201C": "``",
  "\u201D": "''",
  "\u00AB": "{\\guillemotleft}",
  "\u00BB": "{\\guillemotright}",
  "\u2026": "{\\ldots}",
  "\u00A0": "~", // no-break space
  "\u00A7": "{\\S}",
  "\u00B6": "{\\P}",
  "\u00A9": "{\\textcopyright}",
  "\u00AE": "{\\textregistered}",
  "\u20AC": "{\\texteuro}",
  "\u00A3": "{\\pounds}",
  "\u00B0": "{\\textdegree}",
  "\u00D7": "{$\\times$}",
  "\u2212": "{$-$}",
  "\u2264": "{$\\leq$}",
  "\u2265": "{$\\geq$}",
  "\u2192": "{$\\rightarrow$}",
  "\u00B1": "{$\\pm$}",
  "\u03B1": "{$\\alpha$}",
  "\u03B2": "{$\\beta$}",
  "\u03B3": "{$\\gamma$}",
  "\u03B4": "{$\\delta$}",
  "\u03BB": "{$\\lambda$}",
  "\u03BC": "{$\\mu$}",
  "\u03C0": "{$\\pi$}",
  "\u03C3": "{$\\sigma$}",
  "\u2211": "{$\\sum$}",
};

/** Combining marks (after NFD) → LaTeX accent command. */
const ACCENTS: Record<string, string> = {
  "\u0300": "`",
  "\u0301": "'",
  "\u0302": "^",
  "\u0303": "~",
  "\u0304": "=",
  "\u0306": "u",
  "\u0307": ".",
  "\u0308": '"',
  "\u030A": "r",
  "\u030B": "H",
  "\u030C": "v",
  "\u0327": "c",
  "\u0328": "k",
  "\u0323": "d",
};

const PRINTABLE_ASCII = /^[\x20-\x7E]$/;

/** `{\"u}`, `{\c{c}}`, `{\'\i}`: one base letter with its accents, innermost first. */
function accented(base: string, marks: readonly string[], original: string): string {
  let out = base === "i" ? "\\i" : base === "j" ? "\\j" : base;
  for (const mark of marks) {
    const command = ACCENTS[mark];
    if (!command) throw new Error(`no BibTeX form for ${describe(original)}`);
    const symbolic = !/^[a-zA-Z]$/.test(command);
    out = symbolic ? `\\${command}${out}` : `\\${command}{${out}}`;
    if (!out.startsWith("{")) out = `{${out}}`;
  }
  return out;
}

function describe(ch: string): string {
  const cp = ch.codePointAt(0) ?? 0;
  return `"${ch}" (U+${cp.toString(16).toUpperCase().padStart(4, "0")})`;
}

/** Escapes text for a BibTeX field value written inside braces. Throws on an unknown character. */
export function escapeBibtex(text: string): string {
  let out = "";
  for (const ch of text.normalize("NFC")) {
    if (ch in SPECIAL) out += SPECIAL[ch];
    else if (ch === "\t" || ch === "\n" || ch === "\r") out += " ";
    else if (PRINTABLE_ASCII.test(ch)) out += ch;
    else if (ch in NAMED) out += NAMED[ch];
    else {
      const [base, ...marks] = [...ch.normalize("NFD")];
      if (base !== undefined && /^[A-Za-z]$/.test(base) && marks.length > 0) out += accented(base, marks, ch);
      else throw new Error(`no BibTeX form for ${describe(ch)}`);
    }
  }
  return out;
}

/** True for a word whose case must survive a lower-casing style: an upper-case letter after its first letter. */
function needsCaseProtection(word: string): boolean {
  const letters = [...word.normalize("NFC")].filter((c) => c.toLowerCase() !== c.toUpperCase());
  return letters.slice(1).some((c) => c === c.toUpperCase());
}

/** A title: escaped, with acronyms and mixed-case words wrapped in braces (`{GI}`). */
export function bibtexTitle(title: string): string {
  return title
    .trim()
    .split(/\s+/)
    .map((word) => (needsCaseProtection(word) ? `{${escapeBibtex(word)}}` : escapeBibtex(word)))
    .join(" ");
}

/** Entry keys: letters, digits and `: . _ -`, starting with a letter or digit. */
export const BIBTEX_KEY = /^[A-Za-z0-9][A-Za-z0-9:._-]*$/;

/** A raw field (url, doi) may hold no brace, backslash, quote, percent or whitespace. */
const RAW_SAFE = /^[^\s{}\\"%]+$/;

export interface BibtexField {
  name: string;
  value: string;
  /** Written as it is (url, doi): checked, not escaped. Otherwise `value` is already escaped. */
  raw?: boolean;
}

/** One entry; fields in the given order, values in braces, two-space indent, trailing commas. */
export function bibtexEntry(type: string, key: string, fields: readonly BibtexField[]): string {
  if (!/^[a-z]+$/.test(type)) throw new Error(`bad BibTeX entry type ${JSON.stringify(type)}`);
  if (!BIBTEX_KEY.test(key)) throw new Error(`bad BibTeX key ${JSON.stringify(key)}`);
  const lines = fields.map((field) => {
    if (!/^[a-z]+$/.test(field.name)) throw new Error(`bad BibTeX field name ${JSON.stringify(field.name)}`);
    if (field.raw && !RAW_SAFE.test(field.value))
      throw new Error(`${key}.${field.name}: ${JSON.stringify(field.value)} cannot be written raw`);
    return `  ${field.name} = {${field.value}},\n`;
  });
  return `@${type}{${key},\n${lines.join("")}}\n`;
}

// ------------------------------------------------------------------------------------------------
// Checking: a small parser for the subset written above, used to validate generated files.

export interface ParsedEntry {
  type: string;
  key: string;
  fields: Record<string, string>;
}

/** Required fields per entry type (BibTeX's standard styles). */
export const REQUIRED_FIELDS: Record<string, readonly string[]> = {
  article: ["author", "title", "journal", "year"],
  inproceedings: ["author", "title", "booktitle", "year"],
  misc: ["title"],
};

/**
 * Parses BibTeX text and checks it: balanced braces in every value, ASCII only, one key per entry,
 * unique keys, the required fields of each type, no unescaped special character (`% & $ # _`)
 * outside raw fields (url, doi). Throws with every problem found; returns the entries.
 */
export function checkBibtex(text: string, rawFields: readonly string[] = ["url", "doi"]): ParsedEntry[] {
  const problems: string[] = [];
  const entries: ParsedEntry[] = [];
  // eslint-disable-next-line no-control-regex
  if (/[^\x0A\x20-\x7E]/.test(text)) problems.push("text is not printable ASCII with LF line ends");
  let i = 0;
  const skipSpace = () => {
    while (i < text.length && /\s/.test(text[i] as string)) i++;
  };
  const readWord = (pattern: RegExp) => {
    const start = i;
    while (i < text.length && pattern.test(text[i] as string)) i++;
    return text.slice(start, i);
  };
  /** Reads a braced value starting at `{`; returns its inner text. */
  const readBraced = (where: string): string | null => {
    if (text[i] !== "{") return null;
    let depth = 0;
    const start = i + 1;
    for (; i < text.length; i++) {
      const ch = text[i];
      if (ch === "\\") {
        i++; // an escaped character never opens or closes a group
        continue;
      }
      if (ch === "{") depth++;
      else if (ch === "}" && --depth === 0) return text.slice(start, i++);
    }
    problems.push(`${where}: unbalanced braces`);
    return null;
  };
  const keys = new Set<string>();
  while (true) {
    skipSpace();
    if (i >= text.length) break;
    if (text[i] !== "@") {
      problems.push(`unexpected text at offset ${i}`);
      break;
    }
    i++;
    const type = readWord(/[a-z]/i).toLowerCase();
    if (text[i] !== "{") {
      problems.push(`entry @${type} at offset ${i}: expected "{"`);
      break;
    }
    i++;
    skipSpace();
    const key = readWord(/[^,\s{}]/);
    skipSpace();
    if (!BIBTEX_KEY.test(key) || text[i] !== ",") {
      problems.push(`entry @${type} at offset ${i}: missing or bad key`);
      break;
    }
    if (keys.has(key)) problems.push(`duplicate key ${key}`);
    keys.add(key);
    i++;
    const fields: Record<string, string> = {};
    let closed = false;
    while (i < text.length) {
      skipSpace();
      if (text[i] === "}") {
        i++;
        closed = true;
        break;
      }
      const name = readWord(/[a-z]/i).toLowerCase();
      skipSpace();
      if (!name || text[i] !== "=") {
        problems.push(`${key}: expected "field = {value}" at offset ${i}`);
        break;
      }
      i++;
      skipSpace();
      const value = readBraced(`${key}.${name}`);
      if (value === null) break;
      if (name in fields) problems.push(`${key}: field ${name} appears twice`);
      fields[name] = value;
      if (!rawFields.includes(name)) {
        const unescaped = /(^|[^\\])[%&$#_]/.exec(value.replace(/\{\$[^$]*\$\}/g, ""));
        if (unescaped) problems.push(`${key}.${name}: unescaped "${unescaped[0].slice(-1)}"`);
      }
      skipSpace();
      if (text[i] === ",") i++;
    }
    if (!closed) {
      problems.push(`${key}: entry is not closed`);
      break;
    }
    const required = REQUIRED_FIELDS[type];
    if (!required) problems.push(`${key}: unknown entry type @${type}`);
    else for (const field of required) if (!fields[field]) problems.push(`${key}: missing required field ${field}`);
    entries.push({ type, key, fields });
  }
  if (problems.length > 0) throw new Error(`invalid BibTeX: ${problems.join("; ")}`);
  return entries;
}
