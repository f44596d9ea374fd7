/**
 * Deterministic PDF building with pdf-lib, synchronous because a step's `generate` is: no wall-clock
 * metadata, a trailer /ID from the inputs' identity, fonts embedded as subsets with tags derived
 * from their names, so a rerun gives the same bytes; `bytes()` equals pdf-lib's own
 * `save({ useObjectStreams: false })` (a test compares them). `winAnsiText` makes any string
 * drawable with a standard font (known symbols spelled in ASCII, anything else "?").
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import fontkit from "@pdf-lib/fontkit";
import { isWoff, woffToSfnt } from "./woff.ts";
import {
  CustomFontSubsetEmbedder,
  PDFCatalog,
  PDFFont,
  PDFString,
  PDFContext,
  PDFCrossRefSection,
  PDFDocument,
  PDFHeader,
  PDFHexString,
  PDFPageTree,
  PDFTrailer,
  PDFTrailerDict,
  StandardFonts,
  type PDFRef,
} from "pdf-lib";

export const PDF_PRODUCER = "Integrity Platform pipeline (pdf-lib)";

export interface PdfMetadata {
  title: string;
  subject: string;
  author: string;
  creator: string;
  keywords: string[];
  /** CreationDate and ModDate. */
  date: Date;
  /** Seed of the trailer /ID (e.g. ledger root + pulse hash + timestamp). */
  idSeed: string;
}

/** The fonts the builder can use: WinAnsi-encoded standard fonts (not Symbol or ZapfDingbats). */
export type TextFont = Exclude<StandardFonts, StandardFonts.Symbol | StandardFonts.ZapfDingbats>;

type PdfDocumentConstructor = new (
  context: PDFContext,
  ignoreEncryption: boolean,
  updateMetadata: boolean,
) => PDFDocument;

export class PdfBuilder {
  readonly doc: PDFDocument;
  private readonly fonts = new Map<TextFont, PDFFont>();
  private readonly embedded: { font: PDFFont; embedder: CustomFontSubsetEmbedder }[] = [];

  constructor(meta: PdfMetadata) {
    // What PDFDocument.create({ updateMetadata: false }) does, without the Promise.
    const context = PDFContext.create();
    const pageTreeRef = context.register(PDFPageTree.withContext(context));
    context.trailerInfo.Root = context.register(PDFCatalog.withContextAndPages(context, pageTreeRef));
    this.doc = new (PDFDocument as unknown as PdfDocumentConstructor)(context, false, false);
    const doc = this.doc;
    doc.setTitle(meta.title, { showInWindowTitleBar: true });
    doc.setSubject(meta.subject);
    doc.setAuthor(meta.author);
    doc.setCreator(meta.creator);
    doc.setProducer(PDF_PRODUCER);
    doc.setKeywords(meta.keywords);
    doc.setLanguage("en");
    doc.setCreationDate(meta.date);
    doc.setModificationDate(meta.date);
    const id = createHash("sha256").update(meta.idSeed).digest("hex").slice(0, 32);
    context.trailerInfo.ID = context.obj([PDFHexString.of(id), PDFHexString.of(id)]);
  }

  /** A standard font (one PDFFont per name). */
  font(name: TextFont): PDFFont {
    let font = this.fonts.get(name);
    if (!font) {
      font = this.doc.embedStandardFont(name);
      this.fonts.set(name, font);
    }
    return font;
  }

  /**
   * A TrueType/OpenType/WOFF font file, embedded as a subset of the glyphs drawn (Type0, Identity-H,
   * with a ToUnicode map so its text can be copied and searched). Its PDF name is
   * `<TAG>+<name>` with a six-letter tag derived from `name`, never random.
   */
  embedFont(bytes: Uint8Array, name: string): PDFFont {
    const digest = createHash("sha256").update(name).digest();
    const tag = [...digest.subarray(0, 6)].map((b) => String.fromCharCode(65 + (b % 26))).join("");
    // What PDFDocument.embedFont(bytes, { subset: true, customName }) does, without the Promise
    // (fontkit.create is synchronous; pdf-lib's `for` only wraps it).
    const Embedder = CustomFontSubsetEmbedder as unknown as new (
      font: unknown,
      data: Uint8Array,
      customName: string,
    ) => CustomFontSubsetEmbedder;
    const embedder = new Embedder(parsedFont(bytes), bytes, `${tag}+${name}`);
    const font = PDFFont.of(this.doc.context.nextRef(), this.doc, embedder);
    this.embedded.push({ font, embedder });
    return font;
  }

