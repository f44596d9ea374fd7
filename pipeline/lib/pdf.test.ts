import { PDFDocument, StandardFonts, type PDFFont } from "pdf-lib";
import { describe, expect, it } from "vitest";
import { PDF_PRODUCER, PdfBuilder, bodyFonts, winAnsiText, wrapText } from "./pdf.ts";
import { readPdf } from "./pdf-read.ts";
import fontkit from "@pdf-lib/fontkit";
import { UNPOSITIONED, interFontFiles } from "./pdf.ts";
import { woffToSfnt } from "./woff.ts";

function build(): PdfBuilder {
  const pdf = new PdfBuilder({
    title: "Test",
    subject: "Subject",
    author: "Author",
    creator: "Creator",
    keywords: ["a", "b"],
    date: new Date("2025-12-20T12:00:00.000Z"),
    idSeed: "seed",
  });
  const font = pdf.font(StandardFonts.Helvetica);
  const page = pdf.doc.addPage([200, 200]);
  page.drawText(winAnsiText("Müller — 98.2% ≥ 0.95 🚀", font), { x: 10, y: 100, size: 10, font });
  page.drawLine({ start: { x: 10, y: 10 }, end: { x: 190, y: 190 }, dashArray: [4, 3] });
  return pdf;
}

describe("deterministic synchronous PDF", () => {
  it("writes exactly what pdf-lib's own save writes", async () => {
    const pdf = build();
    const sync = pdf.bytes();
    const viaPdfLib = await pdf.doc.save({
      useObjectStreams: false,
      addDefaultPage: false,
      updateFieldAppearances: false,
    });
    expect(Buffer.from(sync).equals(Buffer.from(viaPdfLib))).toBe(true);
  });

  it("is byte-identical across builds, with fixed metadata and a derived /ID", async () => {
    const a = build().bytes();
    expect(Buffer.from(build().bytes()).equals(Buffer.from(a))).toBe(true);
    const loaded = await PDFDocument.load(a, { updateMetadata: false });
    expect(loaded.getProducer()).toBe(PDF_PRODUCER);
    expect(loaded.getCreator()).toBe("Creator");
    expect(loaded.getCreationDate()?.toISOString()).toBe("2025-12-20T12:00:00.000Z");
    expect(loaded.getModificationDate()?.toISOString()).toBe("2025-12-20T12:00:00.000Z");
    expect(loaded.getPageCount()).toBe(1);
    expect(Buffer.from(a).toString("latin1")).toMatch(/\/ID \[ <[0-9a-f]{32}> <[0-9a-f]{32}> \]/);
  });

  it("reduces text to WinAnsi and wraps it", () => {
    const font = build().font(StandardFonts.Helvetica);
    expect(winAnsiText("Müller — 98.2% ≥ 0.95 🚀 Łódź\tend", font)).toBe("Müller — 98.2% >= 0.95 ? Lódz end");
    const lines = wrapText("one two three four five six seven", font, 10, 60);
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(font.widthOfTextAtSize(line, 10)).toBeLessThanOrEqual(60);
    expect(lines.join(" ")).toBe("one two three four five six seven");
    expect(wrapText("x".repeat(100), font, 10, 50).join("")).toBe("x".repeat(100));
  });
});

/** An empty builder for the embedded-font tests. */
function blank(idSeed: string): PdfBuilder {
  return new PdfBuilder({
    title: "T",
    subject: "S",
    author: "A",
    creator: "C",
    keywords: [],
    date: new Date("2025-12-20T12:00:00.000Z"),
    idSeed,
  });
}

describe("embedded fonts", () => {
  const make = () => {
    const pdf = blank("x");
    const { regular, bold } = bodyFonts(pdf);
    const page = pdf.doc.addPage([300, 200]);
    page.drawText(winAnsiText("3,558,171.52 MIC — FOR-GOVERNMENTS ≥ 95%", regular), {
      x: 10,
      y: 100,
      size: 9,
      font: regular,
    });
    page.drawText("Heading", { x: 10, y: 150, size: 14, font: bold });
    return pdf.bytes();
  };

  it("subsets Inter into the file, byte-identical on every build, and reads back as text", async () => {
    const bytes = make();
    expect(Buffer.from(make()).equals(Buffer.from(bytes))).toBe(true);
    const reading = await readPdf(bytes);
    expect(reading.fonts.map((f) => f.embedded)).toEqual([true, true]);
    expect(reading.fonts.map((f) => f.name.replace(/^[A-Z]{6}\+/, "")).sort()).toEqual(["Inter-Bold", "Inter-Regular"]);
    expect(reading.flat).toContain("3,558,171.52 MIC — FOR-GOVERNMENTS >= 95%");
    expect(reading.flat).toContain("Heading");
    // The subset is small: only the glyphs drawn.
    expect(bytes.length).toBeLessThan(20_000);
  });

  it("finds no embedded font in a file that uses the standard 14", async () => {
    const reading = await readPdf(build().bytes());
    expect(reading.fonts).toEqual([{ name: "Helvetica", embedded: false }]);
  });
});

