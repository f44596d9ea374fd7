/**
 * The pipeline's static copy of a sealed proof is what the API answers for it: a real SQLite ledger
 * (three weeks of sample events, sessions sealed by the simulator), its checkpoint published into a
 * data folder and the copies written as the pipeline run does (pipeline/ledger-publication.ts,
 * pipeline/proof-copies.ts), then `GET /v1/consensus/proofs/{delib_id}` over HTTP on loopback from
 * the API on the same ledger — the same bytes for every sealed proof.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NewEvent } from "../core/ledger/store.ts";
import {
  openTestLedger,
  serveLedger,
  TEST_LEDGER_PUBLIC_KEY,
  TEST_LEDGER_SIGNER,
} from "./support/api/routes/consensus.ts";
import type { RunningServer } from "../api/server/server.ts";
import { tempDir } from "./support/api/helpers.ts";
import { publishLedgerCheckpoint } from "../pipeline/ledger-publication.ts";
import { PROOF_COPIES_DIR, publishProofCopies } from "../pipeline/proof-copies.ts";
import { simulate } from "../pipeline/seed/simulate.ts";
import type { Ledger } from "../store/ledger/ledger.ts";

const { dir, cleanup } = tempDir("proof-copies-api-");
const dataDir = join(dir, "data");
let ledger: Ledger;
let server: RunningServer;

beforeAll(async () => {
  ledger = await openTestLedger(join(dir, "ledger.sqlite"), { durability: "normal" });
  let batch: NewEvent[] = [];
  for (const e of simulate({ seed: "proof-copies-api", size: 800, now: new Date("2025-07-25T12:00:00.000Z") })) {
    batch.push(e);
    if (batch.length === 500) (await ledger.append(batch), (batch = []));
  }
  await ledger.append(batch);
  const signer = { name: TEST_LEDGER_SIGNER.name, publicKeyHex: TEST_LEDGER_PUBLIC_KEY };
  await publishLedgerCheckpoint({
    dataDir,
    ledger,
    sign: async () => ({ note: await ledger.checkpoint(), signer }),
    trustNewKey: false,
  });
  await publishProofCopies({ dataDir, ledger, check: false, log: () => {} });
  server = await serveLedger(ledger, dir);
});

afterAll(async () => {
  await server?.close();
  ledger?.close();
  cleanup();
});

describe("a static proof copy and the API", () => {
  it("answers GET /v1/consensus/proofs/{delib_id} with the copy's bytes, for every sealed proof", async () => {
    const copies = readdirSync(join(dataDir, PROOF_COPIES_DIR)).sort();
    expect(copies.length).toBeGreaterThan(0);
    for (const name of copies) {
      const id = name.replace(/\.json$/, "");
      const res = await fetch(`${server.url}/v1/consensus/proofs/${id}`);
      expect(res.status, id).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/json");
      const body = Buffer.from(await res.arrayBuffer());
      expect(body.equals(readFileSync(join(dataDir, PROOF_COPIES_DIR, name))), id).toBe(true);
    }
  });
});
