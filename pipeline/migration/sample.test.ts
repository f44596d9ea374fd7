/**
 * The sample end to end: the sample ledger (data/sources/sample.json) → the SAMPLE v1 export →
 * the published verification tree (data/migration/) → v2 balances; and the live supply against the
 * pipeline's supply.json at the same ledger size.
 */
import { readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { balancesProjection } from "../../core/balance/ledger-balances.ts";
import { balanceV2Record, v2BalanceShards } from "../../core/balance/records.ts";
import { supplyFigures, supplyProjection } from "../../core/economy/supply.ts";
import { fold } from "../../core/ledger/projection.ts";
import type { NewEvent } from "../../core/ledger/store.ts";
import { convertV1Export, exportLines } from "../../core/migration/convert.ts";
import { SNAPSHOT_AT } from "../../core/migration/phases.ts";
import { snapshotBalances } from "../../core/migration/snapshot.ts";
import { readMigrationDir } from "../../store/migration-dir.ts";
import { ProjectionFollower } from "../../store/ledger/projection-follower.ts";
import { openLedgerStore } from "../../store/open-ledger.ts";
import { factsOf } from "../facts/accumulate.ts";
import { sampleOptions } from "../seed/sample-options.ts";
import { simulate } from "../seed/simulate.ts";
import { readTrustedKeys } from "../sign.ts";
import { publishMigration } from "./publish.ts";
import { sampleV1Export } from "./sample-v1.ts";
import { verifyMigrationDir } from "../../store/migration-verify-dir.ts";

const sample = sampleOptions("data");
const ledger = await openLedgerStore({ path: ":memory:", origin: "sample-test" });
afterAll(async () => await ledger.close());
let batch: NewEvent[] = [];
for (const event of simulate({ seed: sample.seed, size: sample.size, now: new Date(sample.now) })) {
  batch.push(event);
  if (batch.length === 1000) {
    await ledger.append(batch);
    batch = [];
  }
}
await ledger.append(batch);
const entries = await Array.fromAsync(ledger.entries());

describe("the SAMPLE v1 export", () => {
  it("is what the sample ledger gives (npm run migration -- sample-v1)", async () => {
    const committed = exportLines(readFileSync("data/sources/migration/v1-balances.jsonl", "utf8"));
    expect(sampleV1Export(entries)).toEqual(committed);
  });

  it("converts every ledger account to exactly its balance at the snapshot, although written through a float", async () => {
    const atSnapshot = fold(balancesProjection({ to: SNAPSHOT_AT }), entries);
    const conversion = convertV1Export(sampleV1Export(entries));
    const converted = new Map(conversion.balances.map((b) => [b.address, b.shards]));
    let accounts = 0;
    for (const [address, holding] of atSnapshot) {
      // A stake alone, or a stake withdrawn again (an AVM identity's bond), is no MIC account.
      if (holding.available === 0n && holding.locked === 0n) continue;
      accounts += 1;
      expect(converted.get(address), address).toBe(holding.available);
    }
    expect(accounts).toBeGreaterThan(5);
  });
});

describe("the published verification tree (data/migration/)", () => {
  it("verifies with the published dataset keys and is what the sources give", async () => {
    const report = verifyMigrationDir("data/migration", readTrustedKeys("data/keys/datasets.vkey"));
    expect(report.steps.map((s) => [s.name, s.ok])).toEqual([
      ["checkpoint", true],
      ["history", true],
      ["leaves", true],
      ["manifest", true],
    ]);
    const check = publishMigration({
      dataDir: "data",
      check: true,
      log: () => {},
      signingKey: () => {
        throw new Error("check signs nothing");
      },
    });
    expect(check.differences).toEqual([]);
    expect(check.ok).toBe(true);
  });

  it("gives v2 = snapshot + the ledger's movements after it, equal to the ledger for its accounts", async () => {
    const snapshot = snapshotBalances(readMigrationDir("data/migration").leaves);
    const since = fold(balancesProjection({ from: SNAPSHOT_AT }), entries);
    const all = fold(balancesProjection(), entries);
    for (const [address, holding] of all) {
      if (!snapshot.has(address) && holding.available === 0n) continue;
      expect(v2BalanceShards(address, snapshot, since), address).toBe(holding.available);
    }
    // Legacy accounts keep their snapshot balance (and the review's corrections).
    expect(v2BalanceShards("sample-legacy-0001", snapshot, since)).toBe(1_005_000n);
    expect(v2BalanceShards("sample-legacy-0007", snapshot, since)).toBe(10_500_000n);
    expect(v2BalanceShards("sample-legacy-0002", snapshot, since)).toBeNull();
    expect(balanceV2Record(v2BalanceShards("sample-legacy-0010", snapshot, since)!)).toMatchObject({
      balance_shards: "9223372036854775807",
      balance_credits_formatted: "9223372036854.775807 MIC",
    });
  });
});

describe("the live supply", () => {
  it("folds to exactly the pipeline's supply.json at the same ledger size", async () => {
    const published = JSON.parse(readFileSync("data/areas/economy/supply.json", "utf8")) as Record<string, unknown>;
    const live = supplyFigures(fold(supplyProjection, entries));
    const { cycle: _cycle, timestamp: _timestamp, ...figures } = published;
    expect(live).toEqual(figures); // the numbers and the exact `_shards` strings
    expect(BigInt(live.total_supply_shards)).toBe(fold(supplyProjection, entries).mintedShards);
  });

  it("grows incrementally with the ledger and equals the pipeline's figures at every size", async () => {
    const growing = await openLedgerStore({ path: ":memory:", origin: "sample-test-live" });
    try {
      const follower = new ProjectionFollower(growing);
      for (const size of [1, 100, 2_500, 5_000, entries.length]) {
        const from = await growing.size();
        await growing.append(entries.slice(from, size).map((e) => ({ type: e.type, payload: e.payload, ts: e.ts })));
        expect(supplyFigures(await follower.at(supplyProjection, await growing.size())), `at ${size}`).toEqual(
          supplyFigures(factsOf(entries.slice(0, size)).supply),
        );
        expect(follower.watermark(supplyProjection)).toBe(size);
      }
    } finally {
      await growing.close();
    }
  });

  it("is the sum of every address's balance: circulating = Σ available", async () => {
    const supply = fold(supplyProjection, entries);
    let available = 0n;
    for (const h of fold(balancesProjection(), entries).values()) available += h.available;
    expect(available).toBe(supply.mintedShards - supply.burnedShards - supply.lockedShards);
  });
});

describe("publishing data/migration", () => {
  it("--check reports a published file that differs from what the sources give", async () => {
    const { cpSync, mkdtempSync, rmSync, writeFileSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const data = mkdtempSync(join(tmpdir(), "migration-publish-"));
    try {
      for (const part of ["sources/migration", "migration", "keys"])
        cpSync(join("data", part), join(data, part), { recursive: true });
      const check = () =>
        publishMigration({
          dataDir: data,
          check: true,
          log: () => {},
          signingKey: () => {
            throw new Error("no signing in --check");
          },
        });
      expect(check().ok).toBe(true);
      writeFileSync(join(data, "migration", "mismatches.jsonl"), "");
      const report = check();
      expect(report.ok).toBe(false);
      expect(report.differences.join("\n")).toMatch(/mismatches\.jsonl/);
      // Publishing rewrites the folder from the sources, signed with the given key (added to the keys with trustNewKey).
      const { generateKeyPair } = await import("../../core/signature.ts");
      const k = generateKeyPair("ed25519");
      const signingKey = () => ({
        name: "integrity-platform.example/datasets",
        secretKeyHex: k.secretKey,
        publicKeyHex: k.publicKey,
      });
      expect(() => publishMigration({ dataDir: data, check: false, log: () => {}, signingKey })).toThrow(/not listed/);
      expect(
        publishMigration({ dataDir: data, check: false, trustNewKey: true, log: () => {}, signingKey }).status,
      ).toBe("written");
      expect(publishMigration({ dataDir: data, check: false, log: () => {}, signingKey }).status).toBe("unchanged");
      expect(check().ok).toBe(true);
      expect(verifyMigrationDir(join(data, "migration"), readTrustedKeys(join(data, "keys", "datasets.vkey"))).ok).toBe(
        true,
      );
      // A current folder needs no key: a checkout without the team's key (npm start on a fresh clone) signs nothing.
      const stranger = generateKeyPair("ed25519");
      const strangerKey = () => ({
        name: "integrity-platform.example/datasets",
        secretKeyHex: stranger.secretKey,
        publicKeyHex: stranger.publicKey,
      });
      expect(publishMigration({ dataDir: data, check: false, log: () => {}, signingKey: strangerKey }).status).toBe(
        "unchanged",
      );
      // A folder that must change still needs a listed key.
      writeFileSync(join(data, "migration", "mismatches.jsonl"), "");
      expect(() => publishMigration({ dataDir: data, check: false, log: () => {}, signingKey: strangerKey })).toThrow(
        /not listed/,
      );
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
  });
});
