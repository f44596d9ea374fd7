/**
 * Publishes the migration's verification tree under data/migration/: the snapshot of the v1 export
 * `data/sources/migration/v1-balances.jsonl` taken at the spec's instant (2025-12-01T00:00:00Z),
 * then the review round of `data/sources/migration/corrections.jsonl` if there is one (at
 * SAMPLE_REVIEW_AT), written by the same code as `npm run migration` (store/migration-dir.ts), plus
 * a Data Package manifest `datapackage.json` listing every file with its size and sha256 and its
 * detached signature `datapackage.json.sig` (pipeline/sign.ts, area name "migration").
 *
 * The folder is built aside and moved into place whole. `check` writes nothing: the published folder
 * must verify (store/migration-verify-dir.ts, with the published keys) and every unsigned file
 * must equal what the sources give; checkpoints are compared by their signed text, not their
 * signatures (a fresh clone signs with another development key).
 */
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import type { NoteSigner } from "../../core/checkpoint.ts";
import { generateKeyPair } from "../../core/signature.ts";
import { digestOf } from "../../core/digest.ts";
import { exportLines } from "../../core/migration/convert.ts";
import { SNAPSHOT_AT } from "../../core/migration/phases.ts";
import { schemaId } from "../../core/schemas/json-schema.ts";
import { MIGRATION_SCHEMA_REFERENCE_PREFIX, schemaReference } from "../../core/datapackage/references.ts";
import { MigrationCorrectionInput } from "../../core/schemas/migration.ts";
import { appendReviewRound, MIGRATION_FILES, writeSnapshot } from "../../store/migration-dir.ts";
import { DATAPACKAGE_PROFILE, LICENSE } from "../manifest.ts";
import { ensureTrustedKey, readTrustedKeys, SIGNATURE_SUFFIX, signPackageManifest } from "../sign.ts";
import { MIGRATION_AREA, MIGRATION_MANIFEST, verifyMigrationDir } from "../../store/migration-verify-dir.ts";
import { formatIssues } from "../../core/zod-issues.ts";

export const MIGRATION_SOURCE = "migration/v1-balances.jsonl";
export const MIGRATION_CORRECTIONS_SOURCE = "migration/corrections.jsonl";
/** The instant of the sample's one review round: noon of the snapshot day. */
export const SAMPLE_REVIEW_AT = "2025-12-01T12:00:00.000Z";

export interface PublishMigrationOptions {
  dataDir: string;
  check: boolean;
  /** Loads the dataset signing key (not called by `check`). */
  signingKey: () => NoteSigner & { publicKeyHex: string };
  trustNewKey?: boolean;
  log: (line: string) => void;
}

export interface PublishMigrationReport {
  ok: boolean;
  /** "skipped": no v1 export in the sources. */
  status: "written" | "unchanged" | "skipped" | "matches" | "differs";
  differences: string[];
}

const RESOURCE_INFO: Record<
  string,
  { title: string; description: string; mediatype: string; format: string; schema?: string }
> = {
  [MIGRATION_FILES.snapshot]: {
    title: "Snapshot leaves",
    description:
      "One converted balance per line, sorted by address: the JCS of {address, balance_shards, v1_balance_gic}; each line's bytes are an RFC 9162 leaf.",
    mediatype: "application/jsonl",
    format: "jsonl",
    schema: "migration-leaf",
  },
  [MIGRATION_FILES.corrections]: {
    title: "Review corrections",
    description: "Leaves appended by the 24-hour review: the JCS of {address, balance_shards, correction}.",
    mediatype: "application/jsonl",
    format: "jsonl",
    schema: "migration-leaf",
  },
  [MIGRATION_FILES.mismatches]: {
    title: "Mismatch report",
    description:
      "Every v1 line that could not be converted exactly: {address, input, line, reason}; nothing rounded, nothing dropped.",
    mediatype: "application/jsonl",
    format: "jsonl",
    schema: "migration-mismatch",
  },
  [MIGRATION_FILES.consistency]: {
    title: "Consistency proofs",
    description: "One RFC 9162 consistency proof per review round, from the previous checkpoint to the next.",
    mediatype: "application/jsonl",
    format: "jsonl",
  },
  [MIGRATION_FILES.summary]: {
    title: "Summary",
    description: "Counts, exact v1 and v2 totals, the snapshot instant and the review rounds.",
    mediatype: "application/json",
    format: "json",
    schema: "migration-summary",
  },
  [MIGRATION_FILES.checkpoint]: {
    title: "Checkpoint",
    description:
      "The newest C2SP signed checkpoint over snapshot.jsonl followed by corrections.jsonl, signed with the dataset key.",
    mediatype: "text/plain",
    format: "txt",
  },
};

