/**
 * The page layout a PDF report is drawn with (pipeline/lib/pdf.ts builds the file): A4 pages with
 * margins, a type scale, and `Layout`, which flows text, headings, bullets and tables down the
 * pages. General to any report; the transparency report (areas/government/transparency-pdf.ts) is
 * the one that uses it today.
 */
import { rgb, type PDFDocument, type PDFFont, type PDFPage, type RGB } from "pdf-lib";
import { winAnsiText, wrapText } from "./pdf.ts";

export const PAGE = { width: 595.28, height: 841.89 } as const; // A4 in points
export const MARGIN = 56;
export const CONTENT_WIDTH = PAGE.width - 2 * MARGIN;
export const SIZE = { title: 18, heading: 14, body: 10, small: 8 } as const;
export const LEADING = 1.4;
export const BLACK = rgb(0, 0, 0);
export const GREY = rgb(0.45, 0.45, 0.45);
export const LIGHT = rgb(0.85, 0.85, 0.85);
export const RED = rgb(0.75, 0.05, 0.05);

/**
 * Flowing A4 pages: text wrapped to the content width, headings kept with their first lines, tables
 * whose columns fit, reserved blocks for charts, an optional banner on every page and a footer
 * numbering them. A document step draws its report through it.
 */
export class Layout {
  readonly pages: PDFPage[] = [];
  private page!: PDFPage;
  private y = 0;

  private readonly doc: PDFDocument;
  private readonly font: PDFFont;
  private readonly bold: PDFFont;
  private readonly banner: string | null;

  constructor(doc: PDFDocument, font: PDFFont, bold: PDFFont, banner: string | null) {
    this.doc = doc;
    this.font = font;
    this.bold = bold;
    this.banner = banner;
    this.newPage();
  }

  private newPage(): void {
    this.page = this.doc.addPage([PAGE.width, PAGE.height]);
    this.pages.push(this.page);
    this.y = PAGE.height - MARGIN;
    if (this.banner) {
      const lines = wrapText(winAnsiText(this.banner, this.bold), this.bold, SIZE.small, CONTENT_WIDTH - 8);
      const height = lines.length * SIZE.small * LEADING + 6;
      this.page.drawRectangle({
        x: MARGIN,
        y: this.y - height,
        width: CONTENT_WIDTH,
        height,
        borderColor: RED,
        borderWidth: 1,
      });
      let y = this.y - 3 - SIZE.small;
      for (const line of lines) {
        this.page.drawText(line, { x: MARGIN + 4, y, size: SIZE.small, font: this.bold, color: RED });
        y -= SIZE.small * LEADING;
      }
      this.y -= height + 14;
    }
  }

  /** Starts a new page unless `height` points fit above the bottom margin (and footer); true if it did. */
  ensure(height: number): boolean {
    if (this.y - height >= MARGIN + 20) return false;
    this.newPage();
    return true;
  }

  space(points: number): void {
    this.y -= points;
  }

  /** Wrapped text; `marker` (a bullet) hangs in the indent before the first line. */
  text(
    text: string,
    options: { size?: number; bold?: boolean; color?: RGB; indent?: number; marker?: string } = {},
  ): void {
    const size = options.size ?? SIZE.body;
    const font = options.bold ? this.bold : this.font;
    const indent = options.indent ?? 0;
    wrapText(winAnsiText(text, font), font, size, CONTENT_WIDTH - indent).forEach((line, i) => {
      this.ensure(size * LEADING);
      this.y -= size * LEADING;
      const y = this.y + size * 0.3;
      if (i === 0 && options.marker)
        this.page.drawText(options.marker, { x: MARGIN + indent - 10, y, size, font, color: options.color ?? BLACK });
      this.page.drawText(line, { x: MARGIN + indent, y, size, font, color: options.color ?? BLACK });
    });
  }

  heading(text: string): void {
    this.ensure(SIZE.heading * LEADING + 4 * SIZE.body * LEADING); // keep a heading with its first lines
    this.space(10);
    this.text(text, { size: SIZE.heading, bold: true });
    this.space(4);
  }

  paragraph(text: string): void {
    this.text(text);
    this.space(4);
  }

  bullet(text: string): void {
    this.text(text, { indent: 14, marker: "\u2022" });
  }

  /**
   * A table whose columns are as wide as their widest cell (header included); when they do not fit
   * the content width, the widest columns give way and their cells wrap onto more lines, never cut.
   * Header in bold, repeated on a new page; `right` columns (numbers) are right-aligned.
   */
  table(columns: readonly { title: string; right?: boolean }[], rows: readonly (readonly string[])[]): void {
    const size = SIZE.small + 1;
    const pad = 8;
    const line = size * LEADING;
    const cellsOf = (cells: readonly string[], font: PDFFont) =>
      columns.map((_, i) => winAnsiText(cells[i] ?? "", font));
    const header = cellsOf(
      columns.map((c) => c.title),
      this.bold,
    );
    const body = rows.map((r) => cellsOf(r, this.font));
    const widths = columns.map(
      (_, i) =>
        Math.max(
          this.bold.widthOfTextAtSize(header[i]!, size),
          ...body.map((r) => this.font.widthOfTextAtSize(r[i]!, size)),
        ) + pad,
    );
    // Shrink the widest column until everything fits (never below a quarter of the width).
    for (let guard = 0; widths.reduce((a, b) => a + b, 0) > CONTENT_WIDTH && guard < 200; guard++) {
      const widest = widths.indexOf(Math.max(...widths));
      const over = widths.reduce((a, b) => a + b, 0) - CONTENT_WIDTH;
      widths[widest] = Math.max(CONTENT_WIDTH / 4, widths[widest]! - over);
      if (widths[widest] === CONTENT_WIDTH / 4) break;
    }
    const xs = widths.map((_, i) => MARGIN + widths.slice(0, i).reduce((a, b) => a + b, 0));
    const drawRow = (cells: readonly string[], font: PDFFont, isHeader: boolean) => {
      const wrapped = cells.map((cell, i) => wrapText(cell, font, size, widths[i]! - pad));
      const height = Math.max(1, ...wrapped.map((w) => w.length)) * line;
      if (this.ensure(height) && !isHeader) drawRow(header, this.bold, true);
      wrapped.forEach((lines, i) => {
        lines.forEach((text, k) => {
          const w = font.widthOfTextAtSize(text, size);
          const x = columns[i]!.right ? xs[i]! + widths[i]! - pad - w : xs[i]!;
          this.page.drawText(text, { x, y: this.y - (k + 1) * line + size * 0.3, size, font });
        });
      });
      this.y -= height;
      if (isHeader)
        this.page.drawLine({
          start: { x: MARGIN, y: this.y + 1 },
          end: { x: MARGIN + widths.reduce((a, b) => a + b, 0) - pad, y: this.y + 1 },
          thickness: 0.5,
          color: LIGHT,
        });
    };
    this.ensure(2 * line); // never a header alone at the foot of a page
    drawRow(header, this.bold, true);
    for (const row of body) drawRow(row, this.font, false);
    this.space(6);
  }

  /** Reserves `height` points and returns the page and the bottom y of the block. */
  block(height: number): { page: PDFPage; bottom: number } {
    this.ensure(height);
    this.y -= height;
    return { page: this.page, bottom: this.y };
  }

  footer(label: string): void {
    this.pages.forEach((page, i) => {
      const text = winAnsiText(`${label} - page ${i + 1} of ${this.pages.length}`, this.font);
      page.drawText(text, { x: MARGIN, y: MARGIN / 2, size: SIZE.small, font: this.font, color: GREY });
    });
  }
}
