/**
 * The balance lookup: what the balance routes and the live supply answer, in one place, so the
 * routes only parse, call and answer (a failure's problem: api/problems/refusals.ts). It reads the
 * ledger (`AppOptions.ledger`) and the published migration tree (`<dataDir>/migration`, opened only
 * when its checkpoint verifies under `<dataDir>/keys/datasets.vkey`: store/published-snapshot.ts),
 * at the instant of the server's clock. The phase at that instant decides (core/migration/phases.ts):
 *
 *   v1        announcement → the ledger's balance; snapshot day → frozen at the snapshot;
 *             transition → forwarded from v2; sunset → `gone`
 *   v2        from the transition on: the snapshot plus the ledger's movements dated at or after
 *             the snapshot instant; before → `not-yet`
 *   current   the version of the phase (v1 until the transition, then v2)
 *   proof     the address's last leaf in the published tree with its inclusion proof (every phase)
 *
 * - Every lookup catches its projections up to the ledger's tail (store/ledger/projection-follower.ts),
 *   read after the request was made (the lookups of one event-loop turn share the read:
 *   store/ledger/tail-reads.ts), so a second API instance on the same store answers the same.
 * - The published folder is re-read when its checkpoint or the trusted keys change (checked at most
 *   once per second of the clock): a review round's new checkpoint is served without a restart.
 * - Fails closed: no ledger → `ledger-unavailable`; a folder whose checkpoint does not verify, or
 *   whose leaves do not match it → `data-unverified`, and nothing is answered from it.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { balancesProjection, type Holdings } from "../../core/balance/ledger-balances.ts";
import { balanceV1Record, balanceV2Record, v2BalanceShards } from "../../core/balance/records.ts";
import { DATASET_KEYS_FILE, parseTrustedKeys } from "../../core/datapackage/index.ts";
import { withExactMicFigures } from "../../core/balance/exact-json.ts";
import { routePath } from "../../core/areas/declaration.ts";
import { economy } from "../../core/areas/economy.ts";
import { liveSupplyDocument, SUPPLY_FIGURES, supplyAsOfProjection } from "../../core/economy/supply.ts";
import type { Projection } from "../../core/ledger/projection.ts";
import type { LedgerReader } from "../../core/ledger/store.ts";
import { balanceInterface, migrationPhase, type MigrationPhase } from "../../core/migration/phases.ts";
import type { LeafProof } from "../../core/migration/snapshot.ts";
import { MigrationVerifyError } from "../../core/migration/verify.ts";
import type { BalanceV1, BalanceV2 } from "../../core/schemas/balance.ts";
import type { Supply } from "../../core/schemas/economy.ts";
import { MIGRATION_FILES } from "../../store/migration-dir.ts";
import { ProjectionFollower } from "../../store/ledger/projection-follower.ts";
import { openPublishedSnapshot, proveAddress, type PublishedSnapshot } from "../../store/published-snapshot.ts";
import { TailReads } from "../../store/ledger/tail-reads.ts";

/** Which interface a request asks: one version, or the version of the current phase (`/balance`). */
export type BalanceVersion = "v1" | "v2" | "current";

/** What a failed lookup was asked: a balance in one version, or the address's migration proof. */
export type BalanceQuestion = "v1" | "v2" | "proof";

/**
 * Why there is no answer — the one failure union of the balance routes:
 * `ledger-unavailable`: this server has no ledger; `data-unverified`: the published folder does not
 * verify (both with a `detail` for the client); `no-snapshot`: the answer needs the published
 * snapshot and none is published yet; `unknown-address`: no balance (or no leaf) for the address;
 * `gone`: v1 after the sunset; `not-yet`: v2 before the transition.
 */
export type BalanceFailure = { ok: false; asked: BalanceQuestion; phase: MigrationPhase } & (
  | { code: "ledger-unavailable" | "data-unverified"; detail: string }
  | { code: "no-snapshot" | "unknown-address" | "gone" | "not-yet" }
);

export type BalanceAnswer =
  | { ok: true; version: "v1"; phase: MigrationPhase; record: BalanceV1; forwarded: boolean }
  | { ok: true; version: "v2"; phase: MigrationPhase; record: BalanceV2 }
  | BalanceFailure;

export type ProofAnswer = { ok: true; proof: LeafProof } | BalanceFailure;

/** Where the retired v1 balance of `address` stays readable. */
export const historicalPath = (address: string) => `/migration/proof/${address}`;
/** v1's successor: the v2 balance of `address`, and its RFC 8288 link. */
export const successorPath = (address: string) => `/v2/balance/${address}`;
export const successorLink = (address: string) => `<${successorPath(address)}>; rel="successor-version"`;

/** The folder the migration tree is published in, under the data folder. */
export const MIGRATION_DIR = "migration";

/** How often (milliseconds of the clock) the published folder is checked for a new checkpoint. */
const CHECK_INTERVAL_MS = 1000;

/** The published folder as last opened: its snapshot (null: none published yet), or why it failed. */
type Opened = { key: string; published: PublishedSnapshot | null } | { key: string; error: string };

export class Balances {
  readonly #ledger: LedgerReader | undefined;
  readonly #dataDir: string;
  readonly #now: () => Date;
  readonly #follower: ProjectionFollower | null;
  readonly #tail: TailReads | null;
  /** Every address's holdings (v1 before the snapshot). */
  readonly #holdings = balancesProjection();
  /** The movements dated at or after a snapshot instant, by instant (one per published snapshot: a review round keeps it). */
  readonly #since = new Map<string, Projection<Holdings>>();
  #opened: Opened | null = null;
  #checkedAt = -Infinity;

