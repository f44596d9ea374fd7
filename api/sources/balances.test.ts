/**
 * The balance lookup (api/sources/balances.ts) over a real SQLite ledger, a second instance appending to
 * the same file, and a published, signed migration tree: every phase's answer, catching up with
 * the other instance's appends, and a folder no trusted key signed.
 */
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { verifierKey } from "../../core/checkpoint.ts";
import type { NewEvent } from "../../core/ledger/store.ts";
import { parseLeaf } from "../../core/migration/snapshot.ts";
import { generateKeyPair } from "../../core/signature.ts";
import { writeSnapshot } from "../../store/migration-dir.ts";
import { openLedgerStore } from "../../store/open-ledger.ts";
import { Balances, MIGRATION_DIR } from "./balances.ts";
import { tempDir, TEST_DATASET_SIGNER, TEST_DATASET_VKEY } from "../../test/support/api/helpers.ts";

const { dir, cleanup } = tempDir("balances-");

/** A data folder with the dataset key `vkey` trusted, and the migration folder copied from `from` when given. */
function dataDir(name: string, vkey: string, from?: string): string {
  const data = join(dir, name);
  mkdirSync(join(data, "keys"), { recursive: true });
  writeFileSync(join(data, "keys", "datasets.vkey"), `${vkey}\n`);
  if (from) cpSync(from, join(data, MIGRATION_DIR), { recursive: true });
  return data;
}

const mint = (sentinel: string, amount: string, ts: string): NewEvent => ({
  type: "mic_mint",
  payload: {
    sentinel,
    cycle: "C-1",
    cathedral: "FOR-ECONOMISTS",
    amount_shards: amount,
    coordination_score: 1,
    multiplier: 1,
  },
  ts,
});
const lock = (account: string, amount: string, ts: string): NewEvent => ({
  type: "mic_lock",
  payload: { account, amount_shards: amount, contract: "vault" },
  ts,
});

// The ledger before the snapshot: ATLAS holds 5 MIC; the v1 export says so, plus a legacy account.
const path = join(dir, "ledger.sqlite");
const writer = await openLedgerStore({ path: path, origin: "balances-test", durability: "normal" });
await writer.append([mint("ATLAS", "5000000", "2025-11-01T00:00:00.000Z")]);
const EXPORT = [
  '{"address":"ATLAS","balance_gic":5}',
  '{"address":"legacy-1","balance_gic":1.005}',
  '{"address":"whale","balance_gic":9223372036854.775807}',
];
const data = dataDir("data", TEST_DATASET_VKEY);
writeSnapshot(join(data, MIGRATION_DIR), {
  exportBytes: Buffer.from(EXPORT.join("\n")),
  at: "2025-12-01T00:00:00.000Z",
  signer: TEST_DATASET_SIGNER,
});
// After the freeze: ATLAS locks 1 MIC, HERMES appears.
await writer.append([
  lock("ATLAS", "1000000", "2025-12-03T00:00:00.000Z"),
  mint("HERMES", "7", "2025-12-04T00:00:00.000Z"),
]);

// The instance under test reads the file through a connection of its own.
const reader = await openLedgerStore({ path: path, origin: "balances-test", durability: "normal" });
let now = new Date("2025-11-15T00:00:00Z");
const balances = new Balances({ ledger: reader, dataDir: data, now: () => now });
afterAll(async () => {
  await writer.close();
  await reader.close();
  cleanup();
});

/** The lookup at the instant `iso`. */
function at(iso: string) {
  now = new Date(iso);
  return {
    v1: (address: string) => balances.lookup("v1", address),
    v2: (address: string) => balances.lookup("v2", address),
    balance: (address: string) => balances.lookup("current", address),
  };
}

