// @ts-check
/** The source over a folder of the local file system (Node only; the browser never loads this module). */
import { readdir, readFile, stat } from "node:fs/promises";
import { relative, resolve, sep } from "node:path";
import { VerifyError } from "./errors.js";
import { sizeRefused } from "./source.js";

/** The most files a folder may hold for the verifier to list them. */
const MAX_FILES = 10_000;

/**
 * @param {string} folder
 * @returns {import("./source.js").Source}
 */
export function folderSource(folder) {
  const root = resolve(folder);
  /** @param {string} path */
  const at = (path) => resolve(root, ...path.split("/"));
  return {
    base: root + sep,
    describe: at,
    async read(path, limit) {
      try {
        const info = await stat(at(path));
        if (!info.isFile()) return null;
        const refused = sizeRefused(at(path), info.size, limit);
        if (refused) throw refused;
        return new Uint8Array(await readFile(at(path)));
      } catch (error) {
        if (error instanceof VerifyError) throw error;
        const code = /** @type {NodeJS.ErrnoException} */ (error).code;
        if (code === "ENOENT" || code === "ENOTDIR") return null;
        throw new VerifyError("fetch-failed", `${at(path)}: ${/** @type {Error} */ (error).message}`);
      }
    },
    at: (path) => folderSource(at(path)),
    async list() {
      /** @type {string[]} */
      const files = [];
      let entries;
      try {
        entries = await readdir(root, { recursive: true, withFileTypes: true });
      } catch (error) {
        throw new VerifyError("fetch-failed", `${root}: ${/** @type {Error} */ (error).message}`);
      }
      for (const entry of entries) {
        // `parentPath` from Node 20.12, `path` before it.
        const full = resolve(
          /** @type {{ parentPath?: string; path?: string }} */ (entry).parentPath ??
            /** @type {{ path?: string }} */ (entry).path ??
            root,
          entry.name,
        );
        const isFile =
          entry.isFile() || (entry.isSymbolicLink() && (await stat(full).catch(() => null))?.isFile() === true);
        if (!isFile) continue;
        if (files.length >= MAX_FILES)
          throw new VerifyError("usage", `${root}: more than ${MAX_FILES} files; point at the area's folder`);
        files.push(relative(root, full).split(sep).join("/"));
      }
      return files.sort();
    },
  };
}
