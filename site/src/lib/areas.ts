/**
 * The data areas as the pages render them: each area verified once per build (datapackage.ts),
 * its public JSON and CSV files parsed from the verified bytes with the published zod schemas of
 * core/schemas, and the rows of the download list.
 *
 * A document that does not match its schema fails the build naming the file, as a tampered one
 * does: the portal shows only what it can vouch for. An area that has not been generated yet is
 * `null`, and its page says so.
 */
import Papa from "papaparse";
import dataDir from "virtual:integrity/data-dir";
import type { z } from "zod";
import { dateTime, decimal, percent as corePercent } from "../../../core/format/text.ts";
import { parseMic } from "../../../core/money/units.ts";
import { formatIssues } from "../../../core/zod-issues.ts";
import {
  AREA_SLUGS,
  DataVerificationError,
  isPublic,
  MANIFEST_FILE,
  schemaPath,
  SIGNATURE_FILE,
  verifyArea,
  type AreaSlug,
  type Resource,
  type VerifiedArea,
} from "./datapackage.ts";

export { AREA_SLUGS, type AreaSlug };

export { AREAS, areaInfo, type AreaInfo } from "./area-info.ts";

/** The data directory of this build (astro.config.mjs resolves DATA_DIR). */
export const DATA_DIR: string = dataDir;

/** Whether a resource is published on the site (access "public"); every other tier is keyed. */
export const isPublicResource = isPublic;

/**
 * Public JSON and CSV files are kept (the pages read them); keyed files are only verified, except
 * the compliance report, whose overall status and next audit date feed the system health (the
 * public transparency report states both; nothing else of it is shown), and the ledger export,
 * from which /authority counts the denials by stage per month (counts only; lib/authority-stages.ts).
 */
const keepForPages = (r: Resource) =>
  (isPublic(r) && (r.mediatype === "application/json" || r.mediatype === "text/csv")) ||
  r.path === COMPLIANCE_REPORT ||
  r.path === LEDGER_EXPORT;

/** The government file whose overall status and next audit date the health derivation reads. */
export const COMPLIANCE_REPORT = "compliance-report.json";
/** The government area's ledger export (keyed), read for the denials by stage per month. */
export const LEDGER_EXPORT = "ledger/export.json";

/** The verified bytes of a kept resource; null when the area does not list it. */
export function keptBytes(pkg: VerifiedArea, path: string): Buffer | null {
  return pkg.files.get(path) ?? null;
}

const cache = new Map<AreaSlug, VerifiedArea | null>();

/** The verified area of this build, or null when it has not been generated. Throws naming a bad file. */
export function areaPackage(slug: AreaSlug): VerifiedArea | null {
  if (!cache.has(slug)) cache.set(slug, verifyArea(DATA_DIR, slug, { keep: keepForPages }));
  return cache.get(slug)!;
}

/** Whether the manifest marks the area as sample data, and the simulator's notice if it has one. */
export function sampleNotice(pkg: VerifiedArea): string | null {
  if (pkg.manifest.sample !== true) return null;
  const marker = pkg.manifest.sources?.find((s) => s.sample?.notice)?.sample;
  const from = marker?.generator ? ` by ${marker.generator}${marker.seed ? ` (seed ${marker.seed})` : ""}` : "";
  return `These files were generated${from} from a simulated ledger. They are not real activity.`;
}

function fileName(pkg: VerifiedArea, path: string): string {
  return `${pkg.dir}/${path}`;
}

function bytesOf(pkg: VerifiedArea, path: string): Buffer | null {
  return pkg.files.get(path) ?? null;
}

/** A kept JSON resource parsed with its schema; null when the manifest does not list it (or it is not kept). */
export function jsonDocument<T>(pkg: VerifiedArea, path: string, schema: z.ZodType<T>): T | null {
  const bytes = bytesOf(pkg, path);
  if (!bytes) return null;
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString("utf8"));
  } catch (error) {
    throw new DataVerificationError(`${fileName(pkg, path)}: not valid JSON (${(error as Error).message})`);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw new DataVerificationError(`${fileName(pkg, path)}: ${formatIssues(parsed.error.issues.slice(0, 1))}`);
  }
  return parsed.data;
}

const NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?$/;

export interface CsvRow<T> {
  /** The cells as written (exact decimal text). */
  raw: Record<string, string>;
  /** The cells typed (`numeric` columns as numbers) and checked with the row schema. */
  row: T;
}

/**
 * The rows of a public CSV resource (RFC 4180, header row), typed and checked row by row; null when
 * the manifest does not list it as public. Throws naming the file and the line.
 */
export function csvRows<T>(
  pkg: VerifiedArea,
  path: string,
  schema: z.ZodType<T>,
  numeric: readonly string[],
): CsvRow<T>[] | null {
  const bytes = bytesOf(pkg, path);
  if (!bytes) return null;
  const file = fileName(pkg, path);
  const result = Papa.parse<Record<string, string>>(bytes.toString("utf8"), { header: true, skipEmptyLines: true });
  const first = result.errors[0];
  if (first) throw new DataVerificationError(`${file}: line ${(first.row ?? 0) + 2}: ${first.message}`);
  return result.data.map((raw, i) => {
    const typed: Record<string, unknown> = { ...raw };
    for (const column of numeric) {
      const cell = raw[column];
      if (cell === undefined || !NUMBER.test(cell))
        throw new DataVerificationError(`${file}: line ${i + 2}: ${column} is not a number`);
      typed[column] = Number(cell);
    }
    const parsed = schema.safeParse(typed);
    if (!parsed.success) {
      throw new DataVerificationError(
        `${file}: line ${i + 2}: ${formatIssues(parsed.error.issues.slice(0, 1), "(row)")}`,
      );
    }
    return { raw, row: parsed.data };
  });
}