/** What wrapText promises: the lines of adding words one by one until one does not fit. */
function wrapOneByOne(text: string, font: PDFFont, size: number, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  const fits = (s: string) => font.widthOfTextAtSize(s, size) <= width;
  for (const word of text.split(/\s+/).filter((w) => w !== "")) {
    const candidate = line === "" ? word : `${line} ${word}`;
    if (fits(candidate)) {
      line = candidate;
      continue;
    }
    if (line !== "") lines.push(line);
    let rest = word;
    while (!fits(rest)) {
      let cut = rest.length - 1;
      while (cut > 1 && !fits(rest.slice(0, cut))) cut--;
      lines.push(rest.slice(0, cut));
      rest = rest.slice(cut);
    }
    line = rest;
  }
  if (line !== "") lines.push(line);
  return lines;
}

describe("wrapping with a shaped font", () => {
  it("gives the lines of adding each word in turn, at every width, with kerning and overlong words", () => {
    const pdf = blank("w");
    const { regular, bold } = bodyFonts(pdf);
    const texts = [
      "AVAWAY To Ty Vo Wa Yo LT fi fl ffi 1,234,567.89 MIC — The quick brown fox jumps over the lazy dog.",
      "Sentinels attest; the ledger keeps every attestation, and anyone can verify the chain from its first entry.",
      `short ${"x".repeat(90)} words after a very long one, then ${"W".repeat(40)} and the end`,
      "AVAVAVAVAV AVAVAVAV AVAVAVAVAVAV To To Ty AVAV AVAVAVAVAVAVAV AV AVAVAVAV AVAVAVAVAV AVAVAVAV",
      "a -> b --> c => d <-> e -> f --> g => h <-> i -> j --> k => l <-> m -> n --> o => p <-> q -> r --> s",
      "a",
      "",
    ];
    const widths = Array.from({ length: 40 }, (_, k) => 25 + k * 12.7);
    for (const font of [regular, bold])
      for (const text of texts)
        for (const width of widths)
          for (const size of [7, 9, 14])
            expect(wrapText(text, font, size, width), `${text.slice(0, 20)} @${width}/${size}`).toEqual(
              wrapOneByOne(text, font, size, width),
            );
  });
});

describe("wrapping narrower than a character", () => {
  it("puts each character on a line of its own instead of looping", () => {
    const { regular } = bodyFonts(blank("n"));
    expect(wrapText("WW a", regular, 14, 3)).toEqual(["W", "W", "a"]);
  });
});

describe("WOFF to sfnt", () => {
  it("gives fontkit the same tables: the same glyphs, advances and shaping as the WOFF file", () => {
    for (const woff of Object.values(interFontFiles())) {
      const fromWoff = fontkit.create(woff);
      const fromSfnt = fontkit.create(woffToSfnt(woff));
      expect(fromSfnt.numGlyphs).toBe(fromWoff.numGlyphs);
      expect(fromSfnt.unitsPerEm).toBe(fromWoff.unitsPerEm);
      const text = "AVAWAY fi ffl 0123456789 — Müller ≥ 95% Transparency";
      const run = (f: typeof fromWoff) =>
        f.layout(text).glyphs.map((g, i) => [g.id, f.layout(text).positions[i]!.xAdvance]);
      expect(run(fromSfnt)).toEqual(run(fromWoff));
    }
  });

  it("shapes without the positioning features to the same glyphs and advances as the default shaping", () => {
    const { regular, bold } = interFontFiles();
    const texts = [
      "AVAWAY Ty To fi ffl 0123456789 — Müller ≥ 95% Transparency",
      "-> <- => 1/2 ×1.25 (A) [B] {C} \"quoted\" 'single' … é ñ ü",
      "Ledger Merkle root: sha256:2627db084fe748c6334079502be41ca1fa9f604e7652662392c1452b0f862e38",
      "WAVE LT Yo Vo P. F, r. y, 11:11 1,000,000 MIC",
    ];
    for (const bytes of [regular, bold]) {
      const font = fontkit.create(woffToSfnt(bytes) as Buffer);
      const glyphs = (run: ReturnType<typeof font.layout>) => run.glyphs.map((g) => [g.id, g.advanceWidth]);
      for (const text of texts) expect(glyphs(font.layout(text, UNPOSITIONED))).toEqual(glyphs(font.layout(text)));
    }
  });

  it("refuses a file that is not WOFF", () => {
    expect(() => woffToSfnt(new Uint8Array(64))).toThrow(/not a WOFF/);
  });
});
