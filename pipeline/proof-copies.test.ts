import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCheckpoint } from "../core/checkpoint.ts";
import type { NewEvent } from "../core/ledger/store.ts";
import { consensusProjection } from "../core/consensus/state.ts";
import { sealedProofFile } from "../store/consensus-registry.ts";
import { main as consensusCli } from "../cli/consensus-cli.ts";
import { openLedger } from "../store/open-ledger.ts";
import { tempDir } from "../test/support/store/helpers.ts";
import { LEDGER_CHECKPOINT, publishLedgerCheckpoint } from "./ledger-publication.ts";
import { PROOF_COPIES_DIR, publishProofCopies } from "./proof-copies.ts";
import { simulate } from "./seed/simulate.ts";

const { dir, cleanup } = tempDir("proof-copies-");
afterAll(cleanup);
const env: NodeJS.ProcessEnv = {
  ...process.env,
  STATE_DIR: join(dir, "state"),
  LEDGER_DB: join(dir, "state", "ledger.sqlite"),
};
delete env.LEDGER_SIGNING_KEY;
delete env.LEDGER_SIGNING_KEY_FILE;
const dataDir = join(dir, "data");
const copiesDir = join(dataDir, PROOF_COPIES_DIR);
const log = () => {};

/** Three weeks of sample ledger: the first `split` events now, the rest by `appendRest`. */
const events: NewEvent[] = [
  ...simulate({ seed: "proof-copies", size: 800, now: new Date("2025-07-25T12:00:00.000Z") }),
];
const split = Math.floor(events.length / 2);

async function withLedger<T>(use: (opened: Awaited<ReturnType<typeof openLedger>>) => T | Promise<T>): Promise<T> {
  const opened = await openLedger({ env, durability: "normal" });
  try {
    return await use(opened);
  } finally {
    await opened.ledger.close();
  }
}

/** What the pipeline run does after its areas: publish the ledger's checkpoint, then the proof copies. */
function pipelineRun(check = false) {
  return withLedger(async ({ ledger, key }) => {
    if (!check)
      await publishLedgerCheckpoint({
        dataDir,
        ledger,
        sign: async () => ({ note: await ledger.checkpoint(), signer: key }),
        trustNewKey: false,
      });
    return await publishProofCopies({ dataDir, ledger, check, log });
  });
}

/** The size the published checkpoint (a signed note) is for. */
const publishedSize = () => {
  const note = readFileSync(join(dataDir, LEDGER_CHECKPOINT), "utf8");
  return parseCheckpoint(note.slice(0, note.indexOf("\n\n") + 1)).size;
};
const read = (d: string) =>
  Object.fromEntries(
    readdirSync(d)
      .sort()
      .map((n) => [n, readFileSync(join(d, n), "utf8")]),
  );
const sealedIds = () =>
  withLedger(async ({ ledger }) =>
    [...(await ledger.state(consensusProjection)).proofs.values()]
      .filter((p) => p.seal)
      .map((p) => p.inputs.delib_id)
      .sort(),
  );

beforeAll(async () => {
  await withLedger(async ({ ledger }) => await ledger.append(events.slice(0, split)));
});