  /** The file: what pdf-lib's `save({ useObjectStreams: false, addDefaultPage: false })` writes. */
  bytes(): Uint8Array {
    const context = this.doc.context;
    // PDFFont.embed → StandardFontEmbedder.embedIntoContext: the font dictionary at the font's ref.
    for (const font of this.fonts.values()) {
      context.assign(
        font.ref,
        context.obj({ Type: "Font", Subtype: "Type1", BaseFont: font.name, Encoding: "WinAnsiEncoding" }),
      );
    }
    for (const { font, embedder } of this.embedded) embedSubset(context, font.ref, embedder);
    // PDFWriter.computeBufferSize + serializeToBuffer.
    const header = PDFHeader.forVersion(1, 7);
    const objects = context.enumerateIndirectObjects();
    const xref = PDFCrossRefSection.create();
    let size = header.sizeInBytes() + 2;
    for (const [ref, object] of objects) {
      xref.addEntry(ref, size);
      size += ref.sizeInBytes() + 3 + object.sizeInBytes() + 9;
    }
    const xrefOffset = size;
    size += xref.sizeInBytes() + 1;
    const trailerDict = PDFTrailerDict.of(
      context.obj({
        Size: context.largestObjectNumber + 1,
        Root: context.trailerInfo.Root,
        Encrypt: context.trailerInfo.Encrypt,
        Info: context.trailerInfo.Info,
        ID: context.trailerInfo.ID,
      }),
    );
    size += trailerDict.sizeInBytes() + 2;
    const trailer = PDFTrailer.forLastCrossRefSectionOffset(xrefOffset);
    size += trailer.sizeInBytes();

    const buffer = new Uint8Array(size);
    let offset = header.copyBytesInto(buffer, 0);
    const ascii = (text: string) => {
      for (let i = 0; i < text.length; i++) buffer[offset++] = text.charCodeAt(i);
    };
    ascii("\n\n");
    for (const [ref, object] of objects) {
      ascii(`${ref.objectNumber} ${ref.generationNumber} obj\n`);
      offset += object.copyBytesInto(buffer, offset);
      ascii("\nendobj\n\n");
    }
    offset += xref.copyBytesInto(buffer, offset);
    ascii("\n");
    offset += trailerDict.copyBytesInto(buffer, offset);
    ascii("\n\n");
    offset += trailer.copyBytesInto(buffer, offset);
    if (offset !== size) throw new Error(`PDF serialization wrote ${offset} bytes, expected ${size}`);
    return buffer;
  }
}

const SPELLED: Record<string, string> = {
  "\u2265": ">=",
  "\u2264": "<=",
  "\u2260": "!=",
  "\u2212": "-",
  "\u2192": "->",
  "\u2190": "<-",
  "\u2248": "~",
  "\u2713": "v",
  "\u2717": "x",
  "\u2011": "-",
  "\u2010": "-",
  "\u00A0": " ",
  "\u202F": " ",
  "\u2009": " ",
  "\u0141": "L",
  "\u0142": "l",
  "\u0110": "D",
  "\u0111": "d",
  "\u0131": "i",
};

const characterSets = new WeakMap<PDFFont, Set<number>>();

function characterSet(font: PDFFont): Set<number> {
  let set = characterSets.get(font);
  if (!set) {
    set = new Set(font.getCharacterSet());
    characterSets.set(font, set);
  }
  return set;
}

/** `text` restricted to what `font` can encode (see the module comment). */
export function winAnsiText(text: string, font: PDFFont): string {
  const supported = characterSet(font);
  let out = "";
  for (const ch of text.normalize("NFC")) {
    const cp = ch.codePointAt(0) ?? 0;
    if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) out += " ";
    else if (supported.has(cp)) out += ch;
    else if (ch in SPELLED) out += SPELLED[ch];
    else {
      const stripped = ch.normalize("NFD").replace(/\p{M}/gu, "");
      out += [...stripped].every((c) => supported.has(c.codePointAt(0) ?? 0)) && stripped !== "" ? stripped : "?";
    }
  }
  return out;
}

/**
 * Splits `text` into lines no wider than `width` at `size` (words longer than a line are cut): each
 * line takes as many words as fit, like adding them one by one until one does not. A width is the sum
 * of the shaped glyphs' advances (pdf-lib applies no kerning), so a line only grows with every word it
 * takes; the count is guessed from the characters' own widths, and only the guess and its neighbours
 * are shaped, until the count that fits and the one after it that does not are found: the same lines
 * as shaping every candidate (a test compares them), with two or three shapings a line instead of
 * one a word. Shaping was most of a report's build.
 */
