/**
 * The live `/economy/supply` over real HTTP against the pipeline's `supply.json`: the sample ledger
 * (data/sources/sample.json) appended to a real SQLite ledger in steps while the API serves it; at
 * every ledger size the live document equals the document the pipeline's supply step writes from
 * the same entries (no pulse, so both are dated at the ledger's newest entry), and the API folds
 * only the entries appended since its last answer — it never re-reads the ledger.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LedgerEntry } from "../core/ledger/entry.ts";
import type { LedgerReader, NewEvent } from "../core/ledger/store.ts";
import { Balances } from "../api/sources/balances.ts";
import { createApp } from "../api/app.ts";
import { listen, type RunningServer } from "../api/server/server.ts";
import { tempDir } from "./support/api/helpers.ts";
import { supplyStep } from "../pipeline/areas/economy/supply.ts";
import { factsOf } from "../pipeline/facts/accumulate.ts";
import { sampleOptions } from "../pipeline/seed/sample-options.ts";
import { simulate } from "../pipeline/seed/simulate.ts";
import type { Ledger } from "../store/ledger/ledger.ts";
import { openLedgerStore } from "../store/open-ledger.ts";

const REPO_DATA = join(import.meta.dirname, "../data");
const sample = sampleOptions(REPO_DATA);
const events: NewEvent[] = [...simulate({ seed: sample.seed, size: sample.size, now: new Date(sample.now) })];

const made = tempDir("live-supply-");
let ledger: Ledger;
let server: RunningServer;

beforeAll(async () => {
  ledger = await openLedgerStore({
    path: join(made.dir, "ledger.sqlite"),
    origin: "live-supply-test",
    durability: "normal",
  });
  server = await listen(createApp({ dataDir: REPO_DATA, ledger, log: () => {} }), "127.0.0.1", 0);
});
afterAll(async () => {
  await server?.close();
  ledger?.close();
  made.cleanup();
});

/** What the pipeline's supply step publishes for these entries. */
function pipelineSupply(entries: readonly LedgerEntry[]): unknown {
  const text = supplyStep.generate({ facts: factsOf(entries), pulse: [], sources: undefined as never }, new Map());
  return JSON.parse(typeof text === "string" ? text : new TextDecoder().decode(text));
}

describe("GET /economy/supply, live", () => {
  it("equals the pipeline's supply.json at every ledger size as the ledger grows", async () => {
    for (const size of [1, 250, 3_000, 7_000, events.length]) {
      for (let from = await ledger.size(); from < size; from += 1000)
        await ledger.append(events.slice(from, Math.min(size, from + 1000)));
      const response = await fetch(`${server.url}/economy/supply`);
      expect(response.status, `at ${size}`).toBe(200);
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect(response.headers.get("ratelimit-policy")).toBe('"daily";q=100;w=86400');
      expect(await response.json(), `at ${size}`).toEqual(pipelineSupply(await Array.fromAsync(ledger.entries())));
    }
    // The whole sample gives the committed figures (supply.json is dated by the newest pulse as well).
    const committed = JSON.parse(readFileSync(join(REPO_DATA, "areas", "economy", "supply.json"), "utf8")) as Record<
      string,
      unknown
    >;
    const live = (await (await fetch(`${server.url}/economy/supply`)).json()) as Record<string, unknown>;
    for (const figure of ["total_supply", "circulating", "locked", "burned"]) {
      expect(live[figure], figure).toBe(committed[figure]);
      expect(live[`${figure}_shards`], `${figure}_shards`).toBe(committed[`${figure}_shards`]);
    }
    // The published file stays the published file.
    const file = await fetch(`${server.url}/economy/supply.json`);
    expect(
      Buffer.from(await file.arrayBuffer()).equals(readFileSync(join(REPO_DATA, "areas", "economy", "supply.json"))),
    ).toBe(true);
  });

  it("folds only the entries appended since the last answer", async () => {
    const read: [number, number][] = [];
    const counting: LedgerReader = new Proxy(ledger, {
      get(target, name) {
        if (name === "entries")
          return (start: number, end: number) => (read.push([start, end]), target.entries(start, end));
        const value = Reflect.get(target, name) as unknown;
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const balances = new Balances({ ledger: counting, dataDir: REPO_DATA, now: () => new Date() });
    const size = await ledger.size();
    await balances.supply();
    await balances.supply();
    expect(read).toEqual([[0, size]]);
    const last = (await Array.fromAsync(ledger.entries(size - 1, size)))[0]!;
    await ledger.append([
      { type: "mic_burn", payload: { account: "ATLAS", amount_shards: "1", reason: "live supply test" }, ts: last.ts },
    ]);
    expect((await balances.supply())?.burned).toBe(
      (pipelineSupply(await Array.fromAsync(ledger.entries())) as { burned: number }).burned,
    );
    expect(read).toEqual([
      [0, size],
      [size, size + 1],
    ]);
  });
});

describe("GET /economy/supply past 2^53 shards", () => {
  it("answers the exact shard strings, and the numbers' text written from them (not a double's)", async () => {
    const own = tempDir("live-supply-big-");
    const big = await openLedgerStore({
      path: join(own.dir, "ledger.sqlite"),
      origin: "live-supply-big",
      durability: "normal",
    });
    const bigServer = await listen(createApp({ dataDir: REPO_DATA, ledger: big, log: () => {} }), "127.0.0.1", 0);
    try {
      const mint = events.find((e) => e.type === "mic_mint")!;
      const minted = 2n ** 63n - 1n;
      const locked = 2n ** 53n + 2n; // 9007199254.740994 MIC; through a double it reads …740993
      big.append([
        { ...mint, payload: { ...mint.payload, amount_shards: minted.toString() } },
        {
          type: "mic_lock",
          payload: { account: "ATLAS", amount_shards: locked.toString(), contract: "exact-test" },
          ts: mint.ts,
        },
      ]);
      const text = await (await fetch(`${bigServer.url}/economy/supply`)).text();
      const doc = JSON.parse(text) as Record<string, unknown>;
      expect([doc.total_supply_shards, doc.locked_shards, doc.circulating_shards, doc.burned_shards]).toEqual(
        [minted, locked, minted - locked, 0n].map(String),
      );
      expect(text).toContain('"total_supply":9223372036854.775807,');
      expect(text).toContain('"locked":9007199254.740994,');
      expect(text).toContain('"circulating":9214364837600.034813,');
      expect(text).toContain('"burned":0,');
    } finally {
      await bigServer.close();
      big.close();
      own.cleanup();
    }
  });
});
