/**
 * What the balance routes and the live supply read, behind one small interface so the routes stay
 * thin: the ledger (`AppOptions.ledger`) and the published migration tree (`<dataDir>/migration`,
 * opened only when its checkpoint verifies under `<dataDir>/keys/datasets.vkey`), through
 * store/balance-view.ts, at the instant of the server's clock.
 *
 * - Every answer catches the projections up to the ledger's tail first (ProjectionFollower), read
 *   after the request was made (the lookups of one event-loop turn share the read: TailReads), so a
 *   second API instance on the same store answers the same.
 * - The published folder is re-read when its checkpoint or the trusted keys change (checked at most
 *   once per second of the clock): a review round's new checkpoint is served without a restart.
 * - Fails closed: no ledger → `ledger-unavailable`; a folder whose checkpoint does not verify, or
 *   whose leaves do not match it → `data-unverified`, and no balance is answered from it.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { DATASET_KEYS_FILE, parseTrustedKeys } from "../core/datapackage/index.ts";
import { withExactMicFigures } from "../core/balance/exact-json.ts";
import { liveSupplyDocument, SUPPLY_FIGURES, supplyAsOfProjection, type SupplyAsOf } from "../core/economy/supply.ts";
import type { LedgerReader } from "../core/ledger/store.ts";
import { migrationPhase, type MigrationPhase } from "../core/migration/phases.ts";
import type { LeafProof } from "../core/migration/snapshot.ts";
import { MigrationVerifyError } from "../core/migration/verify.ts";
import type { Supply } from "../core/schemas/economy.ts";
import { BalanceView, type BalanceAnswer } from "../store/balance-view.ts";
import { MIGRATION_FILES } from "../store/migration-dir.ts";
import { ProjectionFollower } from "../store/projection-follower.ts";
import { TailReads } from "../store/tail-reads.ts";

/** Which interface a request asks: one version, or the version of the current phase (`/balance`). */
export type BalanceVersion = "v1" | "v2" | "current";

/** Why no balance can be answered at all (before the phase and the address are looked at). */
export interface BalanceUnavailable {
  ok: false;
  code: "ledger-unavailable" | "data-unverified";
  phase: MigrationPhase;
  detail: string;
}

export type BalanceLookup = BalanceAnswer | BalanceUnavailable;

/** The folder the migration tree is published in, under the data folder. */
export const MIGRATION_DIR = "migration";

/** How often (milliseconds of the clock) the published folder is checked for a new checkpoint. */
const CHECK_INTERVAL_MS = 1000;

type Opened = { key: string; view: BalanceView } | { key: string; error: string };

export class Balances {
  readonly #ledger: LedgerReader | undefined;
  readonly #dataDir: string;
  readonly #now: () => Date;
  #opened: Opened | null = null;
  #checkedAt = -Infinity;
  readonly #supply: ProjectionFollower<SupplyAsOf> | null;
  readonly #tail: TailReads | null;

  constructor(options: { ledger?: LedgerReader | undefined; dataDir: string; now: () => Date }) {
    this.#ledger = options.ledger;
    this.#dataDir = options.dataDir;
    this.#now = options.now;
    this.#supply = options.ledger ? new ProjectionFollower(options.ledger, supplyAsOfProjection) : null;
    this.#tail = options.ledger ? new TailReads(options.ledger) : null;
  }

  /**
   * The balance of `address` in `version` at the clock's instant, caught up with a read of the
   * ledger's tail made after the call (shared by the lookups of one event-loop turn: store/tail-reads.ts).
   */
  async lookup(version: BalanceVersion, address: string): Promise<BalanceLookup> {
    const tail = this.#tail ? await this.#tail.size() : undefined;
    const at = this.#now();
    const view = this.#view(at);
    if (!(view instanceof BalanceView)) return view;
    return version === "v1" ? view.v1(address, at, tail) : version === "v2" ? view.v2(address, at, tail) : view.balance(address, at, tail);
  }

  /** The address's last leaf in the published tree with its inclusion proof against the newest checkpoint. */
  proof(address: string): { ok: true; proof: LeafProof } | { ok: false; code: "no-snapshot" } | { ok: false; code: "unknown-address" } | BalanceUnavailable {
    const view = this.#view(this.#now());
    if (!(view instanceof BalanceView)) return view;
    if (!view.hasSnapshot) return { ok: false, code: "no-snapshot" };
    const found = view.historical(address);
    return found ? { ok: true, proof: found.proof } : { ok: false, code: "unknown-address" };
  }

  /** The live supply document, or null without a ledger. */
  supply(): Supply | null {
    return this.#supply ? liveSupplyDocument(this.#supply.catchUp(), this.#now()) : null;
  }

  /** The live documents of the data areas by canonical path (api/routes/areas.ts): none without a ledger. */
  liveDocuments(): Record<string, () => unknown> {
    return this.#supply ? { "/economy/supply": () => withExactMicFigures(this.supply()!, SUPPLY_FIGURES) } : {};
  }

  /** The view at `at`, or why there is none. */
  #view(at: Date): BalanceView | BalanceUnavailable {
    const phase = migrationPhase(at);
    if (!this.#ledger) return { ok: false, code: "ledger-unavailable", phase, detail: "this server has no ledger, so it answers no balance" };
    const opened = this.#open(at);
    return "error" in opened ? { ok: false, code: "data-unverified", phase, detail: opened.error } : opened.view;
  }

  /** The view of the published folder, re-opened when its checkpoint or the trusted keys changed. */
  #open(at: Date): Opened {
    const ms = at.getTime();
    if (this.#opened && ms - this.#checkedAt < CHECK_INTERVAL_MS && ms >= this.#checkedAt) return this.#opened;
    this.#checkedAt = ms;
    const migrationDir = join(this.#dataDir, MIGRATION_DIR);
    const keysFile = join(this.#dataDir, "keys", DATASET_KEYS_FILE);
    const read = (path: string) => (existsSync(path) ? readFileSync(path, "utf8") : "");
    const keysText = read(keysFile);
    const key = `${read(join(migrationDir, MIGRATION_FILES.checkpoint))}\u0000${keysText}`;
    if (this.#opened?.key === key) return this.#opened;
    try {
      const trusted = keysText === "" ? [] : parseTrustedKeys(keysText, keysFile);
      this.#opened = { key, view: new BalanceView({ reader: this.#ledger!, migrationDir, trusted }) };
    } catch (error) {
      const why = error instanceof MigrationVerifyError ? `its checkpoint does not verify (${error.code})` : "its leaves, summary or keys could not be read or do not match its signed checkpoint";
      this.#opened = { key, error: `the published migration snapshot failed verification: ${why}; no balance is answered from it` };
    }
    return this.#opened;
  }
}
