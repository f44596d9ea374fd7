/**
 * The version rule of the area releases (docs/releases.md), SemVer 2.0.0 without pre-release or
 * build parts:
 * - major: a change a reader of the previous release can break on — a file removed, or a table's
 *   columns removed, renamed, retyped or reordered, or its primary key changed;
 * - minor: something added and nothing broken — rows added to a table, a new file, a column
 *   appended after the existing ones;
 * - patch: corrections — rows changed or removed, or any other file's bytes changed.
 * The first release of an area is 1.0.0.
 */

export type ReleaseKind = "major" | "minor" | "patch";

export const FIRST_VERSION = "1.0.0";

const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$/;

export function isReleaseVersion(value: unknown): value is string {
  return typeof value === "string" && SEMVER.test(value);
}

export function bumpVersion(version: string, kind: ReleaseKind): string {
  const m = SEMVER.exec(version);
  if (!m) throw new Error(`${JSON.stringify(version)} is not a release version (MAJOR.MINOR.PATCH)`);
  const [major, minor, patch] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return kind === "major"
    ? `${major + 1}.0.0`
    : kind === "minor"
      ? `${major}.${minor + 1}.0`
      : `${major}.${minor}.${patch + 1}`;
}

/** A table's shape as the rule compares it: its columns (name and type, in order) and primary key. */
export interface TableShape {
  fields: readonly { name: string; type: string }[];
  primaryKey?: readonly string[];
}

/** "major" when `next` breaks a reader of `previous`, "minor" when it only appends columns, null when the same. */
export function shapeChange(previous: TableShape, next: TableShape): "major" | "minor" | null {
  const same = (a: { name: string; type: string }, b: { name: string; type: string }) =>
    a.name === b.name && a.type === b.type;
  if (JSON.stringify(previous.primaryKey ?? []) !== JSON.stringify(next.primaryKey ?? [])) return "major";
  if (previous.fields.length > next.fields.length || previous.fields.some((f, i) => !same(f, next.fields[i]!)))
    return "major";
  return next.fields.length > previous.fields.length ? "minor" : null;
}

export interface ReleaseEvidence {
  /** Paths of files the previous release had and this one has not. */
  removed: number;
  /** Paths of files this release adds. */
  added: number;
  /** The strongest table shape change. */
  shape: "major" | "minor" | null;
  /** Rows added to any table. */
  rowsAdded: number;
}

export function releaseKind(e: ReleaseEvidence): ReleaseKind {
  if (e.removed > 0 || e.shape === "major") return "major";
  if (e.added > 0 || e.shape === "minor" || e.rowsAdded > 0) return "minor";
  return "patch";
}
