/**
 * The area manifests the API trusts: `data/areas/<area>/datapackage.json` is used only after its
 * detached signature verifies under `data/keys/datasets.vkey` and it agrees with the published-data
 * contract (core/datapackage) — the same checks as `npm run verify` and the site build. Anything
 * else makes the area `unverified`, and its files answer 503 `data-unverified`.
 *
 * Verification runs once per version of the three files, not per request: a version is what `stat`
 * says of each (device, inode, size, mtime, ctime), which any write changes. File times are only as
 * fine as the kernel's clock tick, so while a version is "racy" (written less than 2 s before it
 * was verified, as git treats its index) each request also compares the bytes with the verified
 * ones, and a same-size rewrite within one tick is not missed.
 */
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import {
  checkManifest,
  DATASET_KEYS_FILE,
  DataPackageError,
  MANIFEST_FILE,
  openManifestSignature,
  parseTrustedKeys,
  SIGNATURE_FILE,
  type Area,
  type CheckedManifest,
  type DataPackageErrorCode,
} from "../../core/datapackage/index.ts";

export type ManifestState =
  | {
      status: "verified";
      resources: CheckedManifest["resources"];
      /** The manifest's `created`: when this version of the area was published. */ created?: Date;
    }
  | {
      status: "unverified";
      code: DataPackageErrorCode | "manifest-missing" | "signature-missing" | "keys-missing";
      detail: string;
    };

interface Version {
  key: string;
  bytes: (Buffer | null)[];
  racy: boolean;
  state: ManifestState;
}

const RACY_MS = 2000;

function statKey(path: string): { key: string; mtimeMs: number } {
  const s = statSync(path, { bigint: true, throwIfNoEntry: false });
  return s
    ? { key: `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`, mtimeMs: Number(s.mtimeMs) }
    : { key: "absent", mtimeMs: 0 };
}

function readOrNull(path: string): Buffer | null {
  try {
    return readFileSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

const sameBytes = (a: (Buffer | null)[], b: (Buffer | null)[]) =>
  a.every((x, i) => (x === null ? b[i] === null : b[i] !== null && x.equals(b[i]!)));

export class SignedManifests {
  readonly #dataDir: string;
  readonly #versions = new Map<Area, Version>();
  /** How many times a manifest was verified (tests: once per version, not per request). */
  verifications = 0;

  constructor(dataDir: string) {
    this.#dataDir = dataDir;
  }

  #paths(area: Area): string[] {
    const dir = join(this.#dataDir, "areas", area);
    return [join(dir, MANIFEST_FILE), join(dir, SIGNATURE_FILE), join(this.#dataDir, "keys", DATASET_KEYS_FILE)];
  }

  /** The area's verified manifest, or why there is none. Never throws. */
  state(area: Area): ManifestState {
    try {
      const paths = this.#paths(area);
      const stats = paths.map(statKey);
      const key = stats.map((s) => s.key).join("|");
      const known = this.#versions.get(area);
      if (known && known.key === key && !known.racy) return known.state;
      const bytes = paths.map(readOrNull);
      const racy = Date.now() - Math.max(...stats.map((s) => s.mtimeMs)) < RACY_MS;
      if (known && sameBytes(known.bytes, bytes)) {
        this.#versions.set(area, { ...known, key, racy });
        return known.state;
      }
      const state = this.#verify(area, bytes);
      this.#versions.set(area, { key, bytes, racy, state });
      return state;
    } catch (error) {
      return {
        status: "unverified",
        code: "manifest-malformed",
        detail: `the manifest cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})`,
      };
    }
  }

  #verify(area: Area, bytes: (Buffer | null)[]): ManifestState {
    const [manifest = null, signature = null, keys = null] = bytes;
    this.verifications += 1;
    if (manifest === null)
      return { status: "unverified", code: "manifest-missing", detail: `${area} has no ${MANIFEST_FILE}` };
    if (signature === null)
      return { status: "unverified", code: "signature-missing", detail: `${area}/${MANIFEST_FILE} is not signed` };
    if (keys === null)
      return {
        status: "unverified",
        code: "keys-missing",
        detail: `no trusted dataset keys (keys/${DATASET_KEYS_FILE})`,
      };
    try {
      openManifestSignature(
        area,
        manifest,
        signature.toString("utf8"),
        parseTrustedKeys(keys.toString("utf8"), DATASET_KEYS_FILE),
      );
      const checked = checkManifest(area, manifest);
      const created = checked.manifest.created === undefined ? undefined : new Date(checked.manifest.created);
      return {
        status: "verified",
        resources: checked.resources,
        ...(created && !Number.isNaN(created.getTime()) ? { created } : {}),
      };
    } catch (error) {
      if (error instanceof DataPackageError)
        return { status: "unverified", code: error.code, detail: `${area}/${MANIFEST_FILE}: ${error.message}` };
      throw error;
    }
  }
}