export function wrapText(text: string, font: PDFFont, size: number, width: number): string[] {
  const lines: string[] = [];
  const fits = (s: string) => font.widthOfTextAtSize(s, size) <= width;
  const words = text.split(/\s+/).filter((w) => w !== "");
  const guessOf = guessWidth(font, size);
  let line = "";
  let i = 0;
  while (i < words.length) {
    if (line === "") {
      let rest = words[i++]!;
      while (rest !== "" && !fits(rest)) {
        // At least one character a line, even one wider than the line: never an endless loop.
        let cut = Math.max(1, rest.length - 1);
        while (cut > 1 && !fits(rest.slice(0, cut))) cut--;
        lines.push(rest.slice(0, cut));
        rest = rest.slice(cut);
      }
      line = rest;
      if (line === "") continue;
    }
    // The line with the next n words, and the guess of how many fit.
    const withWords = (n: number) => (n === 0 ? line : `${line} ${words.slice(i, i + n).join(" ")}`);
    let n = 0;
    for (let w = guessOf(line); n < words.length - i; n++) {
      w += guessOf(` ${words[i + n]}`);
      if (w > width) break;
    }
    if (n > 0 && !fits(withWords(n))) {
      do n--;
      while (n > 0 && !fits(withWords(n)));
    } else {
      while (n < words.length - i && fits(withWords(n + 1))) n++;
    }
    line = withWords(n);
    i += n;
    if (i < words.length) {
      lines.push(line);
      line = "";
    }
  }
  if (line !== "") lines.push(line);
  return lines;
}

/** Each character's own width (shaped alone, once per font), summed: a guess at a string's width. */
const characterWidths = new WeakMap<PDFFont, Map<string, number>>();

function guessWidth(font: PDFFont, size: number): (s: string) => number {
  let widths = characterWidths.get(font);
  if (!widths) characterWidths.set(font, (widths = new Map()));
  const known = widths;
  return (s) => {
    let w = 0;
    for (const ch of s) {
      let cw = known.get(ch);
      if (cw === undefined) known.set(ch, (cw = font.widthOfTextAtSize(ch, 1)));
      w += cw;
    }
    return w * size;
  };
}

const requireFromHere = createRequire(import.meta.url);

type ParsedFont = ReturnType<typeof fontkit.create>;

/**
 * The default shaping with its positioning features (GPOS) left off: pdf-lib reads a shaped run's
 * glyphs, their ids and advance widths, never the positions those features adjust, and the
 * substitutions (GSUB) that choose the glyphs all stay on. A fifth of a report's shaping time.
 */
export const UNPOSITIONED = { kern: false, mark: false, mkmk: false, curs: false };

/** Strings shaped per font before its memo starts again (a bound on the memory it keeps). */
const SHAPED_STRINGS_KEPT = 20_000;

/**
 * Parsed fonts by their bytes' digest. Parsing a WOFF file (inflating its tables) and shaping text
 * (pdf-lib shapes each string twice: to measure it, then to draw it) were most of a report's build
 * time, and both give the same result for the same bytes and text: each font is parsed once per
 * process, and each string shaped once per font. Nothing reads a shaped run but to measure and
 * encode it, so sharing the runs changes no output.
 */
const parsedFonts = new Map<string, ParsedFont>();

function parsedFont(bytes: Uint8Array): ParsedFont {
  const key = createHash("sha256").update(bytes).digest("hex");
  let font = parsedFonts.get(key);
  if (!font) {
    font = fontkit.create(isWoff(bytes) ? woffToSfnt(bytes) : bytes) as ParsedFont;
    const layout = font.layout.bind(font);
    const shaped = new Map<string, ReturnType<typeof layout>>();
    font.layout = ((text: string, ...rest: unknown[]) => {
      // Only the default shaping, which is all pdf-lib asks for, is kept.
      if (rest.some((r) => r !== undefined))
        return (layout as (...a: unknown[]) => ReturnType<typeof layout>)(text, ...rest);
      let run = shaped.get(text);
      if (!run) {
        if (shaped.size >= SHAPED_STRINGS_KEPT) shaped.clear();
        run = layout(text, UNPOSITIONED);
        shaped.set(text, run);
      }
      return run;
    }) as typeof font.layout;
    parsedFonts.set(key, font);
  }
  return font;
}

