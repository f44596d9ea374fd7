// @ts-check
/**
 * `integrity-verify <URL or folder of an area, or of one file in it> [--key K] [--area NAME] [--verbose]`
 * `integrity-verify --ledger <URL or folder of the log> --entry N [--since C] [--key K] [--origin NAME] [--verbose] [--print-entry]`
 * `integrity-verify --ledger <URL or folder of the log> --since C [--key K] [--origin NAME] [--verbose]`
 *
 * Prints the key it trusts and how far that trust goes, one line per failed check (stderr, starting
 * "FAIL"), and a final summary line. Exit status: 0 verified, 1 a check failed, 2 the check could not
 * run (bad usage, no key, a fetch error). A ledger entry whose bundle holds only its public envelope
 * verifies the leaf hash at its position; the summary line and `--print-entry` say the envelope itself
 * is NOT verified. `--key` pins the key: a file, an http(s) URL, or the note
 * verifier key itself (`<name>+<id>+<base64>`); without it the key published beside the data is used.
 * `--origin` names the log a checkpoint must be for (default: the name of the key that signed it).
 * `--since` gives a signed checkpoint the reader saw earlier (a file, an http(s) URL, or `-` for stdin):
 * it must open under the same keys, and the log's current checkpoint must extend it — not be smaller
 * (`checkpoint-rolled-back`), and prove consistent with it from the tiles (`checkpoint-inconsistent`).
 * A folder is checked as given: every file in it, each listed file not there reported not checked,
 * a file the manifest does not list failed; the area's release history (releases.json and releases/)
 * is not a file of the manifest: one line says it was not checked. `--timeout S` is the deadline of each fetch (default 30 s).
 */
import { stat, readFile } from "node:fs/promises";
import { basename, dirname, resolve, sep } from "node:path";
import { parseArgs } from "node:util";
import { DATASET_KEY_PATHS, verifyArea } from "./area.js";
import { decodeUtf8, toBase64 } from "./bytes.js";
import { VerifyError } from "./errors.js";
import { folderSource } from "./folder-source.js";
import { pinnedKeys, publishedKeys } from "./keys.js";
import { LEDGER_KEY_PATHS, verifyLedgerEntry } from "./ledger.js";
import { locateArea, namesFile, namesNothing } from "./locate.js";
import { CHECKPOINT_LIMIT, DEFAULT_TIMEOUT_SECONDS, KEY_LIMIT } from "./limits.js";
import { tooLarge, urlSource } from "./source.js";
import { witnessedMain } from "./witnessed-cli.js";

export const USAGE = [
  "usage: integrity-verify <URL or folder of an area, or of one file in it> [--key K] [--area NAME] [--verbose]",
  "       integrity-verify --ledger <URL or folder of the log> --entry N [--since C] [--key K] [--origin NAME] [--verbose] [--print-entry]",
  "       integrity-verify --ledger <URL or folder of the log> --since C [--key K] [--origin NAME] [--verbose]",
  "  --key K   pin the trusted key: a .vkey file, an http(s) URL, or the key itself (<name>+<id>+<base64>)",
  "  --origin NAME  the log the checkpoint must be for (default: the signing key's name)",
  "  --since C  a signed checkpoint you saw earlier (a file, an http(s) URL, or - for stdin): the log must extend it",
  `  --timeout S  give up a fetch that has not answered in full within S seconds (default ${DEFAULT_TIMEOUT_SECONDS})`,
  "a folder is checked as given: each file in it must be one the signed manifest lists; files it lists that",
  "are not in the folder are reported as not checked; the area's release history (releases.json, releases/)",
  "is not a file of the manifest and is reported, in one line, as not checked",
  "  --policy P  a C2SP tlog-policy (file or URL): the log's checkpoint must meet its witness quorum (also --write-proof OUT with --entry)",
  "       integrity-verify --proof F.tlog-proof --policy P [--entry-data D]   check an entry's C2SP tlog-proof offline",
  "exit status: 0 verified, 1 a check failed, 2 the check could not run",
].join("\n");

const VERIFIER_KEY = /^[^\s+]+\+[0-9a-fA-F]{8}\+\S+$/;
const isUrl = (/** @type {string} */ s) => /^https?:\/\//i.test(s);

/**
 * @typedef {object} Io
 * @property {(line: string) => void} out
 * @property {(line: string) => void} err
 * @property {typeof fetch} [fetch]
 */

/**
 * Runs the command; resolves with its exit status.
 * @param {string[]} argv
 * @param {Io} [io]
 * @returns {Promise<0 | 1 | 2>}
 */
