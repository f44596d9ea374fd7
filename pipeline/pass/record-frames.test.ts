import { describe, expect, it } from "vitest";
import { FrameError, frameRecord, readFrames } from "./record-frames.ts";

function roundTrip(records: string[][]): string[][] {
  // As the frames travel: UTF-8 bytes, decoded on the helper.
  const text = Buffer.from(records.map(frameRecord).join(""), "utf8").toString("utf8");
  const read: string[][] = [];
  readFrames(text, (cells) => read.push(cells));
  return read;
}

describe("record frames", () => {
  it("carry any strings back as they were: separators, digits, non-BMP characters, empty cells", () => {
    const records = [
      ["2026-01-01T00:00:00.000Z", "mic_burn", "treasury", '{"a":"b,c;d"}', `sha256:${"ab".repeat(32)}`],
      ["", "", "", "", ""],
      ["12,3;4", "!7;x", "naïve — ü", "😀 emoji and 𝄞", "\u0000\u001f\n\r\t"],
      ["one"],
    ];
    expect(roundTrip(records)).toEqual(records);
    expect(frameRecord(["ab", "", "c"])).toBe("2,0,1;abc");
  });

  it("carry a lone surrogate, which UTF-8 cannot, as the record's JSON text", () => {
    const records = [["before"], ["a\ud800b", "\udfff"], ["after", "x"]];
    expect(frameRecord(records[1]!)).toBe(`!${JSON.stringify(records[1]).length};${JSON.stringify(records[1])}`);
    expect(roundTrip(records)).toEqual(records);
  });

  it("refuse a frame cut short or with anything but digits among its lengths", () => {
    const read = (text: string) => () => readFrames(text, () => {});
    expect(read("3,2;abcd")).toThrow(FrameError);
    expect(read("3,2")).toThrow(/cut short/);
    expect(read("x;")).toThrow(/among its lengths/);
    expect(read(";")).toThrow(/among its lengths/);
    expect(read("1,,1;ab")).toThrow(/among its lengths/);
    expect(read("!2,1;[]a")).toThrow(/more than one length/);
    expect(read('!5;["",1]')).toThrow(/not JSON/);
    expect(read('!6;["",1]')).toThrow(/not an array of strings/);
    expect(read('!6;{"":1}')).toThrow(/not an array of strings/);
  });
});
