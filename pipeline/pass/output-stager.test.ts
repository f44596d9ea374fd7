import { closeSync, existsSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDir } from "../../test/support/store/helpers.ts";
import { DataError } from "../validate/data-error.ts";
import { helperStart, OutputStager } from "./output-stager.ts";
import type { OutputCheck } from "./output-stager-worker.ts";
import { csvWriter } from "../../core/csv.ts";
import { publishedSchemas } from "../../core/schemas/index.ts";
import { toPublishedJsonSchema } from "../../core/schemas/json-schema.ts";
import { AUDIT_COLUMNS, auditTrailJsonStep } from "../areas/government/audit-trail.ts";
import type { LedgerEntry } from "../../core/ledger/entry.ts";
import { formatDigest } from "../../core/digest.ts";
import { rootHash } from "../../core/merkle.ts";
import { StreamingRoot } from "../../core/merkle-stream.ts";
import { LeafTree } from "./leaf-tree.ts";
import { tableSchemaFromJsonSchema } from "../manifest.ts";

const REPO = new URL("../..", import.meta.url).pathname;
const SCHEMAS = join(REPO, "data", "schemas");
const ROW = {
  timestamp: "2026-01-01T00:00:00.000Z",
  event_type: "mic_burn",
  agent: "treasury",
  data: "{}",
  attestation_hash: `sha256:${"ab".repeat(32)}`,
};
const jsonCheck = (file: string): OutputCheck => ({
  kind: "json-array",
  file,
  schemasDir: SCHEMAS,
  schemaId: "https://integrity-platform.example/schemas/government/audit-trail-row.schema.json",
});

let dir: string;
let cleanup: () => void;
let helper: OutputStager;
beforeEach(() => {
  ({ dir, cleanup } = tempDir("pass-helper-"));
  helper = new OutputStager(4);
});
afterEach(async () => {
  await helper.close();
  cleanup();
});

describe("the pass helper thread", () => {
  it("validates, hashes and writes a streamed output", async () => {
    const tmp = join(dir, "out", "export.json.tmp");
    const id = helper.open(tmp, jsonCheck("export.json"));
    const text = `[\n${Array.from({ length: 3000 }, () => JSON.stringify(ROW)).join(",\n")}\n]\n`;
    for (let i = 0; i < text.length; i += 7777) helper.write(id, text.slice(i, i + 7777));
    const digest = await helper.finish(id);
    expect(readFileSync(tmp, "utf8")).toBe(text);
    expect(digest).toEqual({
      bytes: Buffer.byteLength(text),
      hash: `sha256:${createHash("sha256").update(text).digest("hex")}`,
    });
  });

  it("reports an output's first problem at finish, as a DataError naming the file and item, and removes it", async () => {
    const tmp = join(dir, "bad.json.tmp");
    const id = helper.open(tmp, jsonCheck("export.json"));
    helper.write(id, `[\n${JSON.stringify(ROW)},\n${JSON.stringify({ ...ROW, agent: "" })}\n]\n`);
    const error = await helper.finish(id).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DataError);
    expect((error as DataError).message).toMatch(/^export\.json: item 2 does not match its JSON Schema/);
    expect(existsSync(tmp)).toBe(false);

    const missing = helper.open(join(dir, "x.tmp"), {
      ...jsonCheck("x.json"),
      schemaId: "https://integrity-platform.example/schemas/none.schema.json",
    });
    await expect(helper.finish(missing)).rejects.toThrow(/no JSON Schema with \$id/);
    const aborted = helper.open(join(dir, "aborted.tmp"), null);
    helper.write(aborted, "text");
    helper.abort(aborted);
    await helper.finish(helper.open(join(dir, "after.tmp"), null)); // handled in order: the abort is done
    expect(existsSync(join(dir, "aborted.tmp"))).toBe(false);
  });

  it("bounds what is in flight: full once the slots run short, room once the helper catches up", async () => {
    const id = helper.open(join(dir, "big.tmp"), null);
    let sawFull = false;
    const piece = "y".repeat(1 << 16);
    for (let i = 0; i < 1024; i++) {
      helper.write(id, piece);
      if (helper.full) {
        sawFull = true;
        await helper.room();
        expect(helper.full).toBe(false);
      }
    }
    expect(sawFull).toBe(true);
    // A piece larger than a slot travels whole.
    helper.write(id, "z".repeat(3 << 20));
    const digest = await helper.finish(id);
    expect(digest.bytes).toBe((64 << 20) + (3 << 20));
    expect(digest.hash).toBe(
      `sha256:${createHash("sha256")
        .update(piece.repeat(1024))
        .update("z".repeat(3 << 20))
        .digest("hex")}`,
    );
  });

  it("hands out no more outputs than it was started for", () => {
    for (let i = 0; i < 4; i++) helper.open(join(dir, `o${i}.tmp`), null);
    expect(() => helper.open(join(dir, "one-too-many.tmp"), null)).toThrow(/started for 4 output/);
  });

  it("fails every call, never hangs, when the helper thread dies or cannot start", async () => {
    const dying = new OutputStager(2, new URL("data:text/javascript,process.exit(3)"));
    const first = dying.open(join(dir, "first.tmp"), null);
    await expect(dying.finish(first)).rejects.toThrow(/the pass helper thread stopped \(exit code 3\)/);
    expect(() => dying.open(join(dir, "late.tmp"), null)).toThrow(/exit code 3/);
    await expect(dying.room()).rejects.toThrow(/exit code 3/);
    await dying.close();

    const broken = new OutputStager(1, new URL("data:text/javascript,throw new Error('cannot load')"));
    await expect(broken.finish(broken.open(join(dir, "b.tmp"), null))).rejects.toThrow(
      /the pass helper thread failed: cannot load/,
    );
    await broken.close();
  });
});

