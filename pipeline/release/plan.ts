/**
 * The release phase (docs/releases.md): after the area manifests are built, each area's release is
 * decided from what it publishes and its release history (`releases.json`), never from a clock.
 *
 * - Nothing published changed since the last release (same files, same bytes, same table schemas):
 *   no new release; the manifest keeps that release's version and changes resources.
 * - Otherwise a new release: every table with a primary key is compared with the published one
 *   (core/release/changes.ts), the version rule (core/release/version.ts) gives the version, and
 *   the release brings its changes resources, its citation and its history record. The first
 *   release is 1.0.0 and has no changes resources (there is nothing before it).
 * Pure but for reading the published files; what to write is handed to the publish phase.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { schemaReference, immutablePathOf } from "../../core/datapackage/references.ts";
import { countsOf, diffTables, type TableChanges } from "../../core/release/changes.ts";
import { readCsv } from "../../core/release/csv-rows.ts";
import {
  bumpVersion,
  FIRST_VERSION,
  releaseKind,
  shapeChange,
  type ReleaseEvidence,
} from "../../core/release/version.ts";
import { schemaId } from "../../core/schemas/json-schema.ts";
import { digestOf } from "../../core/digest.ts";
import {
  MANIFEST_FILE,
  readManifest,
  renderManifest,
  type PackageDescriptor,
  type ResourceDescriptor,
  type TableSchema,
} from "../manifest.ts";
import { SIGNATURE_SUFFIX } from "../sign.ts";
import { outputBytes, type StepState } from "../run/plan.ts";
import type { Area } from "../step.ts";
import { citationBibtex, citationCff } from "./citation.ts";
import {
  CHANGES_DIR,
  readHistory,
  releaseDir,
  renderHistory,
  RELEASES_FILE,
  type ReleaseHistory,
  type ReleaseRecord,
  type TableRelease,
} from "./history.ts";

export const CHANGES_SCHEMA = "release-table-changes";

export interface AreaRelease {
  area: Area;
  version: string;
  /** Whether this run makes a new release (then its manifest copy and signature are written). */
  isNew: boolean;
  history: ReleaseHistory;
  historyText: string;
  /** Files of the release phase to publish, relative to the area folder → bytes. */
  files: Map<string, Uint8Array>;
  /** The manifest's final text. */
  manifestText: string;
}

const utf8 = new TextEncoder();
const sha256 = (bytes: Uint8Array | string) => `sha256:${createHash("sha256").update(bytes).digest("hex")}`;

function isChanges(r: { path: string }): boolean {
  return r.path.startsWith(`${CHANGES_DIR}/`);
}

/** Every listed resource but the changes resources: what a release is made of. */
function dataResources(pkg: { resources?: unknown; keyedResources?: unknown }): ResourceDescriptor[] {
  const all = [
    ...((pkg.resources as ResourceDescriptor[] | undefined) ?? []),
    ...((pkg.keyedResources as ResourceDescriptor[] | undefined) ?? []),
  ];
  return all.filter((r) => !isChanges(r));
}

function identity(resources: ResourceDescriptor[]): string {
  return JSON.stringify(
    resources
      .map((r) => [
        r.path,
        r.hash,
        r.schema
          ? { fields: r.schema.fields.map((f) => [f.name, f.type]), primaryKey: r.schema.primaryKey ?? [] }
          : null,
      ])
      .sort(),
  );
}

function changesText(
  table: string,
  from: string,
  to: string,
  primaryKey: readonly string[],
  changes: TableChanges,
): string {
  return `${JSON.stringify({ table, from, to, primaryKey, counts: countsOf(changes), added: changes.added, removed: changes.removed, changed: changes.changed }, null, 2)}\n`;
}