/**
 * The report's typeface: Inter (regular and bold, Latin subset, WOFF) from the `@fontsource/inter`
 * package, SIL Open Font License 1.1 (node_modules/@fontsource/inter/LICENSE).
 */
export function interFontFiles(): { regular: Uint8Array; bold: Uint8Array } {
  const file = (weight: number) =>
    readFileSync(requireFromHere.resolve(`@fontsource/inter/files/inter-latin-${weight}-normal.woff`));
  return { regular: file(400), bold: file(700) };
}

/** Inter regular and bold embedded into `pdf`. */
export function bodyFonts(pdf: PdfBuilder): { regular: PDFFont; bold: PDFFont } {
  const files = interFontFiles();
  return { regular: pdf.embedFont(files.regular, "Inter-Regular"), bold: pdf.embedFont(files.bold, "Inter-Bold") };
}

/** The members of pdf-lib's CustomFontEmbedder that its (async) embedIntoContext reads. */
interface SubsetInternals {
  customName: string;
  baseFontName: string;
  scale: number;
  subset: { encode(stream: unknown): void; encodeStream(): { constructor: new () => EncodeSink } };
  font: {
    italicAngle: number;
    ascent: number;
    descent: number;
    capHeight: number;
    xHeight: number;
    bbox: { minX: number; minY: number; maxX: number; maxY: number };
  };
  isCFF(): boolean;
  computeWidths(): unknown[];
  embedUnicodeCmap(context: PDFContext): PDFRef;
}
interface EncodeSink {
  push(chunk: Uint8Array | null): boolean;
  end(): void;
}

/** The subset's font file, encoded synchronously (fontkit's encodeStream only defers the same call). */
function subsetBytes(subset: SubsetInternals["subset"]): Uint8Array {
  // fontkit's EncodeStream class, taken from a stream it hands out (it encodes into that one too,
  // on the next tick, harmlessly); ours collects the chunks as they are pushed.
  const Sink = subset.encodeStream().constructor;
  const sink = new Sink();
  const parts: Uint8Array[] = [];
  sink.push = (chunk) => {
    if (chunk) parts.push(chunk);
    return true;
  };
  subset.encode(sink);
  sink.end();
  return Buffer.concat(parts);
}

/** PDF font flags of a sans-serif, non-symbolic, upright text font (FontFlags.ts in pdf-lib). */
const NONSYMBOLIC = 1 << 5;

/**
 * What CustomFontEmbedder.embedIntoContext writes (font file, descriptor, CID font, ToUnicode, Type0
 * font at `ref`), synchronously.
 */
function embedSubset(context: PDFContext, ref: PDFRef, embedder: CustomFontSubsetEmbedder): void {
  const e = embedder as unknown as SubsetInternals;
  e.baseFontName = e.customName;
  const cff = e.isCFF();
  const fontFile = context.register(
    context.flateStream(subsetBytes(e.subset), cff ? { Subtype: "CIDFontType0C" } : {}),
  );
  const { italicAngle, ascent, descent, capHeight, xHeight, bbox } = e.font;
  const scale = e.scale;
  const descriptor = context.register(
    context.obj({
      Type: "FontDescriptor",
      FontName: e.baseFontName,
      Flags: NONSYMBOLIC | (italicAngle === 0 ? 0 : 1 << 6),
      FontBBox: [bbox.minX * scale, bbox.minY * scale, bbox.maxX * scale, bbox.maxY * scale],
      ItalicAngle: italicAngle,
      Ascent: ascent * scale,
      Descent: descent * scale,
      CapHeight: (capHeight || ascent) * scale,
      XHeight: (xHeight || 0) * scale,
      StemV: 0,
      [cff ? "FontFile3" : "FontFile2"]: fontFile,
    }),
  );
  const cidFont = context.register(
    context.obj({
      Type: "Font",
      Subtype: cff ? "CIDFontType0" : "CIDFontType2",
      CIDToGIDMap: "Identity",
      BaseFont: e.baseFontName,
      CIDSystemInfo: { Registry: PDFString.of("Adobe"), Ordering: PDFString.of("Identity"), Supplement: 0 },
      FontDescriptor: descriptor,
      W: e.computeWidths() as never,
    }),
  );
  const toUnicode = e.embedUnicodeCmap(context);
  context.assign(
    ref,
    context.obj({
      Type: "Font",
      Subtype: "Type0",
      BaseFont: e.baseFontName,
      Encoding: "Identity-H",
      DescendantFonts: [cidFont],
      ToUnicode: toUnicode,
    }),
  );
}
