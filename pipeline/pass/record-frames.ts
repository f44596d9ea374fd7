/**
 * Records of string cells as the ledger pass sends them to its helper (RowSink.records): the cells'
 * lengths in UTF-16 units, then the cells back to back. No separator needs escaping and no JSON text
 * is written on the reading thread, nor parsed on the helper. Frames travel as UTF-8, which keeps
 * every well-formed string; a record holding a lone surrogate, which UTF-8 cannot carry, travels as
 * its JSON text instead (JSON.stringify escapes it).
 *
 *     frame := length ("," length)* ";" cells      every cell well-formed
 *            | "!" length ";" json                 JSON.stringify of the array of cells
 */
import { CodedError } from "../../core/errors.ts";

/** The frame of one record. */
export function frameRecord(cells: readonly string[]): string {
  let lengths = "";
  let text = "";
  for (let i = 0; i < cells.length; i++) {
    const cell = cells[i]!;
    if (!cell.isWellFormed()) {
      const json = JSON.stringify(cells);
      return `!${json.length};${json}`;
    }
    lengths += i === 0 ? `${cell.length}` : `,${cell.length}`;
    text += cell;
  }
  return `${lengths};${text}`;
}

/** A frame that is not one `frameRecord` writes. */
export class FrameError extends CodedError<"frame"> {
  constructor(message: string) {
    super("frame", message);
  }
}

/** Calls `onRecord` with the cells of every frame in `text` (whole frames, back to back), in order. */
export function readFrames(text: string, onRecord: (cells: string[]) => void): void {
  const lengths: number[] = [];
  let at = 0;
  while (at < text.length) {
    const json = text.charCodeAt(at) === 0x21; // "!"
    if (json) at += 1;
    lengths.length = 0;
    let n = 0;
    let digits = 0;
    for (;;) {
      if (at >= text.length) throw new FrameError("a record frame is cut short");
      const c = text.charCodeAt(at++);
      if (c >= 0x30 && c <= 0x39 && digits < 15) {
        n = n * 10 + (c - 0x30);
        digits += 1;
      } else if ((c === 0x2c || c === 0x3b) && digits > 0) {
        lengths.push(n);
        n = 0;
        digits = 0;
        if (c === 0x3b) break;
      } else throw new FrameError(`a record frame has ${JSON.stringify(text[at - 1])} among its lengths`);
    }
    if (json && lengths.length !== 1) throw new FrameError("a JSON record frame has more than one length");
    const cells: string[] = [];
    for (const length of lengths) {
      if (at + length > text.length) throw new FrameError("a record frame is cut short");
      cells.push(text.slice(at, at + length));
      at += length;
    }
    if (!json) onRecord(cells);
    else {
      let parsed: unknown;
      try {
        parsed = JSON.parse(cells[0]!);
      } catch {
        throw new FrameError("a JSON record frame is not JSON");
      }
      if (!Array.isArray(parsed) || !parsed.every((cell) => typeof cell === "string"))
        throw new FrameError("a JSON record frame is not an array of strings");
      onRecord(parsed as string[]);
    }
  }
}