describe("an output continued from its published prefix", () => {
  const published = (text: string) => ({
    bytes: Buffer.byteLength(text),
    hash: `sha256:${createHash("sha256").update(text).digest("hex")}`,
  });
  const first = `[\n${JSON.stringify(ROW)},\n${JSON.stringify({ ...ROW, agent: "council" })}\n]\n`;
  const bytes = first.length - "\n]\n".length;

  it("is a new file of the kept prefix and the new part, hashed from the bytes written", async () => {
    const from = join(dir, "export.json");
    writeFileSync(from, first);
    const reader = openSync(from, "r");
    const tmp = join(dir, "export.json.tmp");
    const id = helper.open(tmp, jsonCheck("export.json"), { from, bytes, head: "[", published: published(first) });
    helper.write(id, `,\n${JSON.stringify({ ...ROW, agent: "third" })}\n]\n`);
    const digest = await helper.finish(id);
    const whole = `${first.slice(0, bytes)},\n${JSON.stringify({ ...ROW, agent: "third" })}\n]\n`;
    expect(readFileSync(tmp, "utf8")).toBe(whole);
    expect(digest).toEqual(published(whole));
    // The published file is untouched: a reader keeps its version, and publishing is a rename.
    expect(readFileSync(reader, "utf8")).toBe(first);
    closeSync(reader);
  });

  it("fails, leaving nothing staged, when the published file is not the one its fold state describes", async () => {
    const from = join(dir, "changed.json");
    writeFileSync(from, first.replace("council", "c0uncil"));
    const tmp = join(dir, "changed.json.tmp");
    const id = helper.open(tmp, jsonCheck("changed.json"), { from, bytes, head: "[", published: published(first) });
    helper.write(id, "\n]\n");
    await expect(helper.finish(id)).rejects.toThrow(/changed since its fold state was checked/);
    expect(existsSync(tmp)).toBe(false);
    expect(existsSync(`${tmp}.whole`)).toBe(false);
  });
});

