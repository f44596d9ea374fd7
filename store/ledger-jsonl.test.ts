import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { generateKeyPair } from "../core/signature.ts";
import { EXPORT_CHECKPOINT, EXPORT_LINES, exportLedger, verifyExport } from "./ledger-jsonl.ts";
import { openLedgerStore } from "./open-ledger.ts";
import { sampleEvent, steppingClock, tempDir } from "../test/support/store/helpers.ts";

const ORIGIN = "export.test/ledger";
let dir: string;
let cleanup: () => void;
const key = generateKeyPair("ed25519");
const verifiers = [{ name: ORIGIN, publicKeyHex: key.publicKey }];

beforeEach(() => {
  ({ dir, cleanup } = tempDir());
});
afterEach(() => cleanup());

let exports = 0;
async function makeExport(entries = 50): Promise<string> {
  exports += 1;
  const ledger = await openLedgerStore({
    path: join(dir, `l${exports}.sqlite`),
    origin: ORIGIN,
    signer: { name: ORIGIN, secretKeyHex: key.secretKey },
    now: steppingClock(),
    durability: "normal",
  });
  await ledger.append(Array.from({ length: entries }, (_, i) => sampleEvent(i)));
  const out = join(dir, `export${exports}`);
  await exportLedger(ledger, out);
  ledger.close();
  return out;
}

function editLine(out: string, seq: number, edit: (line: string) => string): void {
  const path = join(out, EXPORT_LINES);
  const lines = readFileSync(path, "utf8").split("\n");
  lines[seq] = edit(lines[seq]!);
  writeFileSync(path, lines.join("\n"));
}

describe("ledger export", () => {
  it("writes one canonical line per entry and a checkpoint that verifies offline", async () => {
    const out = await makeExport();
    const lines = readFileSync(join(out, EXPORT_LINES), "utf8").trimEnd().split("\n");
    expect(lines).toHaveLength(50);
    expect(JSON.parse(lines[0]!).seq).toBe(0);
    expect(readFileSync(join(out, EXPORT_CHECKPOINT), "utf8").split("\n").slice(0, 2)).toEqual([ORIGIN, "50"]);
    const report = await verifyExport(out, verifiers);
    expect(report.problems).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.size).toBe(50);
  });

  it("names the line whose bytes changed", async () => {
    const out = await makeExport();
    editLine(out, 12, (l) => l.replace('"status":"operational"', '"status":"degraded"'));
    const report = await verifyExport(out, verifiers);
    expect(report.ok).toBe(false);
    expect(report.problems[0]).toMatchObject({ seq: 12, problem: expect.stringMatching(/hash mismatch/) });
  });

  it("reports a missing line and a repeated line once each, at their seq", async () => {
    const gap = await makeExport();
    const path = join(gap, EXPORT_LINES);
    const lines = readFileSync(path, "utf8").split("\n");
    writeFileSync(path, [...lines.slice(0, 20), ...lines.slice(23)].join("\n"));
    const missing = await verifyExport(gap, verifiers);
    expect(missing.problems).toEqual([
      { seq: 20, problem: expect.stringMatching(/^entries 20\.\.22 are missing \(the next entry is seq 23\)/) },
    ]);
    expect(missing.brokenAt).toBe(20);

    const twice = await makeExport();
    const again = join(twice, EXPORT_LINES);
    const copy = readFileSync(again, "utf8").split("\n");
    writeFileSync(again, [...copy.slice(0, 31), copy[30], ...copy.slice(31)].join("\n"));
    const repeated = await verifyExport(twice, verifiers);
    expect(repeated.problems).toEqual([{ seq: 31, problem: expect.stringMatching(/^seq is 30, expected 31/) }]);
  });

  it("refuses non-canonical lines, truncation, and an unknown key", async () => {
    const out = await makeExport();
    editLine(out, 3, (l) => l.replace("{", "{ "));
    expect((await verifyExport(out, verifiers)).problems).toContainEqual({
      seq: 3,
      problem: "entry is not in canonical (JCS) form",
    });

    const short = await makeExport(20);
    const path = join(short, EXPORT_LINES);
    writeFileSync(path, readFileSync(path, "utf8").split("\n").slice(0, 19).join("\n") + "\n");
    const truncated = await verifyExport(short, verifiers);
    expect(truncated.problems.map((p) => p.problem).join()).toMatch(/checkpoint covers 20 entries, the file has 19/);

    const other = generateKeyPair("ed25519");
    const wrongKey = await verifyExport(short, [{ name: ORIGIN, publicKeyHex: other.publicKey }]);
    expect(wrongKey.ok).toBe(false);
  });
});