/** "157.600586" MIC → 157600586n shards, exactly (at most 6 decimals, as the ledger records them). */
export function micToShards(text: string): bigint {
  const read = /^[0-9.]+$/.test(text) ? parseMic(text) : null;
  if (!read?.ok) throw new RangeError(`not a MIC amount with at most 6 decimals: ${JSON.stringify(text)}`);
  return read.shards;
}

// ---------------------------------------------------------------------------------------------
// download list

export interface AccessTier {
  /** Short label: "Public", "Government key", … */
  label: string;
  /** How to get the key, in plain words (null for public files). */
  howTo: string | null;
}

const TIERS: Record<string, AccessTier> = {
  public: { label: "Public", howTo: null },
  government: {
    label: "Government key",
    howTo:
      "Request it stating your affiliation, an official contact address and the purpose. " +
      "The key is delivered over a secure channel and rotated every quarter; every use is logged and audited.",
  },
  academic: {
    label: "Academic key",
    howTo:
      "Ask for an academic key, stating your affiliation, the purpose and the expected volume; your academic e-mail address is verified first.",
  },
  institutional: {
    label: "Institutional key",
    howTo:
      "Ask for an institutional key, stating your affiliation, the purpose and the expected volume; it requires a partnership agreement.",
  },
  economist: {
    label: "Economist key",
    howTo:
      "Ask for an economist key, stating your affiliation, the purpose and the expected volume; your status as an economist is verified first.",
  },
};

/** The tier of an access value; an unknown tier is keyed (never shown as public). */
export function accessTier(access: string): AccessTier {
  return TIERS[access] ?? { label: `${access} key`, howTo: "Request it stating your affiliation and the purpose." };
}

const FORMATS: Record<string, string> = {
  "application/json": "JSON",
  "text/csv": "CSV",
  "application/pdf": "PDF",
  "application/x-bibtex": "BibTeX",
  "application/vnd.apache.parquet": "Parquet",
  "application/jsonl": "JSON Lines",
};

export interface SchemaLink {
  href: string;
  label: string;
}

export interface DownloadRow {
  name: string;
  title: string;
  description: string;
  path: string;
  /** Site URL of the file; null for keyed files (they are not published on the site). */
  href: string | null;
  bytes: number;
  size: string;
  format: string;
  mediatype: string;
  hash: string;
  hashShort: string;
  schemas: SchemaLink[];
  access: string;
  tier: AccessTier;
}

/** "179 B", "1.7 kB", "392 kB", "2.9 MB" (decimal units). */
export function humanBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  const units = ["kB", "MB", "GB"];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

/** The first 12 hex characters of a `sha256:` digest. */
export function shortHash(hash: string): string {
  return hash.slice("sha256:".length, "sha256:".length + 12);
}

export function downloadRows(pkg: VerifiedArea): DownloadRow[] {
  return pkg.manifest.resources.map((r) => {
    const schemas: SchemaLink[] = [];
    const json = schemaPath(DATA_DIR, r.jsonSchema);
    const table = r.mediatype === "text/csv" || r.type === "table";
    if (json)
      schemas.push({
        href: json,
        label: table
          ? "Row JSON Schema"
          : typeof r.jsonSchema === "object"
            ? "JSON Schema (of each row)"
            : "JSON Schema",
      });
    if (table && r.schema)
      schemas.push({ href: `/${pkg.area}/${MANIFEST_FILE}`, label: "Table Schema (in datapackage.json)" });
    return {
      name: r.name,
      title: r.title ?? r.name,
      description: r.description ?? "",
      path: r.path,
      href: isPublic(r) ? `/${pkg.area}/${r.path}` : null,
      bytes: r.bytes,
      size: humanBytes(r.bytes),
      format: FORMATS[r.mediatype] ?? (r.format ? r.format.toUpperCase() : r.mediatype),
      mediatype: r.mediatype,
      hash: r.hash,
      hashShort: shortHash(r.hash),
      schemas,
      access: r.access,
      tier: accessTier(r.access),
    };
  });
}

export const manifestHref = (slug: AreaSlug) => `/${slug}/${MANIFEST_FILE}`;
export const signatureHref = (slug: AreaSlug) => `/${slug}/${SIGNATURE_FILE}`;
export const DATASET_KEY_HREF = "/keys/datasets.vkey";

// ---------------------------------------------------------------------------------------------
// display: every page writes numbers, amounts, shares and instants with core/format/text.ts

export {
  age,
  count,
  dateTime,
  day,
  decimal,
  duration,
  mic,
  micAmount,
  micOfNumber,
  plural,
  shardsOfMicNumber,
  words,
} from "../../../core/format/text.ts";

/** 1234.5 → "1,234.5" with at most `digits` decimals. */
export function num(value: number, digits = 2): string {
  return value.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: 0 });
}

/** 1234.5 → "1,234.50": a fixed number of decimals (core/format's `decimal`). */
export const fixed = decimal;

/** 0.8436 → "84.4%" (core/format's `percent`). */
export const percent = corePercent;

/** "2026-11-21T01:08:43.174Z" → "21 Nov 2026, 01:08 UTC" (core/format's `dateTime`). */
export const utc = (iso: string): string => dateTime(iso);
