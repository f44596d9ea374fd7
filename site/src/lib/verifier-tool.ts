/**
 * The downloaders' verifier (packages/integrity-verify) as the static build publishes it: an npm
 * package tarball at `/tools/<name>-<version>.tgz`, with its SHA-256 beside it in `sha256sum` format
 * (`/tools/<name>-<version>.tgz.sha256`), so that `npx --yes --package=<URL of the tarball>
 * integrity-verify …` runs it without the npm registry (the package is not published there, and a
 * registry package of that name is not ours: docs/verify-downloads.md).
 *
 * The tarball is written here rather than by `npm pack`, so that the same package sources give the
 * same bytes on any machine and Node: `npm pack` compresses with Node's zlib, whose deflate output
 * may differ between zlib builds and CPUs. Here:
 *  - tar (ustar): package.json and the files the package's `files` field names, each under
 *    `package/`, sorted by path, regular files only; mtime 1985-10-26T08:15:00Z (npm's), uid/gid 0,
 *    no user or group names, mode 0755 for the `bin` entries and 0644 for the rest; two zero blocks;
 *  - gzip: no name, mtime 0, OS "unknown" (255), the tar in stored (uncompressed) deflate blocks —
 *    no compressor, so nothing but the input decides the bytes. The package is small (~170 kB as stored).
 *
 * The package is built from the one verifier at pack time. In the repository its modules import the
 * transparency-log checks (signed notes, checkpoints, RFC 9162 proofs) from core/tlog/, which the
 * server and the portal use too; the tarball carries a copy of core/tlog/*.js at src/tlog/, and each
 * import of core/tlog/ in the package's files is rewritten to point there. Nothing else changes, so
 * the same sources still give the same bytes, and an import of anything else outside the package
 * fails the pack.
 *
 * No Astro or Vite import: astro.config.mjs publishes with it, the tests repack with it.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, posix, relative, resolve, sep } from "node:path";
import { crc32 } from "node:zlib";
import { sha256Hex } from "../../../core/digest.ts";

/** The folder of the built site the tools are published under. */
export const TOOLS_DIR = "tools";
/** The one verifier's folder (relative to the repository, two levels above the package) and where the tarball carries it. */
const SHARED = { from: "core/tlog", to: "src/tlog" } as const;
/** npm's fixed mtime for packed files (1985-10-26T08:15:00Z), in seconds. */
const TAR_MTIME = 499162500;

export interface PackedTool {
  name: string;
  version: string;
  /** `<name>-<version>.tgz` */
  fileName: string;
  /** The files packed, relative to the package folder, sorted (each is `package/<file>` in the tar). */
  files: string[];
  /** Of `files`, the copies of the one verifier's modules (core/tlog/*.js at src/tlog/). */
  bundled: string[];
  bytes: Buffer;
  /** Hex SHA-256 of `bytes`. */
  sha256: string;
}

interface PackageJson {
  name?: unknown;
  version?: unknown;
  files?: unknown;
  bin?: unknown;
}

/** Every regular file under `dir` (recursively), "/"-separated and relative to `root`. */
function walk(root: string, dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const rel = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...walk(root, rel));
    else if (entry.isFile()) out.push(rel);
  }
  return out;
}

/**
 * The files of the package, as its `files` field names them: a folder (all its files), a file, or
 * a pattern with `*` in its last part (`src/*.js`); package.json always. Throws on an entry that
 * names nothing, so a renamed file fails the build instead of leaving the tool incomplete.
 */
function packageFiles(packageDir: string, pkg: PackageJson): string[] {
  if (!Array.isArray(pkg.files) || pkg.files.some((f) => typeof f !== "string"))
    throw new Error(`${packageDir}/package.json: "files" must list the files to publish`);
  const files = new Set(["package.json"]);
  for (const entry of pkg.files as string[]) {
    const clean = posix.normalize(entry).replace(/\/$/, "");
    if (clean.startsWith("..") || clean.startsWith("/"))
      throw new Error(`${packageDir}/package.json: "files" entry ${entry} is outside the package`);
    const slash = clean.lastIndexOf("/");
    const [dir, last] = slash < 0 ? ["", clean] : [clean.slice(0, slash), clean.slice(slash + 1)];
    let matched: string[];
    if (dir.includes("*"))
      throw new Error(`${packageDir}/package.json: "files" entry ${entry}: only the last part may hold a *`);
    if (last.includes("*")) {
      const pattern = new RegExp(
        `^${last
          .split("*")
          .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
          .join("[^/]*")}$`,
      );
      const folder = join(packageDir, dir);
      matched = existsSync(folder)
        ? readdirSync(folder, { withFileTypes: true })
            .filter((e) => e.isFile() && pattern.test(e.name))
            .map((e) => (dir ? `${dir}/${e.name}` : e.name))
        : [];
    } else {
      const path = join(packageDir, clean);
      matched = !existsSync(path) ? [] : statSync(path).isDirectory() ? walk(packageDir, clean) : [clean];
    }
    if (matched.length === 0) throw new Error(`${packageDir}/package.json: "files" entry ${entry} names no file`);
    for (const file of matched) files.add(file);
  }
  return [...files].sort();
}

