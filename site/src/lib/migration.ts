/**
 * The published migration tree as the /migration page shows it: `<dataDir>/migration/` verified
 * whole at build time — the same check as `npm run migration -- verify --dir data/migration`
 * (store/migration-verify-dir.ts: the checkpoint under data/keys/datasets.vkey, its history and
 * consistency proofs, every leaf against the root, the signed manifest) — before anything of it is
 * shown or copied into the site. A folder that does not verify fails the build, naming the step;
 * no folder at all means no snapshot is published yet (the page says so).
 *
 * `publishMigration` copies the verified files to `/migration/` of the built site: the lookup
 * island fetches the checkpoint from there, and anyone can download the leaves and the reports.
 *
 * No Astro or Vite import here: astro.config.mjs uses this module too.
 */
import { existsSync, readFileSync } from "node:fs";
import { cp, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { DATASET_KEYS_FILE, parseTrustedKeys } from "../../../core/datapackage/index.ts";
import { indexLeaves, MIGRATION_ORIGIN, proveLeaf } from "../../../core/migration/snapshot.ts";
import { LeafTree } from "../../../core/migration/tree.ts";
import type { MigrationSummary } from "../../../core/schemas/migration.ts";
import { verifyMigrationDir } from "../../../store/migration-verify-dir.ts";
import { checkpointOfNote, MIGRATION_FILES, readMigrationDir } from "../../../store/migration-dir.ts";
import { CodedError } from "../../../core/errors.ts";

export class MigrationVerificationError extends CodedError<"migration-unverified"> {
  constructor(message: string) {
    super("migration-unverified", message);
  }
}

export interface MismatchRow {
  line: number;
  address: string | null;
  reason: string;
}

export interface PublishedMigration {
  summary: MigrationSummary;
  /** The newest signed checkpoint, as published. */
  note: string;
  treeSize: number;
  /** The checkpoint's root, base64. */
  root: string;
  origin: string;
  /** The trusted key lines (data/keys/datasets.vkey) the island verifies with. */
  vkeys: string;
  keyNames: string[];
  mismatches: MismatchRow[];
  /** The data package's `sample` flag. */
  sample: boolean;
  /** The snapshot's largest balance: a total is read beside it (one invented sample account may dwarf the rest). */
  largest: { address: string; shards: bigint } | null;
  /** In sample data, the snapshot's leaves of the sample ledger's own accounts (not the invented `sample-legacy-…` ones): how many, and their total. */
  ledgerAccounts: { count: number; shards: bigint } | null;
}

/** The invented accounts of the sample v1 export (data/sources/migration/README.md). */
const INVENTED_SAMPLE_ACCOUNT = /^sample-legacy-/;

export const MIGRATION_SITE_DIR = "migration";

/** The verified folder, or null when none is published. Throws MigrationVerificationError. */
export function publishedMigration(dataDir: string): PublishedMigration | null {
  const dir = join(dataDir, "migration");
  if (!existsSync(join(dir, MIGRATION_FILES.checkpoint))) return null;
  const keysPath = join(dataDir, "keys", DATASET_KEYS_FILE);
  if (!existsSync(keysPath))
    throw new MigrationVerificationError(`${keysPath} is missing: the migration tree cannot be verified`);
  const vkeys = readFileSync(keysPath, "utf8");
  const trusted = parseTrustedKeys(vkeys, keysPath);
  const report = verifyMigrationDir(dir, trusted);
  if (!report.ok) {
    const failed = report.steps.find((s) => !s.ok);
    throw new MigrationVerificationError(`${dir} does not verify (${report.code}): ${failed?.name}: ${failed?.detail}`);
  }
  const state = readMigrationDir(dir);
  if (!state.summary) throw new MigrationVerificationError(`${dir}/${MIGRATION_FILES.summary} is missing or invalid`);
  const checkpoint = checkpointOfNote(state.checkpoint);
  const mismatches = state.mismatches.map((line) => {
    const m = JSON.parse(line) as MismatchRow;
    return { line: m.line, address: m.address, reason: m.reason };
  });
  const manifestPath = join(dir, "datapackage.json");
  const sample =
    existsSync(manifestPath) &&
    (JSON.parse(readFileSync(manifestPath, "utf8")) as { sample?: boolean }).sample === true;
  return {
    summary: state.summary,
    note: state.checkpoint,
    treeSize: checkpoint.size,
    root: Buffer.from(checkpoint.rootHash).toString("base64"),
    origin: MIGRATION_ORIGIN,
    vkeys,
    keyNames: trusted.map((k) => k.name),
    mismatches,
    sample,
    ...snapshotFigures(state.leaves.slice(0, state.snapshotSize), sample),
  };
}

/** The largest leaf of the snapshot and, in sample data, the total of the sample ledger's own accounts. */
function snapshotFigures(
  lines: readonly string[],
  sample: boolean,
): Pick<PublishedMigration, "largest" | "ledgerAccounts"> {
  const leaves = lines.map((line) => {
    const leaf = JSON.parse(line) as { address: string; balance_shards: string };
    return { address: leaf.address, shards: BigInt(leaf.balance_shards) };
  });
  const largest = leaves.reduce<{ address: string; shards: bigint } | null>(
    (best, leaf) => (best === null || leaf.shards > best.shards ? leaf : best),
    null,
  );
  const own = leaves.filter((leaf) => !INVENTED_SAMPLE_ACCOUNT.test(leaf.address));
  return {
    largest,
    ledgerAccounts: sample ? { count: own.length, shards: own.reduce((sum, leaf) => sum + leaf.shards, 0n) } : null,
  };
}

/** Where the static copy of an address's proof is: the API's path, so the lookup asks one URL either way. */
export const proofSitePath = (address: string) => `${MIGRATION_SITE_DIR}/proof/${address}`;

/**
 * Copies the verified migration folder into the built site at /migration/ (nothing when none is
 * published), and writes the static copy of `GET /migration/proof/{address}` for every address of
 * the tree — the same JSON the API answers (its last leaf and inclusion proof against the newest
 * checkpoint) — so the page's lookup verifies in the browser from the static files alone.
 */
export async function publishMigration(dataDir: string, outDir: string): Promise<number> {
  const published = publishedMigration(dataDir);
  if (!published) return 0;
  await cp(join(dataDir, "migration"), join(outDir, MIGRATION_SITE_DIR), {
    recursive: true,
    force: true,
    errorOnExist: false,
  });
  const { leaves } = readMigrationDir(join(dataDir, "migration"));
  const tree = LeafTree.fromTexts(leaves);
  await mkdir(join(outDir, MIGRATION_SITE_DIR, "proof"), { recursive: true });
  for (const [address, index] of indexLeaves(leaves)) {
    await writeFile(join(outDir, proofSitePath(address)), JSON.stringify(proveLeaf(tree, leaves, index)));
  }
  return published.treeSize;
}
