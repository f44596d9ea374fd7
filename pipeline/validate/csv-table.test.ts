import { describe, expect, it } from "vitest";
import { CsvValidator } from "./csv-table.ts";

describe("the streaming CSV validator", () => {
  it("a CSV is validated record by record however it is cut, quoted line breaks included", () => {
    const schema = {
      fields: [
        { name: "n", type: "integer" as const },
        { name: "text", type: "string" as const },
      ],
      missingValues: [],
    };
    const text = 'n,text\r\n1,"a ""quoted""\r\nline, with comma"\r\n2,plain\r\n';
    for (const size of [1, 3, text.length]) {
      const v = new CsvValidator("t.csv", schema);
      for (let i = 0; i < text.length; i += size) v.feed(text.slice(i, i + size));
      v.end();
      expect(v.rows).toBe(2);
    }
    const bad = new CsvValidator("t.csv", schema);
    bad.feed("n,text\r\nx,y\r\n");
    expect(() => bad.end()).toThrow(/t\.csv: row 1, field n: "x" is not an integer/);
    const times = new CsvValidator("t.csv", {
      fields: [
        { name: "at", type: "datetime" as const },
        { name: "on", type: "date" as const },
      ],
      missingValues: [],
    });
    times.feed("at,on\r\n2028-02-29T23:59:59.999Z,2024-02-29\r\n");
    times.end();
    for (const row of [
      "2025-02-29T00:00:00Z,2024-01-01",
      "2025-01-01T24:00:00Z,2024-01-01",
      "2025-01-01T00:00:00Z,2023-02-29",
      "2025-04-31T00:00:00Z,2024-01-01",
    ]) {
      const v = new CsvValidator("t.csv", {
        fields: [
          { name: "at", type: "datetime" as const },
          { name: "on", type: "date" as const },
        ],
        missingValues: [],
      });
      v.feed(`at,on\r\n${row}\r\n`);
      expect(() => v.end(), row).toThrow(/is not a date(time)?$/);
    }
    const header = new CsvValidator("t.csv", schema);
    header.feed("text,n\r\n");
    expect(() => header.end()).toThrow(/header is \[text, n\]/);
  });
});
