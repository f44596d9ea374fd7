/**
 * What the balance routes answer, in one place, so that the routes only parse, call and answer:
 * the published migration snapshot (opened and checked against the trusted dataset keys) plus the
 * ledger's movements since the snapshot instant, and the live supply — both kept caught up with the
 * ledger's tail by ProjectionFollower before every answer, so two API instances on one store answer
 * the same.
 *
 *   balance(address, at)   the record of the version the phase at `at` answers (core/migration/phases.ts):
 *                          announcement → v1 from the ledger's balance; snapshot → v1 frozen at the
 *                          snapshot; transition/sunset → v2 (v1 forwarded during the transition)
 *   v1(address, at) / v2(address, at)   one version, or why it is not available at that instant
 *   historical(address)    the snapshot's leaf of the address (the v1 text kept) and its inclusion proof
 *   supply()               the live supply figures
 */
import type { NoteVerifier } from "../core/checkpoint.ts";
import { balancesProjection, type Balances } from "../core/balance/ledger-balances.ts";
import { balanceV1Record, balanceV2Record, v2BalanceShards } from "../core/balance/records.ts";
import { supplyFigures, supplyProjection, type SupplyFigures, type SupplyShards } from "../core/economy/supply.ts";
import type { LedgerReader } from "../core/ledger/store.ts";
import { equalBytes } from "../core/merkle.ts";
import { balanceInterface, migrationPhase, type MigrationPhase } from "../core/migration/phases.ts";
import { indexLeaves, parseLeaf, proveLeaf, snapshotBalances, type LeafProof, type SnapshotLeaf } from "../core/migration/snapshot.ts";
import { LeafTree } from "../core/migration/tree.ts";
import { verifyMigrationCheckpoint } from "../core/migration/verify.ts";
import type { BalanceV1, BalanceV2 } from "../core/schemas/balance.ts";
import type { MigrationSummary } from "../core/schemas/migration.ts";
import { readMigrationDir } from "./migration-dir.ts";
import { ProjectionFollower } from "./projection-follower.ts";

export type BalanceAnswer =
  | { ok: true; version: "v1"; phase: MigrationPhase; record: BalanceV1; forwarded: boolean }
  | { ok: true; version: "v2"; phase: MigrationPhase; record: BalanceV2 }
  /** `gone`: v1 after the sunset; `not-yet`: v2 before the transition; `unknown-address`: no balance. */
  | { ok: false; version: "v1" | "v2"; phase: MigrationPhase; code: "gone" | "not-yet" | "unknown-address" };

export class BalanceView {
  readonly summary: MigrationSummary | null;
  readonly #snapshot: Map<string, bigint>;
  readonly #leaves: string[];
  readonly #index: Map<string, number>;
  readonly #tree: LeafTree;
  readonly #all: ProjectionFollower<Balances>;
  readonly #since: ProjectionFollower<Balances>;
  readonly #supply: ProjectionFollower<SupplyShards>;

  /** Opens the published folder: refuses one whose checkpoint no trusted key signed or whose leaves do not match it. */
  constructor(options: { reader: LedgerReader; migrationDir: string; trusted: NoteVerifier[] }) {
    const dir = readMigrationDir(options.migrationDir);
    const checkpoint = verifyMigrationCheckpoint(dir.checkpoint, options.trusted);
    this.#tree = LeafTree.fromTexts(dir.leaves);
    if (this.#tree.size !== checkpoint.size || !equalBytes(this.#tree.rootHash(), checkpoint.rootHash)) {
      throw new Error(`${options.migrationDir}: the leaves do not match the signed checkpoint`);
    }
    this.summary = dir.summary;
    this.#leaves = dir.leaves;
    this.#snapshot = snapshotBalances(dir.leaves);
    this.#index = indexLeaves(dir.leaves);
    const snapshotAt = dir.summary?.snapshot_at;
    if (!snapshotAt) throw new Error(`${options.migrationDir}: summary.json is missing or invalid (the snapshot instant)`);
    this.#all = new ProjectionFollower(options.reader, balancesProjection());
    this.#since = new ProjectionFollower(options.reader, balancesProjection({ from: snapshotAt }));
    this.#supply = new ProjectionFollower(options.reader, supplyProjection);
  }

  /** The balance in the version the phase at `at` answers on `/balance/{address}`. */
  balance(address: string, at: Date): BalanceAnswer {
    return balanceInterface(migrationPhase(at)).current === "v1" ? this.v1(address, at) : this.v2(address, at);
  }

  v1(address: string, at: Date): BalanceAnswer {
    const phase = migrationPhase(at);
    const mode = balanceInterface(phase).v1;
    if (mode === "gone") return { ok: false, version: "v1", phase, code: "gone" };
    let shards: bigint | null | undefined;
    if (mode === "live") shards = this.#all.catchUp().get(address)?.available;
    else if (mode === "frozen") shards = this.#snapshot.get(address);
    else shards = v2BalanceShards(address, this.#snapshot, this.#since.catchUp());
    if (shards === undefined || shards === null) return { ok: false, version: "v1", phase, code: "unknown-address" };
    return { ok: true, version: "v1", phase, record: balanceV1Record(shards), forwarded: mode === "forwarded" };
  }

  v2(address: string, at: Date): BalanceAnswer {
    const phase = migrationPhase(at);
    if (balanceInterface(phase).v2 === "absent") return { ok: false, version: "v2", phase, code: "not-yet" };
    const shards = v2BalanceShards(address, this.#snapshot, this.#since.catchUp());
    if (shards === null) return { ok: false, version: "v2", phase, code: "unknown-address" };
    return { ok: true, version: "v2", phase, record: balanceV2Record(shards) };
  }

  /** The address's last leaf in the published tree and its proof against the newest checkpoint. */
  historical(address: string): { leaf: SnapshotLeaf; proof: LeafProof } | null {
    const index = this.#index.get(address);
    if (index === undefined) return null;
    return { leaf: parseLeaf(this.#leaves[index]!)!, proof: proveLeaf(this.#tree, this.#leaves, index) };
  }

  supply(): SupplyFigures {
    return supplyFigures(this.#supply.catchUp());
  }
}