describe("a CSV table made of a JSON array output's items", () => {
  const table = tableSchemaFromJsonSchema(
    toPublishedJsonSchema("government/audit-trail-row", publishedSchemas["government/audit-trail-row"]),
  );
  const csvCheck = (file: string): OutputCheck => ({ ...jsonCheck(file), kind: "csv", table });
  const writer = csvWriter(AUDIT_COLUMNS);
  const rows = Array.from({ length: 2500 }, (_, i) => ({
    ...ROW,
    agent: `agent, "${i}"`,
    data: JSON.stringify({ n: i, note: "line\nbreak" }),
  }));
  const jsonText = `[\n${rows.map((r) => JSON.stringify(r)).join(",\n")}\n]\n`;
  beforeEach(async () => {
    await helper.close();
    helper = new OutputStager(9);
  });

  it("is the CSV the table's own writer makes, header first, hashed and written", async () => {
    const json = helper.open(join(dir, "export.json.tmp"), jsonCheck("export.json"));
    const tmp = join(dir, "export.csv.tmp");
    const csv = helper.open(tmp, csvCheck("export.csv"), undefined, { rowsOf: json, head: writer.header });
    for (let i = 0; i < jsonText.length; i += 5000) helper.write(json, jsonText.slice(i, i + 5000));
    helper.write(csv, "");
    await helper.finish(json);
    const digest = await helper.finish(csv);
    const expected = writer.header + rows.map((r) => writer.row(r)).join("");
    expect(readFileSync(tmp, "utf8")).toBe(expected);
    expect(digest).toEqual({
      bytes: Buffer.byteLength(expected),
      hash: `sha256:${createHash("sha256").update(expected).digest("hex")}`,
    });
  });

  it("checks each row as a parsed record would be, and fails with the output it is made of", async () => {
    const json = helper.open(join(dir, "a.json.tmp"), jsonCheck("a.json"));
    // A timestamp the row schema accepts but the CSV's datetime format does not: the table fails.
    const loose = { ...ROW, timestamp: "2026-01-01T00:00:00Z" };
    const csv = helper.open(join(dir, "a.csv.tmp"), csvCheck("a.csv"), undefined, {
      rowsOf: json,
      head: writer.header,
    });
    helper.write(json, `[${JSON.stringify(ROW)},${JSON.stringify(loose)}]`);
    await helper.finish(json);
    const error = await helper.finish(csv).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DataError);
    expect((error as DataError).message).toMatch(/^a\.csv: row 2, field timestamp: /);

    const bad = helper.open(join(dir, "b.json.tmp"), jsonCheck("b.json"));
    const made = helper.open(join(dir, "b.csv.tmp"), csvCheck("b.csv"), undefined, {
      rowsOf: bad,
      head: writer.header,
    });
    helper.write(bad, `[${JSON.stringify({ ...ROW, agent: "" })}]`);
    await expect(helper.finish(bad)).rejects.toThrow(/item 1 does not match/);
    await expect(helper.finish(made)).rejects.toThrow(/the output its rows come from failed/);
    expect(existsSync(join(dir, "b.csv.tmp"))).toBe(false);

    const shared = helper.open(join(dir, "d.json.tmp"), jsonCheck("d.json"));
    const table = { rowsOf: shared, head: writer.header };
    helper.open(join(dir, "d1.csv.tmp"), csvCheck("d1.csv"), undefined, table);
    const twice = helper.open(join(dir, "d2.csv.tmp"), csvCheck("d2.csv"), undefined, table);
    await expect(helper.finish(twice)).rejects.toThrow(/its source already makes another table/);

    const wrongHead = helper.open(join(dir, "c.json.tmp"), jsonCheck("c.json"));
    const c = helper.open(join(dir, "c.csv.tmp"), csvCheck("c.csv"), undefined, { rowsOf: wrongHead, head: "a,b\r\n" });
    helper.write(wrongHead, "[]");
    await helper.finish(wrongHead);
    await expect(helper.finish(c)).rejects.toThrow(/not the header of its fields/);
  });
});

