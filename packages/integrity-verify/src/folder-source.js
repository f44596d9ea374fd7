// @ts-check
/** The source over a folder of the local file system (Node only; the browser never loads this module). */
import { readFile } from "node:fs/promises";
import { resolve, sep } from "node:path";
import { VerifyError } from "./errors.js";

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
    async read(path) {
      try {
        return new Uint8Array(await readFile(at(path)));
      } catch (error) {
        const code = /** @type {NodeJS.ErrnoException} */ (error).code;
        if (code === "ENOENT" || code === "ENOTDIR") return null;
        throw new VerifyError("fetch-failed", `${at(path)}: ${/** @type {Error} */ (error).message}`);
      }
    },
    at: (path) => folderSource(at(path)),
  };
}