export async function main(argv, io = { out: (l) => console.log(l), err: (l) => console.error(l) }) {
  let values, positionals;
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      options: {
        key: { type: "string" },
        area: { type: "string" },
        ledger: { type: "string" },
        entry: { type: "string" },
        origin: { type: "string" },
        since: { type: "string" },
        verbose: { type: "boolean", short: "v" },
        "print-entry": { type: "boolean" },
        timeout: { type: "string" },
        policy: { type: "string" },
        proof: { type: "string" },
        "write-proof": { type: "string" },
        "entry-data": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      allowPositionals: true,
    }));
  } catch (error) {
    io.err(`${/** @type {Error} */ (error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    io.out(USAGE);
    return 0;
  }
  if (values.policy !== undefined || values.proof !== undefined || values["write-proof"] !== undefined)
    return witnessedMain(values, positionals, argv, io, main);
  try {
    const timeoutSeconds = values.timeout === undefined ? DEFAULT_TIMEOUT_SECONDS : Number(values.timeout);
    if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0 || timeoutSeconds > 3600)
      throw new VerifyError("usage", `--timeout ${values.timeout}: a number of seconds in (0, 3600]`);
    /** @type {import("./source.js").UrlOptions} */
    const net = { fetch: io.fetch ?? globalThis.fetch, timeoutSeconds };
    if (values.ledger !== undefined) {
      const badEntry = values.entry !== undefined && !/^(?:0|[1-9][0-9]*)$/.test(values.entry);
      if (
        positionals.length > 0 ||
        badEntry ||
        (values.entry === undefined && values.since === undefined) ||
        values.area !== undefined ||
        (values.entry === undefined && values["print-entry"])
      ) {
        throw new VerifyError(
          "usage",
          "--ledger takes the log's URL or folder, and --entry N (a whole number), --since C, or both",
        );
      }
      const source = isUrl(values.ledger) ? urlSource(values.ledger, net) : folderSource(values.ledger);
      const since = values.since !== undefined ? await readSince(values.since, net) : undefined;
      const keys =
        values.key !== undefined ? await readPinned(values.key, net) : await publishedKeys(source, LEDGER_KEY_PATHS);
      const report = await verifyLedgerEntry({
        source,
        keys,
        ...(values.entry !== undefined ? { entry: Number(values.entry) } : {}),
        ...(values.origin !== undefined ? { origin: values.origin } : {}),
        ...(since !== undefined ? { since } : {}),
      });
      print(report, io, values.verbose === true);
      if (report.since && report.checks.some((c) => c.step === "consistency" && c.status === "passed")) {
        io.out(
          `checkpoint: consistent with the one you saw at size ${report.since.size} (root ${toBase64(report.since.root)}); the log is now at size ${report.checkpoint?.size}`,
        );
      }
      if (values.entry === undefined) {
        if (report.ok)
          io.out(
            `${report.what}: verified — ${report.checkpoint?.origin} at size ${report.checkpoint?.size} (root ${report.checkpoint ? toBase64(report.checkpoint.root) : ""}), signed by ${report.signedBy?.join(", ")}`,
          );
        else
          io.out(
            `${report.what}: FAILED (${report.failures.length} failed check${report.failures.length === 1 ? "" : "s"})`,
          );
        return report.exitCode;
      }
      if (report.ok && report.entryVerified) {
        io.out(
          `${report.what}: verified — included in ${report.checkpoint?.origin} at size ${report.checkpoint?.size}, signed by ${report.signedBy?.join(", ")}`,
        );
        if (values["print-entry"]) io.out(report.entryText ?? "(the entry is not UTF-8 text)");
      } else if (report.ok) {
        // An envelope bundle: only the leaf hash at this position is proven, never the envelope's fields.
        io.out(
          `${report.what}: verified — its leaf hash is included in ${report.checkpoint?.origin} at size ${report.checkpoint?.size}, signed by ${report.signedBy?.join(", ")}; ` +
            "its envelope (seq, ts, type, prev, hash) is NOT verified: it cannot be bound to the leaf without the entry's payload",
        );
        if (values["print-entry"])
          io.out(
            `NOT verified (the published envelope, not bound to the signed leaf): ${report.entryText ?? "(not UTF-8 text)"}`,
          );
      } else
        io.out(
          `${report.what}: FAILED (${report.failures.length} failed check${report.failures.length === 1 ? "" : "s"})`,
        );
      return report.exitCode;
    }
    if (
      positionals.length !== 1 ||
      values.entry !== undefined ||
      values.origin !== undefined ||
      values.since !== undefined ||
      values["print-entry"]
    ) {
      throw new VerifyError(
        "usage",
        positionals.length === 0 ? "name an area's URL or folder" : "one URL or folder, please",
      );
    }
    const target = /** @type {string} */ (positionals[0]);
    const located = await locate(target, net);
    const keys =
      values.key !== undefined
        ? await readPinned(values.key, net)
        : await publishedKeys(located.source, DATASET_KEY_PATHS);
    const report = await verifyArea({ ...located, keys, ...(values.area !== undefined ? { area: values.area } : {}) });
    print(report, io, values.verbose === true);
    const files = report.checks.filter((c) => c.step === "file");
    const skipped = files.filter((c) => c.status === "skipped").length;
    const given = located.only === undefined && located.source.list !== undefined;
    if (report.ok) {
      const checked = `${files.length - skipped} file${files.length - skipped === 1 ? "" : "s"} checked`;
      const others =
        skipped === 0
          ? ""
          : given
            ? `, ${skipped} listed but not in the folder (not checked)`
            : `, ${skipped} keyed not published here`;
      io.out(`${report.what}: verified — ${checked}${others}; manifest signed by ${report.signedBy?.join(", ")}`);
    } else
      io.out(
        `${report.what}: FAILED (${report.failures.length} failed check${report.failures.length === 1 ? "" : "s"})`,
      );
    return report.exitCode;
  } catch (error) {
    if (!(error instanceof VerifyError)) throw error;
    io.err(`FAIL ${error.code}: ${error.message}`);
    if (error.code === "usage") io.err(USAGE);
    return 2;
  }
}

/**
 * @param {import("./report.js").Report} report
 * @param {Io} io
 * @param {boolean} verbose
 */
function print(report, io, verbose) {
  for (const c of report.checks) {
    if (c.status === "failed") io.err(`FAIL ${c.step} ${c.subject}: ${c.detail} [${c.code}]`);
    else if (c.step === "key") io.out(`key ${c.subject}: ${c.detail}`);
    // The release history left unchecked is said in one line, verbose or not.
    else if (c.step === "history") io.out(`skip history ${c.subject}: ${c.detail}`);
    else if (verbose) io.out(`${c.status === "passed" ? "ok  " : "skip"} ${c.step} ${c.subject}: ${c.detail}`);
  }
}

/**
 * The area folder (and file) a URL or local path names.
 * @param {string} target
 * @param {import("./source.js").UrlOptions} net
 * @returns {Promise<{ source: import("./source.js").Source; only?: string }>}
 */
async function locate(target, net) {
  if (isUrl(target)) {
    const url = new URL(target);
    if (namesNothing(url.pathname))
      throw new VerifyError(
        "usage",
        `${url.href}: names no file (no extension, and no alias of one) and no folder (add a / for a folder)`,
      );
    if (!namesFile(url.pathname)) return { source: urlSource(url, net) };
    const dirSegments = new URL(".", url).pathname.split("/").filter(Boolean);
    const name = url.pathname.slice(url.pathname.lastIndexOf("/") + 1);
    const found = await locateArea(urlSource(new URL(".", url), net), name, dirSegments);
    if (!found) throw new VerifyError("usage", `${url.href}: no datapackage.json in the folders above it`);
    return found;
  }
  const path = resolve(target);
  const info = await stat(path).catch(() => null);
  if (info === null) throw new VerifyError("usage", `${target}: no such file or folder`);
  if (info.isDirectory()) return { source: folderSource(path) };
  const found = await locateArea(folderSource(dirname(path)), basename(path), dirname(path).split(sep).filter(Boolean));
  if (!found) throw new VerifyError("usage", `${target}: no datapackage.json in the folders above it`);
  return found;
}

/**
 * The key the user pinned: the key itself, a URL, or a file.
 * @param {string} spec
 * @param {import("./source.js").UrlOptions} net
 */
async function readPinned(spec, net) {
  if (VERIFIER_KEY.test(spec.trim())) return pinnedKeys(spec, "--key");
  if (isUrl(spec)) {
    const url = new URL(spec);
    const name = url.pathname.slice(url.pathname.lastIndexOf("/") + 1);
    const bytes = await urlSource(new URL(".", url), net).read(name, KEY_LIMIT);
    if (bytes === null) throw new VerifyError("key-missing", `${spec}: not found`);
    return pinnedKeys(decodeUtf8(bytes) ?? "", spec);
  }
  const text = await readFile(spec, "utf8").catch((/** @type {Error} */ error) => {
    throw new VerifyError("key-missing", `${spec}: ${error.message}`);
  });
  return pinnedKeys(text, resolve(spec));
}

/**
 * The earlier checkpoint the user gave with --since: from stdin (`-`), a URL or a file. Unreadable is
 * "the check could not run" (fetch-failed); what it holds is checked as a checkpoint afterwards.
 * @param {string} spec
 * @param {import("./source.js").UrlOptions} net
 * @returns {Promise<{ bytes: Uint8Array; from: string }>}
 */
async function readSince(spec, net) {
  if (spec === "-") {
    /** @type {Uint8Array[]} */
    const chunks = [];
    let length = 0;
    for await (const chunk of process.stdin) {
      length += chunk.length;
      if (length > CHECKPOINT_LIMIT.maxBytes) throw tooLarge("--since (stdin)", CHECKPOINT_LIMIT);
      chunks.push(chunk);
    }
    return { bytes: new Uint8Array(Buffer.concat(chunks)), from: "(stdin)" };
  }
  if (isUrl(spec)) {
    const url = new URL(spec);
    const name = url.pathname.slice(url.pathname.lastIndexOf("/") + 1);
    const bytes = await urlSource(new URL(".", url), net).read(name, CHECKPOINT_LIMIT);
    if (bytes === null) throw new VerifyError("fetch-failed", `--since ${spec}: not found`);
    return { bytes, from: url.href };
  }
  const bytes = await readFile(spec).catch((/** @type {Error} */ error) => {
    throw new VerifyError("fetch-failed", `--since ${spec}: ${error.message}`);
  });
  return { bytes: new Uint8Array(bytes), from: resolve(spec) };
}