describe("a JSON array the helper writes from records", () => {
  const entries: LedgerEntry[] = Array.from({ length: 3000 }, (_, i) => {
    const agent = ["treasury", 'a "quoted", agent', "naïve — 😀", "lone \ud800 surrogate"][i % 4]!;
    return {
      seq: i,
      type: "mic_burn",
      payload: { account: agent, amount: String(i), note: "line\nbreak" },
      ts: "2026-01-01T00:00:00.000Z",
      prev: null,
      hash: `sha256:${(i % 256).toString(16).padStart(2, "0").repeat(32)}`,
    };
  });
  const payloadText = (e: LedgerEntry) => JSON.stringify(e.payload);
  /** The file the step's own sink writes with `push`, from the kept state `from`. */
  const pushed = (list: readonly LedgerEntry[], from?: number) => {
    const { head, sink } = auditTrailJsonStep.start({} as never, from);
    return { head, body: list.map((e) => sink.push(e, payloadText(e))).join(""), end: sink.end() };
  };
  beforeEach(async () => {
    await helper.close();
    helper = new OutputStager(6);
  });

  it("is the text the sink's push writes, byte for byte, and a CSV table can be made of its items", async () => {
    const { sink } = auditTrailJsonStep.start({} as never);
    const records = sink.records!;
    const tmp = join(dir, "export.json.tmp");
    const json = helper.open(tmp, jsonCheck("export.json"), undefined, undefined, records.columns);
    const csvTmp = join(dir, "export.csv.tmp");
    const table = tableSchemaFromJsonSchema(
      toPublishedJsonSchema("government/audit-trail-row", publishedSchemas["government/audit-trail-row"]),
    );
    const writer = csvWriter(AUDIT_COLUMNS);
    const csv = helper.open(csvTmp, { ...jsonCheck("export.csv"), kind: "csv", table }, undefined, {
      rowsOf: json,
      head: writer.header,
    });
    for (const e of entries) helper.writeRecord(json, records.record(e, payloadText(e))!);
    const digest = await helper.finish(json);
    await helper.finish(csv);
    const { head, body, end } = pushed(entries);
    const expected = head + body + end;
    expect(sink.end()).toBe(end); // the sink counted the records as push counts rows
    expect(readFileSync(tmp, "utf8")).toBe(expected);
    expect(digest).toEqual({
      bytes: Buffer.byteLength(expected),
      hash: `sha256:${createHash("sha256").update(expected).digest("hex")}`,
    });
    const items = JSON.parse(expected) as Record<(typeof AUDIT_COLUMNS)[number], string>[];
    // Compared as bytes: a lone surrogate is written to the CSV as UTF-8 writes it (U+FFFD).
    const csvText = writer.header + items.map((r) => writer.row(r)).join("");
    expect(readFileSync(csvTmp).equals(Buffer.from(csvText))).toBe(true);
  });

  it("goes on after a kept prefix, and is the empty array when given none", async () => {
    const firstPart = pushed(entries.slice(0, 10));
    const first = firstPart.head + firstPart.body + firstPart.end;
    const from = join(dir, "export.json");
    writeFileSync(from, first);
    const bytes = Buffer.byteLength(first) - Buffer.byteLength(firstPart.end);
    const published = {
      bytes: Buffer.byteLength(first),
      hash: `sha256:${createHash("sha256").update(first).digest("hex")}`,
    };
    const { sink } = auditTrailJsonStep.start({} as never, 10);
    const tmp = join(dir, "export.json.tmp");
    const id = helper.open(
      tmp,
      jsonCheck("export.json"),
      { from, bytes, head: "[", published },
      undefined,
      AUDIT_COLUMNS,
    );
    for (const e of entries.slice(10, 20)) helper.writeRecord(id, sink.records!.record(e, payloadText(e))!);
    await helper.finish(id);
    const rest = pushed(entries.slice(10, 20), 10);
    expect(readFileSync(tmp, "utf8")).toBe(Buffer.from(first).subarray(0, bytes).toString() + rest.body + rest.end);

    const empty = join(dir, "empty.json.tmp");
    await helper.finish(helper.open(empty, jsonCheck("empty.json"), undefined, undefined, AUDIT_COLUMNS));
    expect(readFileSync(empty, "utf8")).toBe("[]\n");
  });

  it("fails an item its row schema refuses, or a record of another width, naming the file and item", async () => {
    const bad = helper.open(join(dir, "bad.json.tmp"), jsonCheck("bad.json"), undefined, undefined, AUDIT_COLUMNS);
    helper.writeRecord(bad, Object.values(ROW));
    helper.writeRecord(bad, Object.values({ ...ROW, agent: "" }));
    await expect(helper.finish(bad)).rejects.toThrow(/^bad\.json: item 2 does not match its JSON Schema/);
    expect(existsSync(join(dir, "bad.json.tmp"))).toBe(false);
    const narrow = helper.open(join(dir, "n.json.tmp"), jsonCheck("n.json"), undefined, undefined, AUDIT_COLUMNS);
    helper.writeRecord(narrow, ["2026-01-01T00:00:00.000Z"]);
    await expect(helper.finish(narrow)).rejects.toThrow(/^n\.json: item 1 has 1 members, not 5/);
    // The closing text the sink gave (whose bytes its fold state counts) must be the one written.
    const closed = helper.open(join(dir, "c.json.tmp"), jsonCheck("c.json"), undefined, undefined, AUDIT_COLUMNS);
    helper.writeRecord(closed, Object.values(ROW));
    await expect(helper.finish(closed, "]\n")).rejects.toThrow(/its sink closes with "\]\\n", not "\\n\]\\n"/);
    expect(existsSync(join(dir, "c.json.tmp"))).toBe(false);
    const none = helper.open(join(dir, "none.json.tmp"), jsonCheck("none.json"), undefined, undefined, []);
    await expect(helper.finish(none)).rejects.toThrow(/a record needs at least one column/);
  });
});

