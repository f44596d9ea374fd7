/**
 * Offline verification of the published data areas — what a downloader runs, with nothing but the
 * downloaded files: `data/areas/`, the trusted keys `data/keys/datasets.vkey`, the JSON Schemas
 * `data/schemas/` and the official Frictionless profiles. No ledger, no sources.
 *
 * For each area, stopping at its first failure (which names the file): the manifest signature and the
 * manifest's agreement with the published-data contract (core/datapackage, as the API and the site
 * check them); the Frictionless profiles; then every resource: its bytes and sha256, and its schema
 * (pipeline/validate/). A keyed resource that is not present is skipped and counted (`--keyed DIR`
 * names where the keyed files are); `publicOnly` fails on a keyed file in the public folder of an
 * area that is not SAMPLE data.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";
import type { ValidateFunction } from "ajv";
import type { NoteVerifier } from "../core/checkpoint.ts";
import {
  AREAS,
  checkManifest,
  DataPackageError,
  isArea,
  isKeyed,
  MANIFEST_FILE,
  openManifestSignature,
  resourcePathProblem,
  schemaIdOf,
  SIGNATURE_FILE,
  type CheckedManifest,
  type DataPackageErrorCode,
} from "../core/datapackage/index.ts";
import type { FileDigest } from "../store/digest-cache.ts";
import type { TableSchema } from "./manifest.ts";
import { readTrustedKeys } from "./sign.ts";
import { CsvValidator } from "./validate/csv-table.ts";
import { DataError, type DataErrorCode } from "./validate/data-error.ts";
import { isJsonArraySchema, JsonArrayValidator } from "./validate/json-array.ts";
import { validateJsonBytes } from "./validate/json-document.ts";
import { JsonSchemaSet } from "./validate/json-schemas.ts";
import { defaultProfilesDir, ProfileValidator } from "./validate/profiles.ts";
import { checkStreamedFile, type PieceValidator } from "./validate/streamed-file.ts";

export interface AreaResult {
  area: string;
  ok: boolean;
  /** The first file that failed, as named to the user, what kind of check it failed, and how. */
  file?: string;
  code?: DataErrorCode | "error";
  problem?: string;
  resources: number;
  /** Keyed resources not present where verified (a public copy holds none): their hashes stay checked by whoever has them. */
  keyedAbsent: number;
}

export interface VerifyContext {
  trusted: NoteVerifier[];
  schemas: JsonSchemaSet;
  profiles: ProfileValidator;
  /** The areas folder of the keyed files (default: the public one). */
  keyedAreas?: string;
  /** Fail when a keyed file is present in the public folder of a non-SAMPLE area (the CI guard). */
  publicOnly?: boolean;
}

/** Which kind of check each error of the published-data contract is. */
const CONTRACT_CHECKS: Record<DataPackageErrorCode, DataErrorCode> = {
  "keys-malformed": "keys",
  "keys-empty": "keys",
  "signature-malformed": "signature",
  "signature-untrusted": "signature",
  "signature-invalid": "signature",
  "signature-other-area": "signature",
  "signature-other-manifest": "signature",
  "manifest-malformed": "contract",
  "path-invalid": "contract",
  "path-reserved": "contract",
  "path-duplicate": "contract",
  "file-unknown": "contract",
  "access-mismatch": "contract",
  "mediatype-mismatch": "contract",
};

/** Verifies one area folder; stops at the first failure. */
export function verifyArea(areasDir: string, area: string, ctx: VerifyContext): AreaResult {
  const dir = join(areasDir, area);
  const manifestFile = join(dir, MANIFEST_FILE);
  const sigFile = join(dir, SIGNATURE_FILE);
  let resources = 0;
  let keyedAbsent = 0;
  try {
    if (!isArea(area))
      throw new DataError("contract", dir, `not an area of the published-data contract (${AREAS.join(", ")})`);
    if (!existsSync(manifestFile)) throw new DataError("missing", manifestFile, "missing");
    const manifest = readFileSync(manifestFile);
    if (!existsSync(sigFile)) throw new DataError("missing", sigFile, "missing: the manifest is not signed");
    // The contract's checks (core/datapackage): signature, then the manifest's agreement with the
    // contract (files, access tiers, media types, path rules); a failure names the file at fault.
    let checked: CheckedManifest;
    try {
      openManifestSignature(area, manifest, readFileSync(sigFile, "utf8"), ctx.trusted);
      checked = checkManifest(area, manifest);
    } catch (error) {
      if (!(error instanceof DataPackageError)) throw error;
      const file = error.subject === "signature" ? sigFile : error.subject === "keys" ? "datasets.vkey" : manifestFile;
      throw new DataError(
        CONTRACT_CHECKS[error.code],
        file,
        error.code === "signature-other-manifest" ? `signature check failed: ${error.message}` : error.message,
      );
    }
    const problems = ctx.profiles.check(checked.manifest);
    if (problems.length > 0) throw new DataError("profile", manifestFile, problems[0]!);
    for (const r of checked.manifest.resources) {
      resources += 1;
      const keyed = isKeyed(checked.resources.get(r.path)!.file);
      if (keyed && ctx.publicOnly && checked.manifest.sample !== true && existsSync(join(dir, r.path))) {
        throw new DataError(
          "misplaced",
          join(dir, r.path),
          "a keyed file in the public data folder: keyed files belong in the keyed data folder (KEYED_DATA_DIR)",
        );
      }
      const folder = keyed ? join(ctx.keyedAreas ?? areasDir, area) : dir;
      if (keyed && !existsSync(join(folder, r.path))) {
        keyedAbsent += 1;
        continue;
      }
      verifyResource(folder, manifestFile, r, ctx);
    }
    return { area, ok: true, resources, keyedAbsent };
  } catch (error) {
    if (error instanceof DataError)
      return { area, ok: false, file: error.file, code: error.code, problem: error.problem, resources, keyedAbsent };
    return {
      area,
      ok: false,
      file: manifestFile,
      code: "error",
      problem: (error as Error).message,
      resources,
      keyedAbsent,
    };
  }
}

