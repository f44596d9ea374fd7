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
 *
 * A folder without a checkpoint is a snapshot not published yet (the announcement phase): v1 then
 * answers from the ledger alone, and every answer that needs the snapshot is `no-snapshot`. A
 * folder with a checkpoint must verify, or the view is not opened at all (fail closed).
 *   v1(address, at) / v2(address, at)   one version, or why it is not available at that instant
 *   historical(address)    the snapshot's leaf of the address (the v1 text kept) and its inclusion proof
 *   supply()               the live supply figures
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { NoteVerifier } from "../core/checkpoint.ts";
import { balancesProjection, type Balances } from "../core/balance/ledger-balances.ts";
import { balanceV1Record, balanceV2Record, v2BalanceShards } from "../core/balance/records.ts";
import { supplyFigures, supplyProjection, type SupplyFigures } from "../core/economy/supply.ts";
import type { Projection } from "../core/ledger/projection.ts";
import type { LedgerReader } from "../core/ledger/store.ts";
import { equalBytes } from "../core/merkle.ts";
import { balanceInterface, migrationPhase, type MigrationPhase } from "../core/migration/phases.ts";
import { indexLeaves, parseLeaf, proveLeaf, snapshotBalances, type LeafProof, type SnapshotLeaf } from "../core/migration/snapshot.ts";
import { LeafTree } from "../core/migration/tree.ts";
import { verifyMigrationCheckpoint } from "../core/migration/verify.ts";
import type { BalanceV1, BalanceV2 } from "../core/schemas/balance.ts";
import type { MigrationSummary } from "../core/schemas/migration.ts";
import { MIGRATION_FILES, readMigrationDir } from "./migration-dir.ts";
import { ProjectionFollower } from "./projection-follower.ts";

export type BalanceAnswer =
  | { ok: true; version: "v1"; phase: MigrationPhase; record: BalanceV1; forwarded: boolean }
  | { ok: true; version: "v2"; phase: MigrationPhase; record: BalanceV2 }
  /**
   * `gone`: v1 after the sunset; `not-yet`: v2 before the transition; `unknown-address`: no balance;
   * `no-snapshot`: the answer needs the published snapshot and none is published yet.
   */
  | { ok: false; version: "v1" | "v2"; phase: MigrationPhase; code: "gone" | "not-yet" | "unknown-address" | "no-snapshot" };

/** The published tree, opened and checked against its signed checkpoint. */
interface PublishedTree {
  summary: MigrationSummary;
  snapshot: Map<string, bigint>;
  leaves: string[];
  index: Map<string, number>;
  tree: LeafTree;
  /** The ledger's movements dated at or after the snapshot instant. */
  since: Projection<Balances>;
}

export class BalanceView {
  readonly summary: MigrationSummary | null;
  readonly #published: PublishedTree | null;
  readonly #reader: LedgerReader;
  readonly #follower: ProjectionFollower;
  readonly #all = balancesProjection();

  /**
   * Opens the published folder: refuses one whose checkpoint no trusted key signed or whose leaves
   * do not match it; a folder without a checkpoint (or no folder) holds no snapshot yet.
   */
  constructor(options: { reader: LedgerReader; migrationDir: string; trusted: NoteVerifier[] }) {
    this.#reader = options.reader;
    this.#follower = new ProjectionFollower(options.reader);
    if (!existsSync(join(options.migrationDir, MIGRATION_FILES.checkpoint))) {
      this.summary = null;
      this.#published = null;
      return;
    }
    const dir = readMigrationDir(options.migrationDir);
    const checkpoint = verifyMigrationCheckpoint(dir.checkpoint, options.trusted);
    const tree = LeafTree.fromTexts(dir.leaves);
    if (tree.size !== checkpoint.size || !equalBytes(tree.rootHash(), checkpoint.rootHash)) {
      throw new Error(`${options.migrationDir}: the leaves do not match the signed checkpoint`);
    }
    const summary = dir.summary;
    if (!summary) throw new Error(`${options.migrationDir}: summary.json is missing or invalid (the snapshot instant)`);
    this.summary = summary;
    this.#published = {
      summary,
      snapshot: snapshotBalances(dir.leaves),
      leaves: dir.leaves,
      index: indexLeaves(dir.leaves),
      tree,
      since: balancesProjection({ from: summary.snapshot_at }),
    };
  }

  /** Whether a signed snapshot is published (and verified). */
  get hasSnapshot(): boolean {
    return this.#published !== null;
  }

  /**
   * The balance in the version the phase at `at` answers on `/balance/{address}`. `tail`: the
   * ledger's size read after the question was asked (store/tail-reads.ts); by default it is read here.
   */
  balance(address: string, at: Date, tail?: number): BalanceAnswer {
    return balanceInterface(migrationPhase(at)).current === "v1" ? this.v1(address, at, tail) : this.v2(address, at, tail);
  }

  v1(address: string, at: Date, tail?: number): BalanceAnswer {
    const phase = migrationPhase(at);
    const mode = balanceInterface(phase).v1;
    if (mode === "gone") return { ok: false, version: "v1", phase, code: "gone" };
    const published = this.#published;
    if (mode !== "live" && !published) return { ok: false, version: "v1", phase, code: "no-snapshot" };
    let shards: bigint | null | undefined;
    if (mode === "live") shards = this.#follow(this.#all, tail).get(address)?.available;
    else if (mode === "frozen") shards = published!.snapshot.get(address);
    else shards = v2BalanceShards(address, published!.snapshot, this.#follow(published!.since, tail));
    if (shards === undefined || shards === null) return { ok: false, version: "v1", phase, code: "unknown-address" };
    return { ok: true, version: "v1", phase, record: balanceV1Record(shards), forwarded: mode === "forwarded" };
  }

  v2(address: string, at: Date, tail?: number): BalanceAnswer {
    const phase = migrationPhase(at);
    if (balanceInterface(phase).v2 === "absent") return { ok: false, version: "v2", phase, code: "not-yet" };
    const published = this.#published;
    if (!published) return { ok: false, version: "v2", phase, code: "no-snapshot" };
    const shards = v2BalanceShards(address, published.snapshot, this.#follow(published.since, tail));
    if (shards === null) return { ok: false, version: "v2", phase, code: "unknown-address" };
    return { ok: true, version: "v2", phase, record: balanceV2Record(shards) };
  }

  /** The address's last leaf in the published tree and its proof against the newest checkpoint. */
  historical(address: string): { leaf: SnapshotLeaf; proof: LeafProof } | null {
    const published = this.#published;
    const index = published?.index.get(address);
    if (!published || index === undefined) return null;
    return { leaf: parseLeaf(published.leaves[index]!)!, proof: proveLeaf(published.tree, published.leaves, index) };
  }

  supply(): SupplyFigures {
    return supplyFigures(this.#follower.at(supplyProjection, this.#reader.size()));
  }

  /** The projection's state at the tail: up to `tail` when a fresh size was read for the question, else read now. */
  #follow<S>(projection: Projection<S>, tail: number | undefined): S {
    return this.#follower.at(projection, tail ?? this.#reader.size());
  }
}
