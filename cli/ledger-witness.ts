/**
 * `npm run ledger -- witness --policy FILE [--checkpoint FILE] [--db PATH] [--data DIR] [--timeout MS]`:
 * a witness round for the ledger's latest checkpoint, or for the one `--checkpoint` names (the
 * regeneration workflow names the one it just published) (pipeline/witnessing.ts), then, only when the policy's quorum
 * is met, its publication:
 *
 *   stdout                         the cosigned checkpoint (body, empty line, the log's signature and
 *                                  every cosignature obtained)
 *   DATA/ledger/checkpoint         the same note, which the next `npm run site:build` publishes: it
 *                                  replaces a published checkpoint of the same tree, or a smaller one
 *                                  together with the tiles (pipeline/ledger-publication.ts); the
 *                                  API's inclusion proofs use it too (store/witnessed-checkpoint.ts)
 *
 * A quorum not met exits 1 naming it and each witness's answer, and publishes nothing. What each
 * witness last cosigned is remembered in STATE_DIR/ledger/witness-sizes.json so the next round sends
 * the right old size at once (a stale one costs one 409 more).
 *
 * `npm run ledger -- vkey`: this installation's ledger key as a note verifier key (the last line).
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseCheckpoint, verifierKey, verifyCheckpoint } from "../core/checkpoint.ts";
import { splitNote } from "../core/witness/cosignature.ts";
import { parsePolicy } from "../core/witness/policy.ts";
import { LEDGER_KEY, loadSigningKey } from "../store/keys.ts";
import type { Ledger } from "../store/ledger/ledger.ts";
import { ledgerExists, openLedger, shownLocation, stateDir } from "../store/open-ledger.ts";
import { LEDGER_CHECKPOINT, publishLedgerCheckpoint } from "../pipeline/ledger-publication.ts";
import { witnessRound } from "../pipeline/witnessing.ts";
import { writeFileAtomic } from "../store/files.ts";

const SIZES = join("ledger", "witness-sizes.json");

export function ledgerVkey(env: NodeJS.ProcessEnv = process.env): string {
  const key = loadSigningKey(LEDGER_KEY, stateDir(env), env, (m) => process.stderr.write(`${m}\n`));
  return verifierKey(key.name, key.publicKeyHex);
}

/** What each witness last cosigned, as far as the log knows (a hint: a wrong one costs one 409). */
function readSizes(path: string): Record<string, number> {
  try {
    const value: unknown = existsSync(path) ? JSON.parse(readFileSync(path, "utf8")) : {};
    if (typeof value !== "object" || value === null) return {};
    return Object.fromEntries(
      Object.entries(value).filter((e): e is [string, number] => Number.isSafeInteger(e[1]) && (e[1] as number) >= 0),
    );
  } catch {
    return {};
  }
}

export interface WitnessCommandOptions {
  policyFile: string;
  db: string;
  dataDir: string;
  timeoutMs: number;
  /** Witness this checkpoint of the ledger (e.g. the one just published) instead of its latest. */
  checkpointFile?: string;
}

export async function witnessCommand(options: WitnessCommandOptions): Promise<number> {
  const err = (m: string) => process.stderr.write(`${m}\n`);
  const policy = parsePolicy(readFileSync(options.policyFile, "utf8"));
  const state = stateDir();
  const key = loadSigningKey(LEDGER_KEY, state, process.env, err);
  if (!policy.logs.some((l) => l.publicKeyHex === key.publicKeyHex && l.name === key.name)) {
    err(
      `ledger witness: ${options.policyFile} does not list this ledger's key ${verifierKey(key.name, key.publicKeyHex)}`,
    );
    return 2;
  }
  // The ledger is opened only when something needs it: a given checkpoint that no witness needs a
  // proof for (a quorum of none, a witness at the same size) is witnessed without any database.
  let opened: Promise<Ledger> | null = null;
  const ledger = () =>
    (opened ??= ledgerExists(options.db).then(async (found) => {
      if (!found) throw new Error(`no ledger at ${shownLocation(options.db)}: a witness's consistency proof needs it`);
      return (await openLedger({ path: options.db, log: err })).ledger;
    }));
  try {
    let note: string;
    if (options.checkpointFile !== undefined) {
      note = readFileSync(options.checkpointFile, "utf8");
      try {
        verifyCheckpoint(note, [{ name: key.name, publicKeyHex: key.publicKeyHex }]);
      } catch (error) {
        err(
          `ledger witness: ${options.checkpointFile} is not a checkpoint signed with this ledger's key: ${(error as Error).message}`,
        );
        return 2;
      }
    } else {
      const l = await ledger();
      const latest = await l.latestCheckpoint();
      note =
        latest !== null && parseCheckpoint(splitNote(latest).body).size === (await l.size())
          ? latest
          : await l.checkpoint();
    }
    const size = parseCheckpoint(splitNote(note).body).size;
    const sizesPath = join(state, SIZES);
    const knownSizes = readSizes(sizesPath);
    const round = await witnessRound({
      note,
      policy,
      timeoutMs: options.timeoutMs,
      knownSizes,
      consistencyProof: async (old) => (await ledger()).consistencyProof(old, size),
    });
    writeFileAtomic(sizesPath, `${JSON.stringify({ ...knownSizes, ...round.sizes }, null, 2)}\n`);
    for (const o of round.outcomes) err(`${o.ok ? "cosigned" : "FAILED  "} ${o.id} ${o.url}: ${o.detail}`);
    const got = round.outcomes.filter((o) => o.ok).map((o) => o.id);
    if (!round.met) {
      err(
        `ledger witness: ${round.quorum} NOT met — cosigned by ${got.length > 0 ? got.join(", ") : "no witness"}; nothing published`,
      );
      return 1;
    }
    process.stdout.write(round.note);
    err(`ledger witness: ${round.quorum} met — cosigned by ${got.join(", ") || "no witness"} (size ${size})`);
    const published = join(options.dataDir, LEDGER_CHECKPOINT);
    const body = splitNote(round.note).body;
    if (existsSync(published) && splitNote(readFileSync(published, "utf8")).body === body) {
      writeFileAtomic(published, round.note);
      err(`published the cosigned checkpoint at ${published}`);
    } else {
      try {
        await publishLedgerCheckpoint({
          dataDir: options.dataDir,
          ledger: await ledger(),
          sign: () => ({ note: round.note, signer: { name: key.name, publicKeyHex: key.publicKeyHex } }),
          trustNewKey: false,
        });
        err(`published the cosigned checkpoint and its tiles under ${dirname(published)}`);
      } catch (error) {
        err(`not published at ${published}: ${(error as Error).message}`);
      }
    }
    return 0;
  } finally {
    if (opened !== null)
      await (opened as Promise<Ledger>).then(
        (l) => l.close(),
        () => undefined,
      );
  }
}
