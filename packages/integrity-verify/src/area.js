// @ts-check
/**
 * Verifies one published area (or one file of it) as a downloader receives it, in named steps:
 *
 *   key        the trusted dataset key (pinned, or published beside the data — keys.js)
 *   manifest   `datapackage.json` is there
 *   signature  `datapackage.json.sig` is a signed note by a trusted key whose text is
 *              `<area> datapackage\nsha256:<hex of the manifest bytes>\n`, for the area asked
 *   manifest   the manifest lists resources, each with a safe relative path, `bytes` and `hash`
 *   file       each listed file (or the one asked: by its path, its content-addressed `immutablePath`
 *              or an extension-less alias) has exactly `bytes` bytes and that SHA-256;
 *              a keyed file (access other than "public") that is not here is skipped, not failed.
 *              Where the source knows the files it was given (a folder, files a person chose), every
 *              file given is checked, a listed file not given is "not checked" (skipped, not failed),
 *              and a file given that the manifest does not list fails (`file-unlisted`)
 *   history    in a folder or files a person chose, the area's release history — `releases.json` and everything under
 *              `releases/` (earlier releases' signed copies, docs/releases.md) — is not a file of
 *              the current manifest: it is not counted among the files given, and one check,
 *              skipped, says how many of its files were left unchecked
 *
 * Every file is checked, so each bad one gets its line; nothing after a failed signature is checked,
 * since the manifest cannot be trusted. Schemas are not checked here (that is `npm run verify` in a
 * clone): this proves the files are the signed bytes.
 */
import { decodeUtf8, sha256, toHex } from "./bytes.js";
import { VerifyError } from "./errors.js";
import { openNote } from "./note.js";
import { Report } from "./report.js";
import { trustStatement } from "./keys.js";
import { fileLimit, MANIFEST_LIMIT, SIGNATURE_LIMIT } from "./limits.js";

export const MANIFEST_FILE = "datapackage.json";
export const SIGNATURE_FILE = "datapackage.json.sig";
/** Where the dataset key is published relative to an area folder: the site's /keys/, or data/keys/ in the repository. */
export const DATASET_KEY_PATHS = ["../keys/datasets.vkey", "../../keys/datasets.vkey"];
/** The area's release history beside its manifest (docs/releases.md): not files of the current manifest. */
export const RELEASE_HISTORY = { file: "releases.json", folder: "releases/" };
/** Names a signed manifest can carry: the five areas and the migration tree. */
export const PACKAGE_NAMES = ["government", "academics", "philosophy", "economy", "diplomacy", "migration"];
/**
 * The extension-less names an area's files are also published under (`/economy/supply` is the bytes
 * of `supply.json`): the project's contract (core/datapackage/contract.ts `areaAliases`, kinds
 * "alias" and "live"), copied here since this package imports nothing of the project's.
 * @type {Readonly<Record<string, Readonly<Record<string, string>>>>}
 */
export const AREA_ALIASES = {
  economy: { supply: "supply.json", mii: "mii.json", coordination: "coordination.json", roi: "roi.json" },
};

// The project's resource path rule (core/datapackage/paths.ts): lowercase plain segments, nothing that climbs.
const SEGMENT = /^[a-z0-9][a-z0-9._-]*$/;
const DIGEST = /^sha256:[0-9a-f]{64}$/;
const SIGNED_TEXT = /^([^\n]+) datapackage\nsha256:([0-9a-f]{64})\n$/;

/**
 * @typedef {object} AreaOptions
 * @property {import("./source.js").Source} source the area folder
 * @property {import("./keys.js").KeySet} keys
 * @property {string} [area] the area expected; default: the folder's name when it is one of PACKAGE_NAMES
 * @property {string} [only] check only this file besides the manifest: a resource's path, its
 *   `immutablePath` (`sha256/<hex><ext>`) or an alias of it (AREA_ALIASES), read under that name
 */

/**
 * @param {AreaOptions} options
 * @returns {Promise<Report & { area?: string; signedBy?: string[] }>}
 */