function verifyResource(dir: string, manifestFile: string, r: Record<string, unknown>, ctx: VerifyContext): void {
  const path = r.path;
  if (typeof path !== "string" || resourcePathProblem(path) !== null) {
    throw new DataError(
      "contract",
      manifestFile,
      `resource ${String(r.name)}: path ${JSON.stringify(path)} is not a relative path inside the area`,
    );
  }
  const file = join(dir, path);
  if (!existsSync(file) || !statSync(file).isFile()) throw new DataError("missing", file, "missing");
  if (typeof r.hash !== "string" || !/^sha256:[0-9a-f]{64}$/.test(r.hash)) {
    throw new DataError("contract", manifestFile, `resource ${String(r.name)}: hash must be sha256:<64 lowercase hex>`);
  }
  const validatorOf = (reference: string): ValidateFunction => {
    // A relative reference (../../schemas/…) names the schema whose $id it maps to.
    const id = schemaIdOf(reference) ?? reference;
    if (!ctx.schemas.has(id))
      throw new DataError(
        "contract",
        manifestFile,
        `resource ${String(r.name)}: JSON Schema ${id} is not in ${ctx.schemas.dir}`,
      );
    return ctx.schemas.validator(id);
  };
  const checkDigest = (d: FileDigest) => {
    if (d.bytes !== r.bytes)
      throw new DataError("digest", file, `${d.bytes} bytes, the manifest records ${String(r.bytes)}`);
    if (d.hash !== r.hash) throw new DataError("digest", file, `sha256 is ${d.hash}, the manifest records ${r.hash}`);
  };
  const streamed = (validator: PieceValidator) => {
    const result = checkStreamedFile(file, file, validator);
    checkDigest(result);
    if (result.problem) throw result.problem;
  };
  if (r.mediatype === "text/csv" || (r.type === "table" && r.mediatype !== "application/vnd.apache.parquet")) {
    if (typeof r.schema !== "object" || r.schema === null)
      throw new DataError("contract", manifestFile, `resource ${String(r.name)}: a table needs an inline Table Schema`);
    return streamed(
      new CsvValidator(
        file,
        r.schema as TableSchema,
        typeof r.jsonSchema === "string" ? validatorOf(r.jsonSchema) : undefined,
      ),
    );
  }
  if (r.mediatype === "application/json" && isJsonArraySchema(r.jsonSchema)) {
    return streamed(new JsonArrayValidator(file, validatorOf(r.jsonSchema.items.$ref)));
  }
  const bytes = readFileSync(file);
  checkDigest({ bytes: bytes.length, hash: `sha256:${createHash("sha256").update(bytes).digest("hex")}` });
  if (r.mediatype === "application/vnd.apache.parquet" && !isParquetFile(bytes))
    throw new DataError("encoding", file, "not a Parquet file (PAR1 magic at both ends)");
  if (r.mediatype === "application/json") {
    if (typeof r.jsonSchema !== "string")
      throw new DataError("contract", manifestFile, `resource ${String(r.name)}: a JSON resource needs its jsonSchema`);
    validateJsonBytes(file, bytes, validatorOf(r.jsonSchema));
  }
}

/** A Parquet file begins and ends with the magic "PAR1" (its rows are checked by the Parquet tests' outside reader). */
function isParquetFile(bytes: Uint8Array): boolean {
  const magic = [0x50, 0x41, 0x52, 0x31];
  return bytes.length >= 12 && magic.every((b, i) => bytes[i] === b && bytes[bytes.length - 4 + i] === b);
}

export interface VerifyOptions {
  /** Trusted keys file; default `<areasDir>/../keys/datasets.vkey`. */
  keys?: string;
  /** JSON Schemas; default `<areasDir>/../schemas`. */
  schemas?: string;
  /** Frictionless profiles; default {@link defaultProfilesDir}. */
  profiles?: string;
  /** Only these areas; default every folder in areasDir. */
  areas?: readonly string[];
  /** The areas folder of the keyed files (`$KEYED_DATA_DIR/areas`); default areasDir. */
  keyed?: string;
  /** Fail on a keyed file in the public folder of a non-SAMPLE area. */
  publicOnly?: boolean;
}

export function verifyAreas(areasDir: string, options: VerifyOptions = {}): AreaResult[] {
  const ctx: VerifyContext = {
    trusted: readTrustedKeys(options.keys ?? join(areasDir, "..", "keys", "datasets.vkey")),
    schemas: new JsonSchemaSet(options.schemas ?? join(areasDir, "..", "schemas")),
    profiles: new ProfileValidator(options.profiles ?? defaultProfilesDir()),
    ...(options.keyed ? { keyedAreas: options.keyed } : {}),
    ...(options.publicOnly ? { publicOnly: true } : {}),
  };
  const areas =
    options.areas ??
    readdirSync(areasDir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
  return areas.map((area) => verifyArea(areasDir, area, ctx));
}
