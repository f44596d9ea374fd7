import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { generateKeyPair } from "../core/signature.ts";
import type { NewEvent } from "../core/ledger/store.ts";
import { BalanceView } from "./balance-view.ts";
import { writeSnapshot } from "./migration-dir.ts";
import { SqliteLedger } from "./sqlite-ledger.ts";
import { tempDir } from "./test-helpers.ts";

const { dir, cleanup } = tempDir("balance-view-");
const key = generateKeyPair("ed25519");
const signer = { name: "integrity-platform.example/datasets", secretKeyHex: key.secretKey };
const trusted = [{ name: signer.name, publicKeyHex: key.publicKey }];

const mint = (sentinel: string, amount: string, ts: string): NewEvent => ({
  type: "mic_mint",
  payload: { sentinel, cycle: "C-1", cathedral: "FOR-ECONOMISTS", amount_shards: amount, coordination_score: 1, multiplier: 1 },
  ts,
});
const lock = (account: string, amount: string, ts: string): NewEvent => ({ type: "mic_lock", payload: { account, amount_shards: amount, contract: "vault" }, ts });

// The ledger before the snapshot: ATLAS holds 5 MIC; the v1 export says so, plus a legacy account.
const path = join(dir, "ledger.sqlite");
const writer = new SqliteLedger(path, { origin: "view-test", durability: "normal" });
writer.append([mint("ATLAS", "5000000", "2025-11-01T00:00:00.000Z")]);
const EXPORT = ['{"address":"ATLAS","balance_gic":5}', '{"address":"legacy-1","balance_gic":1.005}', '{"address":"whale","balance_gic":9223372036854.775807}'];
const migrationDir = join(dir, "migration");
writeSnapshot(migrationDir, { exportBytes: Buffer.from(EXPORT.join("\n")), at: "2025-12-01T00:00:00.000Z", signer });
// After the freeze: ATLAS locks 1 MIC, HERMES appears.
writer.append([lock("ATLAS", "1000000", "2025-12-03T00:00:00.000Z"), mint("HERMES", "7", "2025-12-04T00:00:00.000Z")]);

const reader = new SqliteLedger(path, { origin: "view-test", durability: "normal" });
const view = new BalanceView({ reader, migrationDir, trusted });
afterAll(() => {
  writer.close();
  reader.close();
  cleanup();
});

const at = (iso: string) => new Date(iso);

describe("BalanceView", () => {
  it("answers v1 live (the ledger's balance) before the snapshot, and frozen at the snapshot during the review", () => {
    expect(view.balance("ATLAS", at("2025-11-15T00:00:00Z"))).toMatchObject({ ok: true, version: "v1", phase: "announcement", record: { balance_gic: 4 }, forwarded: false });
    expect(view.balance("ATLAS", at("2025-12-01T12:00:00Z"))).toMatchObject({ ok: true, version: "v1", phase: "snapshot", record: { balance_gic: 5 } });
    expect(view.v2("ATLAS", at("2025-12-01T12:00:00Z"))).toMatchObject({ ok: false, code: "not-yet" });
    expect(view.balance("legacy-1", at("2025-12-01T12:00:00Z"))).toMatchObject({ ok: true, record: { balance_gic: 1.005 } });
  });

  it("answers v2 = snapshot + movements after it in the transition, and forwards v1 to it", () => {
    const t = at("2025-12-10T00:00:00Z");
    expect(view.balance("ATLAS", t)).toEqual({
      ok: true,
      version: "v2",
      phase: "transition",
      record: { balance_shards: "4000000", balance_credits: 4, balance_credits_formatted: "4.000000 MIC" },
    });
    expect(view.v1("ATLAS", t)).toMatchObject({ ok: true, version: "v1", record: { balance_gic: 4 }, forwarded: true });
    expect(view.v2("HERMES", t)).toMatchObject({ ok: true, record: { balance_shards: "7", balance_credits_formatted: "0.000007 MIC" } });
    expect(view.v2("legacy-1", t)).toMatchObject({ ok: true, record: { balance_shards: "1005000" } });
    expect(view.v2("whale", t)).toMatchObject({ ok: true, record: { balance_shards: "9223372036854775807", balance_credits_formatted: "9223372036854.775807 MIC" } });
    expect(view.v2("nobody", t)).toMatchObject({ ok: false, code: "unknown-address" });
  });

  it("refuses v1 after the sunset, keeps the historical v1 balance with its proof", () => {
    const t = at("2026-03-01T00:00:00Z");
    expect(view.v1("ATLAS", t)).toMatchObject({ ok: false, version: "v1", phase: "sunset", code: "gone" });
    expect(view.balance("ATLAS", t)).toMatchObject({ ok: true, version: "v2" });
    const h = view.historical("legacy-1")!;
    expect(h.leaf).toEqual({ address: "legacy-1", balance_shards: "1005000", v1_balance_gic: "1.005" });
    expect(h.proof.tree_size).toBe(3);
    expect(view.historical("nobody")).toBeNull();
  });

  it("catches up with what another instance appends before answering", () => {
    const t = at("2025-12-10T00:00:00Z");
    expect(view.supply()).toMatchObject({ total_supply: 5.000007, circulating: 4.000007, locked: 1, burned: 0, total_supply_shards: "5000007" });
    writer.append([mint("HERMES", "3", "2025-12-05T00:00:00.000Z")]);
    expect(view.v2("HERMES", t)).toMatchObject({ ok: true, record: { balance_shards: "10" } });
    expect(view.supply()).toMatchObject({ total_supply: 5.00001, circulating: 4.00001, locked: 1, burned: 0, total_supply_shards: "5000010" });
  });

  it("before a snapshot is published answers v1 from the ledger alone, and no-snapshot where it needs one", () => {
    const early = new BalanceView({ reader, migrationDir: join(dir, "not-published-yet"), trusted });
    expect(early.hasSnapshot).toBe(false);
    expect(early.balance("ATLAS", at("2025-11-15T00:00:00Z"))).toMatchObject({ ok: true, version: "v1", phase: "announcement" });
    expect(early.v1("ATLAS", at("2025-12-01T00:00:00Z"))).toMatchObject({ ok: false, code: "no-snapshot" });
    expect(early.v2("ATLAS", at("2025-12-02T00:00:00Z"))).toMatchObject({ ok: false, code: "no-snapshot" });
    expect(early.historical("ATLAS")).toBeNull();
  });

  it("opens only a folder signed with a trusted key", () => {
    const other = generateKeyPair("ed25519");
    expect(() => new BalanceView({ reader, migrationDir, trusted: [{ name: signer.name, publicKeyHex: other.publicKey }] })).toThrow(/checkpoint/);
  });
});