/** A relative import specifier: `from "./x.js"`, `import("../x.js")`. */
const RELATIVE_IMPORT = /(\bfrom\s*|\bimport\s*\(\s*)(["'])(\.\.?\/[^"']*)\2/g;

/**
 * The text of the package's `file` with each import of the one verifier (core/tlog/) pointed at its
 * copy in the tarball (src/tlog/). Throws on an import of anything else outside the package.
 */
function pointAtCopy(packageDir: string, sharedDir: string, file: string, text: string): string {
  return text.replace(RELATIVE_IMPORT, (whole, lead: string, quote: string, specifier: string) => {
    const target = resolve(packageDir, dirname(file), specifier);
    if (!relative(packageDir, target).startsWith("..")) return whole;
    const within = relative(sharedDir, target);
    if (within.startsWith("..") || within.includes(":"))
      throw new Error(`${packageDir}/${file}: imports ${specifier}, outside the package and ${SHARED.from}/`);
    const copy = posix.relative(posix.dirname(file), posix.join(SHARED.to, within.split(sep).join("/")));
    return `${lead}${quote}${copy.startsWith(".") ? copy : `./${copy}`}${quote}`;
  });
}

/** The one verifier's modules (core/tlog/*.js), which must import nothing outside their folder. */
function sharedModules(sharedDir: string): string[] {
  const names = readdirSync(sharedDir, { withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(".js"))
    .map((e) => e.name)
    .sort();
  if (names.length === 0) throw new Error(`${sharedDir}: no module to pack`);
  for (const name of names) {
    for (const [, , , specifier] of readFileSync(join(sharedDir, name), "utf8").matchAll(RELATIVE_IMPORT)) {
      if (!/^\.\/[^/]+\.js$/.test(specifier!))
        throw new Error(`${sharedDir}/${name}: imports ${specifier}, outside ${SHARED.from}/`);
    }
  }
  return names;
}

/** An ASCII field of a tar header: the text, NUL-padded to `length` (it must fit, NUL included for numbers). */
function field(header: Buffer, offset: number, length: number, text: string): void {
  const bytes = Buffer.from(text, "ascii");
  if (bytes.length > length || !/^[\x00\x20-\x7e]*$/.test(text))
    throw new Error(`tar: ${JSON.stringify(text)} does not fit a ${length}-byte field`);
  bytes.copy(header, offset);
}

const octal = (value: number, length: number) => `${value.toString(8).padStart(length - 1, "0")}\0`;

/** One ustar header block for a regular file. */
function tarHeader(path: string, size: number, mode: number): Buffer {
  const header = Buffer.alloc(512);
  if (Buffer.byteLength(path) > 100) throw new Error(`tar: the path ${path} is longer than 100 bytes`);
  field(header, 0, 100, path);
  field(header, 100, 8, octal(mode, 8));
  field(header, 108, 8, octal(0, 8));
  field(header, 116, 8, octal(0, 8));
  field(header, 124, 12, octal(size, 12));
  field(header, 136, 12, octal(TAR_MTIME, 12));
  field(header, 148, 8, "        ");
  field(header, 156, 1, "0");
  field(header, 257, 6, "ustar\0");
  field(header, 263, 2, "00");
  let sum = 0;
  for (const byte of header) sum += byte;
  field(header, 148, 8, `${sum.toString(8).padStart(6, "0")}\0 `);
  return header;
}

/** A tar of `entries` (in the order given), ended by two zero blocks. */
function tarOf(entries: readonly { path: string; mode: number; bytes: Uint8Array }[]): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    parts.push(tarHeader(e.path, e.bytes.length, e.mode), Buffer.from(e.bytes));
    const pad = (512 - (e.bytes.length % 512)) % 512;
    if (pad) parts.push(Buffer.alloc(pad));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

/** A gzip member holding `data` in stored deflate blocks: no timestamp, no name, OS unknown. */
function gzipStored(data: Uint8Array): Buffer {
  const parts: Buffer[] = [Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff])];
  const MAX = 0xffff;
  let at = 0;
  do {
    const length = Math.min(MAX, data.length - at);
    const block = Buffer.alloc(5);
    block[0] = at + length >= data.length ? 1 : 0; // BFINAL, BTYPE 00 (stored)
    block.writeUInt16LE(length, 1);
    block.writeUInt16LE(~length & 0xffff, 3);
    parts.push(block, Buffer.from(data.subarray(at, at + length)));
    at += length;
  } while (at < data.length);
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc32(data) >>> 0, 0);
  trailer.writeUInt32LE(data.length >>> 0, 4);
  parts.push(trailer);
  return Buffer.concat(parts);
}

/** The package in `packageDir` as a deterministic npm tarball (see the top of this file). */
export function packTool(packageDir: string): PackedTool {
  const pkg = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as PackageJson;
  if (typeof pkg.name !== "string" || !/^[a-z0-9][a-z0-9._-]*$/.test(pkg.name))
    throw new Error(`${packageDir}/package.json: a plain, unscoped "name" is needed`);
  if (typeof pkg.version !== "string" || !/^\d+\.\d+\.\d+$/.test(pkg.version))
    throw new Error(`${packageDir}/package.json: "version" must be x.y.z`);
  const bins = new Set(
    (typeof pkg.bin === "string" ? [pkg.bin] : pkg.bin && typeof pkg.bin === "object" ? Object.values(pkg.bin) : [])
      .filter((b): b is string => typeof b === "string")
      .map((b) => posix.normalize(b)),
  );
  const own = packageFiles(packageDir, pkg);
  for (const bin of bins)
    if (!own.includes(bin)) throw new Error(`${packageDir}/package.json: the bin ${bin} is not among the packed files`);
  const sharedDir = resolve(packageDir, "..", "..", SHARED.from);
  const contents = new Map<string, Uint8Array>();
  for (const file of own) {
    const bytes = readFileSync(join(packageDir, file));
    contents.set(
      file,
      file.endsWith(".js") ? Buffer.from(pointAtCopy(packageDir, sharedDir, file, bytes.toString("utf8"))) : bytes,
    );
  }
  const bundled = sharedModules(sharedDir).map((name) => `${SHARED.to}/${name}`);
  for (const file of bundled) {
    if (contents.has(file))
      throw new Error(`${packageDir}/${file}: the package holds a file where the verifier's copy goes`);
    contents.set(file, readFileSync(join(sharedDir, posix.basename(file))));
  }
  const files = [...contents.keys()].sort();
  const tar = tarOf(
    files.map((file) => ({
      path: `package/${file}`,
      mode: bins.has(file) ? 0o755 : 0o644,
      bytes: contents.get(file)!,
    })),
  );
  const bytes = gzipStored(tar);
  return {
    name: pkg.name,
    version: pkg.version,
    fileName: `${pkg.name}-${pkg.version}.tgz`,
    files,
    bundled,
    bytes,
    sha256: sha256Hex(bytes),
  };
}

/** The built site's path of a packed tool and of its digest file. */
export function toolPaths(fileName: string): { tarballPath: string; checksumPath: string } {
  return { tarballPath: `/${TOOLS_DIR}/${fileName}`, checksumPath: `/${TOOLS_DIR}/${fileName}.sha256` };
}

/** The `sha256sum` line of a packed tool: `<hex>  <file name>`. */
function sha256sumLine(tool: Pick<PackedTool, "sha256" | "fileName">): string {
  return `${tool.sha256}  ${tool.fileName}\n`;
}

/** Writes the tarball and its `.sha256` under `<outDir>/tools/`. */
export function publishTool(tool: PackedTool, outDir: string): void {
  mkdirSync(join(outDir, TOOLS_DIR), { recursive: true });
  writeFileSync(join(outDir, TOOLS_DIR, tool.fileName), tool.bytes);
  writeFileSync(join(outDir, TOOLS_DIR, `${tool.fileName}.sha256`), sha256sumLine(tool));
}

/**
 * The command that runs the verifier from a tarball, without the registry: `tarball` is its URL
 * (or a local path such as `./integrity-verify-0.4.0.tgz`), `args` what to check.
 */
export function npxCommand(tarball: string, args: string): string {
  return `npx --yes --package=${tarball} integrity-verify ${args}`;
}

/**
 * `virtual:integrity/verifier-tool`: what the pages need to print the command — the tool's name,
 * version, paths and digest, from the same pack the build publishes.
 */
export function verifierToolModule(tool: PackedTool) {
  const id = "virtual:integrity/verifier-tool";
  const value = {
    name: tool.name,
    version: tool.version,
    fileName: tool.fileName,
    ...toolPaths(tool.fileName),
    sha256: tool.sha256,
  };
  return {
    name: "integrity:verifier-tool",
    resolveId: (source: string) => (source === id ? `\0${id}` : undefined),
    load: (resolved: string) => (resolved === `\0${id}` ? `export default ${JSON.stringify(value)};\n` : undefined),
  };
}

/**
 * Where a page tells a reader to fetch the tarball from: its absolute URL on the site's configured
 * origin (SITE_URL, as the canonical links use it), or, when no origin is configured, the path
 * alone (the page then says to put the site's address in front of it).
 */
export function toolUrl(site: URL | undefined, path: string): { url: string; absolute: boolean } {
  return site ? { url: new URL(path, site).href, absolute: true } : { url: path, absolute: false };
}

/** The site's origin for the example URLs of a command; without a configured one, `https://<this site>` for the reader to replace. */
export function siteOrigin(site: URL | undefined): string {
  return site ? site.origin : "https://<this site>";
}