export async function verifyArea({ source, keys, area, only }) {
  const expected = area ?? folderArea(source.base);
  /** @type {Report & { area?: string; signedBy?: string[] }} */
  const report = new Report(expected ?? source.base);
  report.pass("key", keys.from, `${keys.keys.map((k) => `${k.name}+${k.id}`).join(", ")}; ${trustStatement(keys)}`);

  const manifestName = source.describe(MANIFEST_FILE);
  const sigName = source.describe(SIGNATURE_FILE);
  let manifest, note;
  try {
    manifest = await source.read(MANIFEST_FILE, MANIFEST_LIMIT);
    if (manifest === null) throw new VerifyError("missing", "missing: no manifest here");
  } catch (error) {
    report.fail("manifest", manifestName, error);
    return report;
  }
  try {
    const sig = await source.read(SIGNATURE_FILE, SIGNATURE_LIMIT);
    if (sig === null) throw new VerifyError("missing", "missing: the manifest is not signed");
    note = decodeUtf8(sig);
    if (note === null) throw new VerifyError("signature-malformed", "not UTF-8 text");
    const opened = await openNote(note, keys.keys);
    const signed = SIGNED_TEXT.exec(opened.text);
    if (!signed)
      throw new VerifyError(
        "signature-malformed",
        "the signed text is not `<area> datapackage` and the manifest's sha256",
      );
    const [, signedArea = "", signedHash = ""] = signed;
    if (expected !== undefined && signedArea !== expected) {
      throw new VerifyError(
        "signature-other-area",
        `the signature is for the ${signedArea} manifest, not ${expected}'s`,
      );
    }
    const actual = toHex(await sha256(manifest));
    if (actual !== signedHash) {
      throw new VerifyError(
        "signature-other-manifest",
        `the manifest changed: it hashes to sha256:${actual}, the signature covers sha256:${signedHash}`,
      );
    }
    report.area = signedArea;
    report.what = signedArea;
    report.signedBy = opened.signedBy;
    report.pass("signature", sigName, `the ${signedArea} manifest, signed by ${opened.signedBy.join(", ")}`);
  } catch (error) {
    report.fail("signature", sigName, error);
    return report;
  }

  let resources;
  try {
    resources = listedResources(manifest);
    report.pass("manifest", manifestName, `${resources.length} files listed`);
  } catch (error) {
    report.fail("manifest", manifestName, error);
    return report;
  }

  if (only === undefined && source.list !== undefined) {
    const listed = await source.list();
    const history = listed.filter(isReleaseHistory);
    await checkGiven(
      report,
      source,
      resources,
      listed.filter((g) => !isReleaseHistory(g)),
    );
    if (history.length > 0)
      report.skip(
        "history",
        source.describe(history.length === 1 ? /** @type {string} */ (history[0]) : RELEASE_HISTORY.folder),
        historyDetail(history),
      );
    return report;
  }
  if (only === undefined) {
    for (const r of resources) await checkFile(report, source, r, r.path);
    return report;
  }
  const aliased = AREA_ALIASES[report.area ?? ""]?.[only];
  const named = resources.find((r) => r.path === only || r.immutablePath === only || r.path === aliased);
  if (named === undefined)
    report.fail(
      "file",
      source.describe(only),
      new VerifyError("file-unlisted", "the signed manifest does not list this file"),
    );
  else await checkFile(report, source, named, only);
  return report;
}

/**
 * @typedef {{ path: string; immutablePath?: string; bytes: number; hash: string; keyed: boolean }} Listed
 */

/**
 * The manifest's resources, each with a safe path, a byte count and a sha256 digest.
 * @param {Uint8Array} bytes
 * @returns {Listed[]}
 */
function listedResources(bytes) {
  const text = decodeUtf8(bytes);
  let manifest;
  try {
    manifest = text === null ? null : JSON.parse(text);
  } catch {
    manifest = null;
  }
  if (typeof manifest !== "object" || manifest === null || !Array.isArray(manifest.resources)) {
    throw new VerifyError("manifest-malformed", "not a data package manifest: no resources array");
  }
  if (manifest.keyedResources !== undefined && !Array.isArray(manifest.keyedResources)) {
    throw new VerifyError("manifest-malformed", "keyedResources must be an array");
  }
  // Keyed files are listed apart (keyedResources), where a standard reader does not look; they are
  // checked where present and skipped where not (a public copy never holds them).
  /** @type {{ r: unknown; keyedList: boolean }[]} */
  const listed = [
    ...manifest.resources.map((/** @type {unknown} */ r) => ({ r, keyedList: false })),
    ...(manifest.keyedResources ?? []).map((/** @type {unknown} */ r) => ({ r, keyedList: true })),
  ];
  /** @type {Set<string>} */
  const seen = new Set();
  return listed.map(({ r, keyedList }, /** @type {number} */ i) => {
    const {
      path,
      immutablePath,
      bytes: size,
      hash,
      access,
    } = /** @type {Record<string, unknown>} */ (typeof r === "object" && r !== null ? r : {});
    if (
      typeof path !== "string" ||
      path.length > 200 ||
      !path.split("/").every((s) => SEGMENT.test(s)) ||
      seen.has(path)
    ) {
      throw new VerifyError(
        "path-invalid",
        `resource ${i}: path ${JSON.stringify(path)} is not a unique relative path of lowercase segments`,
      );
    }
    seen.add(path);
    if (
      typeof size !== "number" ||
      !Number.isSafeInteger(size) ||
      size < 0 ||
      typeof hash !== "string" ||
      !DIGEST.test(hash)
    ) {
      throw new VerifyError(
        "manifest-malformed",
        `resource ${path}: needs bytes (a whole number) and hash (sha256:<64 hex>)`,
      );
    }
    if (
      immutablePath !== undefined &&
      (typeof immutablePath !== "string" || !immutablePath.split("/").every((s) => SEGMENT.test(s)))
    ) {
      throw new VerifyError(
        "path-invalid",
        `resource ${path}: immutablePath ${JSON.stringify(immutablePath)} is not a relative path of lowercase segments`,
      );
    }
    const keyed = keyedList || (access !== undefined && access !== "public");
    return immutablePath === undefined
      ? { path, bytes: size, hash, keyed }
      : { path, immutablePath, bytes: size, hash, keyed };
  });
}