describe("Balances", () => {
  it("answers v1 live (the ledger's balance) before the snapshot, and frozen at the snapshot during the review", async () => {
    expect(await at("2025-11-15T00:00:00Z").balance("ATLAS")).toMatchObject({
      ok: true,
      version: "v1",
      phase: "announcement",
      record: { balance_gic: 4 },
      forwarded: false,
    });
    const review = at("2025-12-01T12:00:00Z");
    expect(await review.balance("ATLAS")).toMatchObject({
      ok: true,
      version: "v1",
      phase: "snapshot",
      record: { balance_gic: 5 },
    });
    expect(await review.v2("ATLAS")).toMatchObject({ ok: false, asked: "v2", code: "not-yet" });
    expect(await review.balance("legacy-1")).toMatchObject({ ok: true, record: { balance_gic: 1.005 } });
  });

  it("answers v2 = snapshot + movements after it in the transition, and forwards v1 to it", async () => {
    const t = at("2025-12-10T00:00:00Z");
    expect(await t.balance("ATLAS")).toEqual({
      ok: true,
      version: "v2",
      phase: "transition",
      record: { balance_shards: "4000000", balance_credits: 4, balance_credits_formatted: "4.000000 MIC" },
    });
    expect(await t.v1("ATLAS")).toMatchObject({ ok: true, version: "v1", record: { balance_gic: 4 }, forwarded: true });
    expect(await t.v2("HERMES")).toMatchObject({
      ok: true,
      record: { balance_shards: "7", balance_credits_formatted: "0.000007 MIC" },
    });
    expect(await t.v2("legacy-1")).toMatchObject({ ok: true, record: { balance_shards: "1005000" } });
    expect(await t.v2("whale")).toMatchObject({
      ok: true,
      record: { balance_shards: "9223372036854775807", balance_credits_formatted: "9223372036854.775807 MIC" },
    });
    expect(await t.v2("nobody")).toMatchObject({ ok: false, asked: "v2", code: "unknown-address" });
  });

  it("refuses v1 after the sunset, keeps the historical v1 balance with its proof", async () => {
    const t = at("2026-03-01T00:00:00Z");
    expect(await t.v1("ATLAS")).toMatchObject({ ok: false, asked: "v1", phase: "sunset", code: "gone" });
    expect(await t.balance("ATLAS")).toMatchObject({ ok: true, version: "v2" });
    const h = balances.proof("legacy-1");
    if (!h.ok) throw new Error(`no proof: ${h.code}`);
    expect(parseLeaf(h.proof.leaf)).toEqual({
      address: "legacy-1",
      balance_shards: "1005000",
      v1_balance_gic: "1.005",
    });
    expect(h.proof.tree_size).toBe(3);
    expect(balances.proof("nobody")).toMatchObject({ ok: false, asked: "proof", code: "unknown-address" });
  });

  it("catches up with what another instance appends before answering", async () => {
    const t = at("2025-12-10T00:00:00Z");
    expect(await balances.supply()).toMatchObject({
      total_supply: 5.000007,
      circulating: 4.000007,
      locked: 1,
      burned: 0,
    });
    await writer.append([mint("HERMES", "3", "2025-12-05T00:00:00.000Z")]);
    expect(await t.v2("HERMES")).toMatchObject({ ok: true, record: { balance_shards: "10" } });
    expect(await balances.supply()).toMatchObject({
      total_supply: 5.00001,
      circulating: 4.00001,
      locked: 1,
      burned: 0,
    });
  });

  it("before a snapshot is published answers v1 from the ledger alone, and no-snapshot where it needs one", async () => {
    const early = new Balances({
      ledger: reader,
      dataDir: dataDir("not-published-yet", TEST_DATASET_VKEY),
      now: () => now,
    });
    now = new Date("2025-11-15T00:00:00Z");
    expect(await early.lookup("current", "ATLAS")).toMatchObject({ ok: true, version: "v1", phase: "announcement" });
    now = new Date("2025-12-01T00:00:00Z");
    expect(await early.lookup("v1", "ATLAS")).toMatchObject({ ok: false, code: "no-snapshot" });
    now = new Date("2025-12-02T00:00:00Z");
    expect(await early.lookup("v2", "ATLAS")).toMatchObject({ ok: false, code: "no-snapshot" });
    expect(early.proof("ATLAS")).toMatchObject({ ok: false, asked: "proof", code: "no-snapshot" });
  });

  it("opens only a folder signed with a trusted key", async () => {
    const other = generateKeyPair("ed25519");
    const untrusted = dataDir(
      "untrusted",
      verifierKey(TEST_DATASET_SIGNER.name, other.publicKey),
      join(data, MIGRATION_DIR),
    );
    const refusing = new Balances({ ledger: reader, dataDir: untrusted, now: () => now });
    now = new Date("2025-11-15T00:00:00Z");
    expect(await refusing.lookup("current", "ATLAS")).toMatchObject({
      ok: false,
      code: "data-unverified",
      detail: expect.stringMatching(/checkpoint/),
    });
    expect(refusing.proof("ATLAS")).toMatchObject({ ok: false, code: "data-unverified" });
  });

  it("without a ledger answers nothing: ledger-unavailable, and no live supply", async () => {
    const none = new Balances({ dataDir: data, now: () => now });
    expect(await none.lookup("v1", "ATLAS")).toMatchObject({ ok: false, asked: "v1", code: "ledger-unavailable" });
    expect(none.proof("ATLAS")).toMatchObject({ ok: false, asked: "proof", code: "ledger-unavailable" });
    expect(await none.supply()).toBeNull();
    expect(none.liveDocuments()).toEqual({});
  });
});