describe("the static copies of the sealed proofs (data/consensus/proofs)", () => {
  let first: Record<string, string> = {};

  it("writes one copy per sealed proof, each the proof file the API answers and export-proof writes", async () => {
    const report = await pipelineRun();
    const ids = await sealedIds();
    expect(ids.length).toBeGreaterThan(0);
    expect(report).toEqual({ ok: true, written: ids.length, kept: 0, removed: 0, differences: [] });
    first = read(copiesDir);
    expect(Object.keys(first).sort()).toEqual(ids.map((id) => `${id}.json`).sort());
    // The ledger's newest checkpoint is the published one: the store's proof file (the API's body) is the copy.
    await withLedger(async ({ ledger }) => {
      const state = await ledger.state(consensusProjection);
      for (const id of ids) expect(first[`${id}.json`]).toBe(await sealedProofFile(ledger, state, id));
    });
  });

  it("is deterministic: a second run writes nothing, and a fresh data folder gets the same bytes", async () => {
    expect(await pipelineRun()).toMatchObject({ ok: true, written: 0, kept: Object.keys(first).length });
    const fresh = join(dir, "fresh");
    cpSync(join(dataDir, "keys"), join(fresh, "keys"), { recursive: true });
    cpSync(join(dataDir, "ledger", "checkpoint"), join(fresh, LEDGER_CHECKPOINT));
    await withLedger(async ({ ledger }) => await publishProofCopies({ dataDir: fresh, ledger, check: false, log }));
    expect(read(join(fresh, PROOF_COPIES_DIR))).toEqual(first);
  });

  it("verifies offline with npm run consensus -- verify-proof", async () => {
    const file = join(copiesDir, Object.keys(first)[0]!);
    const out: string[] = [];
    const err: string[] = [];
    const code = await consensusCli(
      ["verify-proof", file, "--key", join(dataDir, "keys", "ledger.vkey")],
      env,
      (l) => out.push(l),
      (l) => err.push(l),
    );
    expect(code, err.join("\n")).toBe(0);
    expect(out.join("\n")).toContain("verified");
  });

  it("--check names a changed, a missing and a stray copy; the next run repairs them", async () => {
    expect(await pipelineRun(true)).toMatchObject({ ok: true, differences: [] });
    const [a, b] = Object.keys(first);
    const changed = first[a!]!.replace(/"question":"/, '"question":"X');
    writeFileSync(join(copiesDir, a!), changed);
    rmSync(join(copiesDir, b!));
    writeFileSync(join(copiesDir, "DP-1-99.json"), "{}\n");
    const check = await pipelineRun(true);
    expect((await check).ok).toBe(false);
    expect((await check).differences.sort()).toEqual(
      [
        `${join(copiesDir, a!)}: differs from the proof file the ledger gives`,
        `${join(copiesDir, b!)}: missing`,
        `${join(copiesDir, "DP-1-99.json")}: not a proof sealed within ${join(dataDir, LEDGER_CHECKPOINT)}`,
      ].sort(),
    );
    expect(readFileSync(join(copiesDir, a!), "utf8")).toBe(changed); // --check writes nothing
    expect(await pipelineRun()).toMatchObject({ ok: true, written: 2, removed: 1 });
    expect(read(copiesDir)).toEqual(first);
  });

  it("never rewrites a copy: after the ledger grows, old copies keep their checkpoint, new ones get the new one", async () => {
    await withLedger(async ({ ledger }) => await ledger.append(events.slice(split)));
    const before = publishedSize();
    const report = await pipelineRun();
    const after = publishedSize();
    expect(after).toBeGreaterThan(before);
    const now = read(copiesDir);
    const added = Object.keys(now).filter((n) => !(n in first));
    expect(added.length).toBeGreaterThan(0);
    expect(report).toMatchObject({ ok: true, written: added.length, kept: Object.keys(first).length });
    for (const [name, text] of Object.entries(first)) expect(now[name]).toBe(text);
    for (const name of added)
      expect((JSON.parse(now[name]!) as { anchor: { tree_size: number } }).anchor.tree_size).toBe(after);
    expect(await pipelineRun(true)).toMatchObject({ ok: true, differences: [] });
    // An old copy, anchored to the smaller checkpoint, still verifies against the grown ledger.
    const code = await consensusCli(
      ["verify-proof", join(copiesDir, Object.keys(first)[0]!), "--key", join(dataDir, "keys", "ledger.vkey")],
      env,
      log,
      log,
    );
    expect(code).toBe(0);
  });

  it("--check without a published checkpoint says so; a run without one refuses", async () => {
    const empty = join(dir, "empty");
    await withLedger(async ({ ledger }) => {
      expect(await publishProofCopies({ dataDir: empty, ledger, check: true, log })).toMatchObject({
        ok: false,
        differences: [expect.stringContaining("is missing")],
      });
      await expect(publishProofCopies({ dataDir: empty, ledger, check: false, log })).rejects.toThrow(
        /no published checkpoint/,
      );
    });
    expect(existsSync(join(empty, PROOF_COPIES_DIR))).toBe(false);
  });
});
