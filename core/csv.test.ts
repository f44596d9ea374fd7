import Papa from "papaparse";
import { describe, expect, it } from "vitest";
import { csvDocument, csvField, csvLine, csvWriter } from "./csv.ts";

describe("RFC 4180 CSV", () => {
  it("quotes exactly the fields that need it", () => {
    expect(csvField("plain")).toBe("plain");
    expect(csvField("")).toBe("");
    expect(csvField("a,b")).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField("line\nbreak")).toBe('"line\nbreak"');
    expect(csvField("cr\rhere")).toBe('"cr\rhere"');
    expect(csvField(0.964)).toBe("0.964");
    expect(csvField(8)).toBe("8");
    expect(csvField(true)).toBe("true");
    expect(() => csvField(Number.NaN)).toThrow(/not finite/);
    expect(csvLine(["a", 1])).toBe("a,1\r\n");
  });

  it("writes a header and CRLF records that papaparse reads back unchanged", () => {
    const columns = ["name", "note", "n"] as const;
    const records = [
      { name: "plain", note: "nothing special", n: 1 },
      { name: "tricky", note: 'a "quote", a comma\r\nand a newline', n: 2.5 },
      { name: "unicode", note: "Müller — ü", n: 0 },
    ];
    const text = csvDocument(columns, records);
    expect(text.startsWith("name,note,n\r\n")).toBe(true);
    expect(text.endsWith("\r\n")).toBe(true);
    // Outside quoted fields every line break is CRLF.
    const unquoted = text.replace(/"(?:[^"]|"")*"/g, "");
    expect(unquoted.replace(/\r\n/g, "")).not.toMatch(/[\r\n]/);
    const parsed = Papa.parse<Record<string, string>>(text.slice(0, -2), { header: true, newline: "\r\n" });
    expect(parsed.errors).toEqual([]);
    expect(parsed.data).toEqual(records.map((r) => ({ ...r, n: String(r.n) })));
    // The same as papaparse's own writer with CRLF.
    expect(text).toBe(
      `${Papa.unparse(
        records.map((r) => ({ ...r })),
        { newline: "\r\n", columns: [...columns] },
      )}\r\n`,
    );
  });

  it("formats rows one at a time for streaming, refusing a missing column", () => {
    const writer = csvWriter(["a", "b"] as const);
    expect(writer.header).toBe("a,b\r\n");
    expect(writer.row({ a: "x", b: 1 })).toBe("x,1\r\n");
    expect(() => writer.row({ a: "x" } as unknown as { a: string; b: string })).toThrow(/column b/);
  });
});