function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else out.push(relative(dir, path).split("\\").join("/"));
    }
  };
  walk(dir);
  return out.filter((f) => f !== MIGRATION_MANIFEST && f !== MIGRATION_MANIFEST + SIGNATURE_SUFFIX);
}

function sha256(bytes: Uint8Array): string {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}

/** The Data Package manifest of a built folder. */
export function migrationManifest(dir: string, sources: Record<string, Uint8Array>, created: string): string {
  const resources = listFiles(dir).map((path) => {
    const bytes = readFileSync(join(dir, path));
    const info = RESOURCE_INFO[path] ?? {
      title: `Checkpoint of ${path.split("/")[1]} leaves`,
      description: "A published checkpoint, kept when a review round publishes the next one.",
      mediatype: "text/plain",
      format: "txt",
    };
    return {
      name: path.replace(/[^a-z0-9._-]/g, "-"),
      path,
      title: info.title,
      description: info.description,
      format: info.format,
      mediatype: info.mediatype,
      encoding: "utf-8",
      bytes: bytes.length,
      hash: sha256(bytes),
      // Relative, like the areas' references: it resolves in the repository and on the static copy (/schemas/…).
      ...(info.schema ? { jsonSchema: schemaReference(schemaId(info.schema), MIGRATION_SCHEMA_REFERENCE_PREFIX) } : {}),
    };
  });
  const manifest = {
    $schema: DATAPACKAGE_PROFILE,
    name: "integrity-platform-migration",
    title: "Integrity Platform — v1 → v2 balance migration",
    description:
      "The verification tree of the v1 → v2 unit migration: every converted balance as a leaf of an RFC 9162 tree under a signed C2SP checkpoint, " +
      "the mismatch report, and the corrections of the 24-hour review. SAMPLE DATA, not real balances: the v1 export is derived from the sample ledger plus invented legacy accounts.",
    version: `1.0.0+sha256.${digestOf(resources.map((r) => [r.name, r.hash])).slice(7, 19)}`,
    created,
    keywords: ["integrity-platform", "migration", "sample-data"],
    licenses: [LICENSE],
    sample: true,
    sources: Object.keys(sources)
      .sort()
      .map((path) => ({ kind: "curated", title: `Curated source data/sources/${path}`, hash: sha256(sources[path]!) })),
    resources,
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

function readCorrections(bytes: Uint8Array, file: string) {
  return exportLines(Buffer.from(bytes).toString("utf8")).map((line, i) => {
    const parsed = MigrationCorrectionInput.safeParse(JSON.parse(line));
    if (!parsed.success) throw new Error(`${file}:${i + 1}: ${formatIssues(parsed.error.issues, "(line)")}`);
    return { address: parsed.data.address, shards: BigInt(parsed.data.balance_shards), note: parsed.data.note };
  });
}

/** Builds the folder from the sources into `dir` (which must not exist yet, or be empty). */
function build(dir: string, sources: Record<string, Uint8Array>, signer: NoteSigner): void {
  const exportBytes = sources[MIGRATION_SOURCE]!;
  writeSnapshot(dir, { exportBytes, at: SNAPSHOT_AT, signer });
  const corrections = sources[MIGRATION_CORRECTIONS_SOURCE];
  if (corrections)
    appendReviewRound(dir, {
      at: SAMPLE_REVIEW_AT,
      corrections: readCorrections(corrections, MIGRATION_CORRECTIONS_SOURCE),
      signer,
    });
}

/** The signed text of a note (what its signatures cover). */
function noteText(note: string): string {
  return note.slice(0, note.lastIndexOf("\n\n") + 1);
}

/**
 * What differs between the published folder and what the sources give: the files (a signed note by
 * the text its signatures cover, so the key used here does not matter), and the published folder's
 * own signatures under the trusted keys. Empty when the folder is current.
 */
function differencesFromSources(sources: Record<string, Uint8Array>, dest: string, keysPath: string): string[] {
  const differences: string[] = [];
  const scratch = mkdtempSync(join(tmpdir(), "migration-check-"));
  try {
    const k = generateKeyPair("ed25519");
    build(join(scratch, "m"), sources, { name: "check", secretKeyHex: k.secretKey });
    if (!existsSync(dest)) differences.push(`${dest}: missing`);
    else {
      const report = verifyMigrationDir(dest, readTrustedKeys(keysPath));
      if (!report.ok) differences.push(`${dest}: does not verify (${report.code}): ${report.steps.at(-1)?.detail}`);
      const expected = listFiles(join(scratch, "m"));
      const actual = listFiles(dest);
      for (const f of new Set([...expected, ...actual])) {
        const a = join(scratch, "m", f);
        const b = join(dest, f);
        if (!existsSync(a) || !existsSync(b))
          differences.push(`${join(dest, f)}: ${existsSync(a) ? "missing" : "not produced by the sources"}`);
        else {
          const signed = f === MIGRATION_FILES.checkpoint || f.startsWith(`${MIGRATION_FILES.checkpoints}/`);
          const x = readFileSync(a, "utf8");
          const y = readFileSync(b, "utf8");
          if (signed ? noteText(x) !== noteText(y) : x !== y) differences.push(`${join(dest, f)}: differs`);
        }
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return differences;
}

/** Whether the published manifest is the one the published files give (its signature is checked with them). */
function manifestCurrent(dest: string, sources: Record<string, Uint8Array>): boolean {
  const file = join(dest, MIGRATION_MANIFEST);
  return existsSync(file) && readFileSync(file, "utf8") === migrationManifest(dest, sources, SNAPSHOT_AT);
}

export function publishMigration(o: PublishMigrationOptions): PublishMigrationReport {
  const sourcePath = join(o.dataDir, "sources", MIGRATION_SOURCE);
  if (!existsSync(sourcePath)) {
    o.log(`migration: no ${sourcePath}; nothing to publish`);
    return { ok: true, status: "skipped", differences: [] };
  }
  const sources: Record<string, Uint8Array> = { [MIGRATION_SOURCE]: readFileSync(sourcePath) };
  const correctionsPath = join(o.dataDir, "sources", MIGRATION_CORRECTIONS_SOURCE);
  if (existsSync(correctionsPath)) sources[MIGRATION_CORRECTIONS_SOURCE] = readFileSync(correctionsPath);
  const dest = join(o.dataDir, "migration");
  const keysPath = join(o.dataDir, "keys", "datasets.vkey");

  if (o.check) {
    const differences = differencesFromSources(sources, dest, keysPath);
    for (const d of differences) o.log(`migration --check: ${d}`);
    return { ok: differences.length === 0, status: differences.length === 0 ? "matches" : "differs", differences };
  }
  // Nothing to sign when the published folder is current and verifies: a clone without the team's
  // signing key (npm start on a fresh checkout) publishes nothing and needs no key.
  if (
    existsSync(dest) &&
    existsSync(keysPath) &&
    differencesFromSources(sources, dest, keysPath).length === 0 &&
    manifestCurrent(dest, sources)
  ) {
    o.log(`migration: ${dest} unchanged`);
    return { ok: true, status: "unchanged", differences: [] };
  }

  const signer = o.signingKey();
  const trust = ensureTrustedKey(keysPath, signer, o.trustNewKey ?? false);
  if (trust.action !== "present")
    o.log(`migration: ${trust.action === "created" ? "created" : "added the signing key to"} ${keysPath}`);
  const staging = mkdtempSync(join(o.dataDir, ".migration-"));
  try {
    build(staging, sources, signer);
    const created = SNAPSHOT_AT;
    const manifest = migrationManifest(staging, sources, created);
    writeFileSync(join(staging, MIGRATION_MANIFEST), manifest);
    writeFileSync(
      join(staging, MIGRATION_MANIFEST + SIGNATURE_SUFFIX),
      signPackageManifest(MIGRATION_AREA, manifest, signer),
    );
    const same =
      existsSync(dest) &&
      [...listFiles(staging), MIGRATION_MANIFEST, MIGRATION_MANIFEST + SIGNATURE_SUFFIX].every(
        (f) => existsSync(join(dest, f)) && readFileSync(join(dest, f)).equals(readFileSync(join(staging, f))),
      ) &&
      listFiles(dest).length === listFiles(staging).length;
    if (same) {
      o.log(`migration: ${dest} unchanged`);
      return { ok: true, status: "unchanged", differences: [] };
    }
    rmSync(dest, { recursive: true, force: true });
    renameSync(staging, dest);
    o.log(
      `migration: wrote ${dest} (snapshot of data/sources/${MIGRATION_SOURCE}${sources[MIGRATION_CORRECTIONS_SOURCE] ? ` and one review round at ${SAMPLE_REVIEW_AT}` : ""})`,
    );
    return { ok: true, status: "written", differences: [] };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
