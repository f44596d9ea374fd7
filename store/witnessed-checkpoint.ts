/**
 * The published witnessed checkpoint (`<dataDir>/ledger/checkpoint`, written with its cosignatures
 * by `npm run ledger -- witness` once the policy's quorum is met) as the API's inclusion proofs use
 * it: only when it is of this ledger (same origin), carries at least one signature line beyond the
 * log's, and its root is the ledger's root at its size. Read again only when the file changes.
 */
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseCheckpoint } from "../core/checkpoint.ts";
import type { LedgerReader } from "../core/ledger/store.ts";
import { equalBytes } from "../core/merkle.ts";
import { splitNote } from "../core/witness/cosignature.ts";

export interface WitnessedNote {
  note: string;
  size: number;
}

/** A reader of the witnessed checkpoint for `ledger`; null when there is none fit to serve. */
export function witnessedCheckpointReader(
  dataDir: string | undefined,
  ledger: LedgerReader,
): () => Promise<WitnessedNote | null> {
  let cached: { key: string; value: WitnessedNote | null } | null = null;
  return async () => {
    if (dataDir === undefined) return null;
    const path = join(dataDir, "ledger", "checkpoint");
    let key: string;
    try {
      const s = statSync(path);
      key = `${s.mtimeMs}:${s.size}`;
    } catch {
      return null;
    }
    if (cached?.key === key) return cached.value;
    let value: WitnessedNote | null = null;
    try {
      const note = readFileSync(path, "utf8");
      const { body, lines } = splitNote(note);
      const checkpoint = parseCheckpoint(body);
      const fits =
        lines.length > 1 &&
        checkpoint.origin === ledger.origin &&
        checkpoint.size > 0 &&
        checkpoint.size <= (await ledger.size()) &&
        equalBytes(await ledger.rootHash(checkpoint.size), checkpoint.rootHash);
      if (fits) value = { note, size: checkpoint.size };
    } catch {
      value = null;
    }
    cached = { key, value };
    return value;
  };
}