describe("the ledger's tree on the helper", () => {
  const leaves = Array.from({ length: 5000 }, (_, i) => createHash("sha256").update(`leaf ${i}`).digest());

  it("takes each leaf by its hash or by its input, in any mix, and folds the same root", async () => {
    const inputs = Array.from({ length: 3000 }, (_, i) => `\u0000{"n":${i},"text":"naïve — ${"x".repeat(i % 700)}"}`);
    const hashes = inputs.map((text) => createHash("sha256").update(text, "utf8").digest());
    const mixed = helper.openTree();
    inputs.forEach((text, i) => {
      if (i % 3 === 0 || (i > 1000 && i < 1500)) helper.writeLeafInput(mixed, text);
      else helper.writeLeaf(mixed, hashes[i]!.toString("latin1"));
    });
    const end = await helper.finishTree(mixed);
    expect(end).toMatchObject({ size: inputs.length, root: formatDigest(rootHash(hashes)) });

    const tree = new LeafTree();
    expect(() => tree.write(Buffer.from([2, 0, 0]))).toThrow(/starts with byte 2/);
    expect(() => tree.write(Buffer.from([1, 0, 0]))).toThrow(/cut short/);
  });

  it("folds the leaf hashes written to it into the RFC 9162 root, from the start or from a watermark's edge", async () => {
    const whole = helper.openTree();
    for (const leaf of leaves) helper.writeLeaf(whole, leaf.toString("latin1"));
    const end = await helper.finishTree(whole);
    expect(end.size).toBe(leaves.length);
    expect(end.root).toBe(formatDigest(rootHash(leaves)));

    const prefix = new StreamingRoot();
    for (const leaf of leaves.slice(0, 1234)) prefix.appendLeafHash(leaf.toString("latin1"));
    const resumed = helper.openTree({ size: prefix.size, edge: prefix.edge });
    for (const leaf of leaves.slice(1234)) helper.writeLeaf(resumed, leaf.toString("latin1"));
    expect(await helper.finishTree(resumed)).toEqual(end);
  });
});

describe("how the helper starts", () => {
  it("drops the parent's tsx loader, keeps every other flag, and turns a heap limit into a resource limit", () => {
    expect(helperStart(["--import", "tsx", "--cpu-prof", "--max-old-space-size=80"])).toEqual({
      execArgv: ["--cpu-prof"],
      maxOldGenerationSizeMb: 80,
    });
    expect(
      helperStart(["--import=tsx", "--require", "tsx/cjs", "--loader", "tsx/esm", "--max_old_space_size=90"]),
    ).toEqual({
      execArgv: [],
      maxOldGenerationSizeMb: 90,
    });
  });

  it("inherits a parent without tsx as it is, and takes its heap limit from the flags or NODE_OPTIONS", () => {
    expect(helperStart(["--import", "./other.mjs", "--max-old-space-size=80"])).toEqual({ maxOldGenerationSizeMb: 80 });
    expect(helperStart([], "--max-old-space-size=70 --enable-source-maps")).toEqual({ maxOldGenerationSizeMb: 70 });
    expect(helperStart([])).toEqual({});
  });

  it("starts a helper whose parent's flags a worker refuses, with those flags as they are", async () => {
    const argv = process.execArgv;
    Object.defineProperty(process, "execArgv", { value: ["--import", "tsx", "--expose-gc"], configurable: true });
    try {
      const stager = new OutputStager(1);
      await expect(stager.finish(stager.open(join(dir, "ok.tmp"), null))).resolves.toEqual({
        bytes: 0,
        hash: `sha256:${createHash("sha256").digest("hex")}`,
      });
      await stager.close();
    } finally {
      Object.defineProperty(process, "execArgv", { value: argv, configurable: true });
    }
  });
});