/**
 * @param {Report} report
 * @param {import("./source.js").Source} source
 * @param {Listed} r
 * @param {string} at where its bytes are read: its path, or the other name it was asked by
 */
async function checkFile(report, source, r, at) {
  const name = source.describe(at);
  try {
    const bytes = await source.read(at, fileLimit(r.bytes));
    if (bytes === null) {
      if (r.keyed) return report.skip("file", name, "keyed: not published here (it is served to key holders only)");
      throw new VerifyError("missing", "missing: the manifest lists it");
    }
    if (bytes.length !== r.bytes)
      throw new VerifyError("size-mismatch", `${bytes.length} bytes, the manifest records ${r.bytes}`);
    const hash = `sha256:${toHex(await sha256(bytes))}`;
    if (hash !== r.hash) throw new VerifyError("hash-mismatch", `sha256 is ${hash}, the manifest records ${r.hash}`);
    report.pass("file", name, `${r.bytes} bytes, ${r.hash}`);
  } catch (error) {
    report.fail("file", name, error);
  }
}

/**
 * Checks the files a source was given: each against the resource it names (its path, its
 * `immutablePath` or an alias; by bare name for chosen files), in the manifest's order; a listed file
 * not given is reported not checked; a file given that the manifest does not list fails.
 * @param {Report & { area?: string }} report
 * @param {import("./source.js").Source} source
 * @param {Listed[]} resources
 * @param {string[]} given
 */
async function checkGiven(report, source, resources, given) {
  const aliases = AREA_ALIASES[report.area ?? ""] ?? {};
  const last = (/** @type {string} */ path) => path.slice(path.lastIndexOf("/") + 1);
  const nameOf = source.byName ? last : (/** @type {string} */ path) => path;
  /** @type {Set<string>} */
  const matched = new Set([MANIFEST_FILE, SIGNATURE_FILE]);
  for (const r of resources) {
    const names = [
      r.path,
      ...(r.immutablePath === undefined ? [] : [r.immutablePath]),
      ...Object.keys(aliases).filter((a) => aliases[a] === r.path),
    ].map(nameOf);
    const here = given.filter((g) => !matched.has(g) && names.includes(g));
    for (const g of here) {
      matched.add(g);
      await checkFile(report, source, r, g);
    }
    if (here.length === 0) {
      report.skip(
        "file",
        source.describe(r.path),
        r.keyed
          ? "keyed: not among the files given (it is served to key holders only)"
          : "not checked: not among the files given",
      );
    }
  }
  for (const g of given) {
    if (!matched.has(g))
      report.fail(
        "file",
        source.describe(g),
        new VerifyError("file-unlisted", "the signed manifest does not list this file"),
      );
  }
}

/**
 * Whether a file given (a path relative to the area's folder, or a chosen file's name) is part of the
 * area's release history: `releases.json`, or anything under `releases/`.
 * @param {string} path
 */
export function isReleaseHistory(path) {
  return path === RELEASE_HISTORY.file || path.startsWith(RELEASE_HISTORY.folder);
}

/**
 * What the history check says of the history files given.
 * @param {string[]} history
 */
function historyDetail(history) {
  const file = history.includes(RELEASE_HISTORY.file) ? [RELEASE_HISTORY.file] : [];
  const under = history.length - file.length;
  const copies = under === 0 ? [] : [`${under} file${under === 1 ? "" : "s"} under ${RELEASE_HISTORY.folder}`];
  return `not checked: the area's release history (${[...file, ...copies].join(" and ")}), earlier releases' copies, not files of this manifest`;
}

/**
 * The area a folder or URL names by its last segment, when that is one of the package names.
 * @param {string} base
 */
function folderArea(base) {
  const segments = base.split(/[\\/]/).filter((s) => s !== "");
  const last = segments[segments.length - 1];
  return last !== undefined && PACKAGE_NAMES.includes(last) ? last : undefined;
}
