/**
 * Reads a PDF back as a person's reader would, for tests: the text of each page (through pdf.js,
 * packaged by `unpdf`, so no system tool is needed), the document information, and which fonts the
 * file embeds. Test support only (unpdf is a development dependency).
 */
import { extractText, getDocumentProxy, getMeta } from "unpdf";

export interface PdfFont {
  /** BaseFont, e.g. "OPPZCN+Inter-Regular". */
  name: string;
  /** Whether a font file (FontFile, FontFile2 or FontFile3) is embedded for it. */
  embedded: boolean;
}

export interface PdfReading {
  /** Text of each page, lines joined with "\n". */
  pages: string[];
  /** All pages' text with every run of white space as one space (sentences that wrap read whole). */
  flat: string;
  /** The document information dictionary and the catalog's /Lang ("Language"). */
  info: Record<string, unknown>;
  fonts: PdfFont[];
}

/**
 * The fonts of a file written without object streams (as pipeline/lib/pdf.ts writes): every font
 * dictionary names its BaseFont; a Type0 font is embedded when its descendant's descriptor has a
 * font file, a simple font when its own descriptor does. Standard 14 fonts have no descriptor.
 */
function fontsOf(bytes: Uint8Array): PdfFont[] {
  const raw = Buffer.from(bytes).toString("latin1");
  const objects = new Map<number, string>();
  for (const m of raw.matchAll(/(\d+) 0 obj\n([\s\S]*?)\nendobj/g)) objects.set(Number(m[1]), m[2]!);
  const ref = (dict: string, key: string) => {
    const m = new RegExp(`/${key} (\\d+) 0 R`).exec(dict) ?? new RegExp(`/${key} \\[ (\\d+) 0 R \\]`).exec(dict);
    return m ? (objects.get(Number(m[1])) ?? "") : "";
  };
  const fonts: PdfFont[] = [];
  for (const dict of objects.values()) {
    if (!/\/Type \/Font\b/.test(dict) || /\/Subtype \/CIDFontType[02]\b/.test(dict)) continue;
    const name = /\/BaseFont \/([^\s/<>\]]+)/.exec(dict)?.[1] ?? "";
    const descendant = /\/Subtype \/Type0\b/.test(dict) ? ref(dict, "DescendantFonts") : dict;
    const descriptor = ref(descendant, "FontDescriptor");
    fonts.push({ name, embedded: /\/FontFile[23]? \d+ 0 R/.test(descriptor) });
  }
  return fonts.sort((a, b) => a.name.localeCompare(b.name));
}

export async function readPdf(bytes: Uint8Array): Promise<PdfReading> {
  // pdf.js takes ownership of (detaches) the buffer it is given: hand it copies.
  const { text } = await extractText(await getDocumentProxy(bytes.slice()), { mergePages: false });
  const { info } = await getMeta(await getDocumentProxy(bytes.slice()));
  return {
    pages: text,
    flat: text.join(" ").replace(/\s+/g, " "),
    info: info as Record<string, unknown>,
    fonts: fontsOf(bytes),
  };
}
