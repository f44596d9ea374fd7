/**
 * Reading back the platform's own CSV tables (RFC 4180 as core/csv.ts writes them: header row, CRLF,
 * fields quoted when they hold `"`, `,`, CR or LF). Pure: text in, header and rows of text cells out.
 * Used where a published table is turned into another form (Parquet) or compared with the one
 * before it (the changes resource). Refuses what core/csv.ts never writes (a bare quote inside an
 * unquoted field, a row of another width), so a damaged table is named, not misread.
 */

export interface CsvTable {
  header: string[];
  rows: string[][];
}

export function readCsv(text: string, label = "CSV"): CsvTable {
  const records: string[][] = [];
  let record: string[] = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    let cell = "";
    if (text[i] === '"') {
      i++;
      for (;;) {
        const q = text.indexOf('"', i);
        if (q < 0) throw new Error(`${label}: a quoted field is not closed`);
        cell += text.slice(i, q);
        if (text[q + 1] === '"') {
          cell += '"';
          i = q + 2;
        } else {
          i = q + 1;
          break;
        }
      }
    } else {
      let j = i;
      while (j < n && text[j] !== "," && text[j] !== "\r" && text[j] !== "\n") j++;
      cell = text.slice(i, j);
      if (cell.includes('"'))
        throw new Error(`${label}: a quote inside an unquoted field (record ${records.length + 1})`);
      i = j;
    }
    record.push(cell);
    if (text[i] === ",") {
      i++;
      continue;
    }
    if (text.startsWith("\r\n", i)) i += 2;
    else if (i < n) throw new Error(`${label}: records must end with CRLF (record ${records.length + 1})`);
    records.push(record);
    record = [];
  }
  const header = records.shift();
  if (!header) throw new Error(`${label}: no header row`);
  for (const [k, r] of records.entries()) {
    if (r.length !== header.length)
      throw new Error(`${label}: record ${k + 2} has ${r.length} fields, the header ${header.length}`);
  }
  return { header, rows: records };
}
