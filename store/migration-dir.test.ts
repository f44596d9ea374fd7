import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { verifyCheckpoint } from "../core/checkpoint.ts";
import { generateKeyPair } from "../core/signature.ts";
import {
  appendReviewRound,
  checkpointOfNote,
  MIGRATION_FILES,
  readMigrationDir,
  writeSnapshot,
} from "./migration-dir.ts";
import { tempDir } from "../test/support/store/helpers.ts";

const key = generateKeyPair("ed25519");
const signer = { name: "integrity-platform.example/datasets", secretKeyHex: key.secretKey };
const EXPORT = [
  '{"address":"b","balance_gic":2}',
  '{"address":"a","balance_gic":1.005}',
  '{"address":"c","balance_gic":-1}',
  '{"address":"d","balance_gic":1e-6}',
];
const input = () => ({ exportBytes: Buffer.from(EXPORT.join("\n") + "\n"), at: "2025-12-01T00:00:00.000Z", signer });

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});
function folder(): string {
  const { dir, cleanup } = tempDir("migration-dir-");
  cleanups.push(cleanup);
  return join(dir, "out");
}

describe("a migration folder", () => {
  it("holds the sorted leaves, the mismatches, a signed checkpoint and a summary", () => {
    const dir = folder();
    writeSnapshot(dir, input());
    expect(readFileSync(join(dir, "snapshot.jsonl"), "utf8")).toBe(
      '{"address":"a","balance_shards":"1005000","v1_balance_gic":"1.005"}\n{"address":"b","balance_shards":"2000000","v1_balance_gic":"2"}\n{"address":"d","balance_shards":"1","v1_balance_gic":"1e-6"}\n',
    );
    expect(readFileSync(join(dir, "mismatches.jsonl"), "utf8")).toBe(
      '{"address":"c","input":"{\\"address\\":\\"c\\",\\"balance_gic\\":-1}","line":3,"reason":"negative"}\n',
    );
    const state = readMigrationDir(dir);
    expect(verifyCheckpoint(state.checkpoint, [{ name: signer.name, publicKeyHex: key.publicKey }]).size).toBe(3);
    expect(state.history.map((h) => h.size)).toEqual([3]);
    expect(state.summary).toMatchObject({
      converted: 3,
      mismatches: 1,
      total_v1_balance_gic: "3.005001",
      total_balance_shards: "3005001",
      snapshot_size: 3,
      tree_size: 3,
    });
  });

  it("is never written twice", () => {
    const dir = folder();
    writeSnapshot(dir, input());
    expect(() => writeSnapshot(dir, input())).toThrow(/already holds a snapshot/);
  });

  it("grows by review rounds only: leaves appended, the old checkpoint kept, a consistency proof added", () => {
    const dir = folder();
    writeSnapshot(dir, input());
    const snapshotBytes = readFileSync(join(dir, "snapshot.jsonl"));
    const first = readMigrationDir(dir).checkpoint;
    appendReviewRound(dir, {
      at: "2025-12-01T09:00:00.000Z",
      corrections: [{ address: "c", shards: 0n, note: "overdraft written off" }],
      signer,
    });
    appendReviewRound(dir, {
      at: "2025-12-01T23:59:59.999Z",
      corrections: [{ address: "a", shards: 1n, note: "second thoughts" }],
      signer,
    });
    const state = readMigrationDir(dir);
    expect(readFileSync(join(dir, "snapshot.jsonl")).equals(snapshotBytes)).toBe(true);
    expect(state.leaves).toHaveLength(5);
    expect(state.history.map((h) => h.size)).toEqual([3, 4, 5]);
    expect(state.history[0]!.note).toBe(first);
    expect(state.consistency.map((c) => [c.old_size, c.new_size])).toEqual([
      [3, 4],
      [4, 5],
    ]);
    expect(checkpointOfNote(state.checkpoint).size).toBe(5);
    expect(state.summary?.reviews).toEqual([
      { at: "2025-12-01T09:00:00.000Z", corrections: 1, tree_size: 4 },
      { at: "2025-12-01T23:59:59.999Z", corrections: 1, tree_size: 5 },
    ]);
  });

  it("takes corrections during the 24-hour review only", () => {
    const dir = folder();
    writeSnapshot(dir, input());
    const round = (at: string) => () =>
      appendReviewRound(dir, { at, corrections: [{ address: "c", shards: 0n, note: "n" }], signer });
    expect(round("2025-11-30T23:59:59.999Z")).toThrow(/24-hour review/);
    expect(round("2025-12-02T00:00:00.000Z")).toThrow(/24-hour review/);
    expect(() => appendReviewRound(dir, { at: "2025-12-01T01:00:00.000Z", corrections: [], signer })).toThrow(
      /at least one/,
    );
    expect(existsSync(join(dir, MIGRATION_FILES.checkpoints, "4"))).toBe(false);
  });

  it("refuses to append to a folder whose leaves no longer match its checkpoint", () => {
    const dir = folder();
    writeSnapshot(dir, input());
    const path = join(dir, "snapshot.jsonl");
    writeFileSync(path, readFileSync(path, "utf8").replace("1005000", "1005001"));
    expect(() =>
      appendReviewRound(dir, {
        at: "2025-12-01T01:00:00.000Z",
        corrections: [{ address: "c", shards: 0n, note: "n" }],
        signer,
      }),
    ).toThrow(/damaged/);
  });
});