  constructor(options: { ledger?: LedgerReader | undefined; dataDir: string; now: () => Date }) {
    this.#ledger = options.ledger;
    this.#dataDir = options.dataDir;
    this.#now = options.now;
    this.#follower = options.ledger ? new ProjectionFollower(options.ledger) : null;
    this.#tail = options.ledger ? new TailReads(options.ledger) : null;
  }

  /**
   * The balance of `address` in `version` at the clock's instant, caught up with a read of the
   * ledger's tail made after the call (shared by the lookups of one event-loop turn).
   */
  async lookup(version: BalanceVersion, address: string): Promise<BalanceAnswer> {
    const tail = this.#tail ? await this.#tail.size() : 0;
    const at = this.#now();
    const phase = migrationPhase(at);
    const asked = version === "current" ? balanceInterface(phase).current : version;
    const published = this.#published(at, asked, phase);
    if (published !== null && "ok" in published) return published;
    return asked === "v1" ? this.#v1(address, phase, published, tail) : this.#v2(address, phase, published, tail);
  }

  /** The address's last leaf in the published tree with its inclusion proof against the newest checkpoint. */
  proof(address: string): ProofAnswer {
    const at = this.#now();
    const phase = migrationPhase(at);
    const published = this.#published(at, "proof", phase);
    if (published !== null && "ok" in published) return published;
    if (!published) return { ok: false, asked: "proof", phase, code: "no-snapshot" };
    const proof = proveAddress(published, address);
    return proof ? { ok: true, proof } : { ok: false, asked: "proof", phase, code: "unknown-address" };
  }

  /** The live supply document, or null without a ledger. */
  async supply(): Promise<Supply | null> {
    if (!this.#ledger || !this.#follower) return null;
    const size = await this.#tail!.size();
    return liveSupplyDocument(await this.#follower.at(supplyAsOfProjection, size), this.#now());
  }

  /** The live documents of the data areas by canonical path (api/routes/areas.ts): none without a ledger. */
  liveDocuments(): Record<string, () => Promise<unknown>> {
    return this.#ledger
      ? { [routePath(economy, "supply")]: async () => withExactMicFigures((await this.supply())!, SUPPLY_FIGURES) }
      : {};
  }

  async #v1(
    address: string,
    phase: MigrationPhase,
    published: PublishedSnapshot | null,
    tail: number,
  ): Promise<BalanceAnswer> {
    const mode = balanceInterface(phase).v1;
    if (mode === "gone") return { ok: false, asked: "v1", phase, code: "gone" };
    let shards: bigint | null | undefined;
    if (mode === "live") shards = (await this.#follower!.at(this.#holdings, tail)).get(address)?.available;
    else if (!published) return { ok: false, asked: "v1", phase, code: "no-snapshot" };
    else if (mode === "frozen") shards = published.balances.get(address);
    else shards = v2BalanceShards(address, published.balances, await this.#movementsSince(published, tail));
    if (shards === undefined || shards === null) return { ok: false, asked: "v1", phase, code: "unknown-address" };
    return { ok: true, version: "v1", phase, record: balanceV1Record(shards), forwarded: mode === "forwarded" };
  }

  async #v2(
    address: string,
    phase: MigrationPhase,
    published: PublishedSnapshot | null,
    tail: number,
  ): Promise<BalanceAnswer> {
    if (balanceInterface(phase).v2 === "absent") return { ok: false, asked: "v2", phase, code: "not-yet" };
    if (!published) return { ok: false, asked: "v2", phase, code: "no-snapshot" };
    const shards = v2BalanceShards(address, published.balances, await this.#movementsSince(published, tail));
    if (shards === null) return { ok: false, asked: "v2", phase, code: "unknown-address" };
    return { ok: true, version: "v2", phase, record: balanceV2Record(shards) };
  }

  /** The ledger's movements dated at or after the snapshot instant, up to `tail`. */
  #movementsSince(published: PublishedSnapshot, tail: number): Promise<Holdings> {
    const from = published.summary.snapshot_at;
    let projection = this.#since.get(from);
    if (!projection) this.#since.set(from, (projection = balancesProjection({ from })));
    return this.#follower!.at(projection, tail);
  }

  /** The published snapshot at `at` (null: none published yet), or why no answer can be given at all. */
  #published(at: Date, asked: BalanceQuestion, phase: MigrationPhase): PublishedSnapshot | null | BalanceFailure {
    if (!this.#ledger)
      return {
        ok: false,
        asked,
        phase,
        code: "ledger-unavailable",
        detail: "this server has no ledger, so it answers no balance",
      };
    const opened = this.#open(at);
    return "error" in opened
      ? { ok: false, asked, phase, code: "data-unverified", detail: opened.error }
      : opened.published;
  }

  /** The published folder, re-opened when its checkpoint or the trusted keys changed. */
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
      this.#opened = { key, published: openPublishedSnapshot(migrationDir, trusted) };
    } catch (error) {
      const why =
        error instanceof MigrationVerifyError
          ? `its checkpoint does not verify (${error.code})`
          : "its leaves, summary or keys could not be read or do not match its signed checkpoint";
      this.#opened = {
        key,
        error: `the published migration snapshot failed verification: ${why}; no balance is answered from it`,
      };
    }
    return this.#opened;
  }
}