/** Decides the area's release and gives the manifest its final text. */
export function planRelease(
  areasDir: string,
  area: Area,
  pkg: PackageDescriptor,
  states: readonly StepState[],
): AreaRelease {
  const dir = join(areasDir, area);
  const history = readHistory(join(dir, RELEASES_FILE), pkg.name);
  const last = history.releases.at(-1) ?? null;
  const published = readManifest(join(dir, MANIFEST_FILE));
  const before = published ? dataResources(published.descriptor) : [];
  const now = dataResources(pkg);
  const unchanged =
    last !== null && published?.descriptor.version === last.version && identity(before) === identity(now);

  const files = new Map<string, Uint8Array>();
  let version: string;
  let changesResources: ResourceDescriptor[];
  let record: ReleaseRecord | null = null;
  if (unchanged) {
    version = last.version;
    changesResources = [...((published!.descriptor.resources as ResourceDescriptor[]) ?? [])].filter(isChanges);
    // The current changes resources are restored from the release's immutable copies, which must
    // still be the bytes the manifest lists.
    for (const r of changesResources) {
      const copy = `${releaseDir(version)}/${r.path}`;
      const bytes = existsSync(join(dir, copy)) ? readFileSync(join(dir, copy)) : null;
      if (!bytes || sha256(bytes) !== r.hash)
        throw new Error(`${join(dir, copy)}: missing, or not the ${r.hash} the manifest lists for ${r.path}`);
      files.set(r.path, bytes);
      files.set(copy, bytes);
    }
  } else {
    const tables: Record<string, TableRelease> = {};
    const diffs: { state: StepState; changes: TableChanges; schema: TableSchema }[] = [];
    const evidence: ReleaseEvidence = { removed: 0, added: 0, shape: null, rowsAdded: 0 };
    const beforeByPath = new Map(before.map((r) => [r.path, r]));
    const nowPaths = new Set(now.map((r) => r.path));
    evidence.removed = before.filter((r) => !nowPaths.has(r.path)).length;
    evidence.added = last ? now.filter((r) => !beforeByPath.has(r.path)).length : 0;
    for (const r of now) {
      const old = beforeByPath.get(r.path);
      if (!old?.schema || !r.schema) continue;
      const shape = shapeChange(old.schema, r.schema);
      if (shape === "major" || (shape === "minor" && evidence.shape !== "major")) evidence.shape = shape;
    }
    for (const s of states) {
      const pk = s.step.primaryKey;
      if (s.step.mediatype !== "text/csv" || s.step.access !== "public" || !pk) continue;
      const schema = now.find((r) => r.path === s.step.path)?.schema;
      if (!schema) continue;
      const after = readCsv(new TextDecoder().decode(outputBytes(s)), s.step.id);
      const previousFile = last && existsSync(s.target) ? readCsv(readFileSync(s.target, "utf8"), s.target) : null;
      const changes =
        s.output!.same && previousFile ? { added: [], removed: [], changed: [] } : diffTables(previousFile, after, pk);
      evidence.rowsAdded += changes.added.length;
      diffs.push({ state: s, changes, schema });
    }
    const kind = last ? releaseKind(evidence) : "first";
    version = last ? bumpVersion(last.version, kind as Exclude<typeof kind, "first">) : FIRST_VERSION;
    changesResources = [];
    for (const { state, changes } of diffs) {
      const counts = countsOf(changes);
      const table: TableRelease = { ...counts };
      if (last) {
        const path = `${CHANGES_DIR}/${state.step.path.slice(0, -".csv".length)}.json`;
        const bytes = utf8.encode(changesText(state.step.path, last.version, version, state.step.primaryKey!, changes));
        const hash = sha256(bytes);
        files.set(path, bytes);
        files.set(`${releaseDir(version)}/${path}`, bytes);
        table.changes = `${releaseDir(version)}/${path}`;
        changesResources.push({
          name: `${state.step.name}-changes`,
          path,
          immutablePath: immutablePathOf(path, hash),
          title: `${state.step.title}: changes since ${last.version}`,
          description: `The rows of ${state.step.path} added, removed and changed (old and new values) from release ${last.version} to ${version}, matched by its primary key (${state.step.primaryKey!.join(", ")}).`,
          format: "json",
          mediatype: "application/json",
          encoding: "utf-8",
          bytes: bytes.length,
          hash,
          jsonSchema: schemaReference(schemaId(CHANGES_SCHEMA)),
          access: "public",
          inputs_hash: digestOf({ from: last.manifest.hash, table: state.output!.digest.hash }),
          inputs: { previous: last.manifest.hash, table: state.output!.digest.hash },
        });
      }
      tables[state.step.path] = table;
    }
    const ledger = (pkg.sources.find((s) => s.kind === "ledger") ?? null) as { size: number; root: string } | null;
    const cited = { area, version, date: pkg.created ?? null };
    const bibtex = `${releaseDir(version)}/citation.bib`;
    const cff = `${releaseDir(version)}/CITATION.cff`;
    files.set(bibtex, utf8.encode(citationBibtex(cited)));
    files.set(cff, utf8.encode(citationCff(cited)));
    record = {
      version,
      kind,
      previous: last?.version ?? null,
      date: pkg.created ?? null,
      manifest: {
        path: `${releaseDir(version)}/${MANIFEST_FILE}`,
        hash: "",
        signature: `${releaseDir(version)}/${MANIFEST_FILE}${SIGNATURE_SUFFIX}`,
      },
      ...(ledger ? { ledger: { size: ledger.size, root: ledger.root } } : {}),
      files: now
        .filter((r) => r.access === "public")
        .map((r) => ({ path: r.path, hash: r.hash, immutablePath: immutablePathOf(r.path, r.hash) }))
        .concat(
          changesResources.map((r) => ({ path: r.path, hash: r.hash, immutablePath: immutablePathOf(r.path, r.hash) })),
        ),
      tables,
      citation: { bibtex, cff },
    };
  }
  const sorted = (list: ResourceDescriptor[]) =>
    [...list].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const final: PackageDescriptor = {
    ...pkg,
    version,
    resources: sorted([...pkg.resources.filter((r) => !isChanges(r)), ...changesResources]),
  };
  const manifestText = renderManifest(final);
  const releases = record
    ? [...history.releases, { ...record, manifest: { ...record.manifest, hash: sha256(manifestText) } }]
    : history.releases;
  const next: ReleaseHistory = { name: pkg.name, releases };
  return {
    area,
    version,
    isNew: record !== null,
    history: next,
    historyText: renderHistory(next),
    files,
    manifestText,
  };
}
