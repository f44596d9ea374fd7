// @ts-check
/**
 * The command's witness checks (`--policy FILE`, `--proof FILE`), beside its ordinary ones (cli.js):
 *
 *   --ledger L [--entry N] --policy P   the ordinary checks, then the log's checkpoint must meet P's
 *                                       quorum; prints which witnesses cosigned. `--write-proof OUT`
 *                                       (with --entry) writes the entry's C2SP .tlog-proof
 *   <area URL or folder> --policy P     the ordinary checks, then the ledger checkpoint published
 *                                       beside the area (../ledger/checkpoint up the tree) must meet P
 *   --proof F.tlog-proof --policy P [--entry-data D]
 *                                       offline: the proof's checkpoint meets P and its inclusion
 *                                       proof leads from the leaf (D's leaf hash, else the proof's
 *                                       extra line) to the checkpoint's root
 *
 * A policy is a C2SP tlog-policy: a file, or an http(s) URL. Exit status as the command's: the
 * larger of the ordinary checks' and the witness check's.
 */
import { readFile, stat, writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { decodeUtf8, toBase64 } from "./bytes.js";
import { exitCodeOf, VerifyError } from "./errors.js";
import { folderSource } from "./folder-source.js";
import { CHECKPOINT_LIMIT, DEFAULT_TIMEOUT_SECONDS, NOTE_FILE_LIMIT } from "./limits.js";
import { urlSource } from "./source.js";
import { TileReader } from "./tiles.js";
import { formatTlogProof, verifyTlogProof } from "./tlog-proof.js";
import { checkWitnessed, parsePolicy } from "./witness.js";

const isUrl = (/** @type {string} */ s) => /^https?:\/\//i.test(s);
const WITNESS_OPTIONS = new Set(["--policy", "--proof", "--write-proof", "--entry-data"]);

/**
 * @param {string} spec a file or an http(s) URL
 * @param {typeof fetch | import("./source.js").UrlOptions} fetchImpl the fetch (or fetch and deadline) to use
 * @param {string} what
 */
async function readText(spec, fetchImpl, what) {
  if (isUrl(spec)) {
    const url = new URL(spec);
    const bytes = await urlSource(new URL(".", url), fetchImpl).read(
      url.pathname.slice(url.pathname.lastIndexOf("/") + 1),
      NOTE_FILE_LIMIT,
    );
    if (bytes === null) throw new VerifyError("fetch-failed", `${what} ${spec}: not found`);
    return decodeUtf8(bytes) ?? "";
  }
  return readFile(spec, "utf8").catch((/** @type {Error} */ e) => {
    throw new VerifyError(what === "--policy" ? "key-missing" : "fetch-failed", `${what} ${spec}: ${e.message}`);
  });
}

/**
 * @param {string} spec
 * @param {typeof fetch | import("./source.js").UrlOptions} fetchImpl
 */
export async function readPolicy(spec, fetchImpl) {
  return parsePolicy(await readText(spec, fetchImpl, "--policy"), isUrl(spec) ? spec : resolve(spec));
}

/**
 * The argument list without the witness options (and their values).
 * @param {string[]} argv
 */
function withoutWitnessOptions(argv) {
  /** @type {string[]} */
  const out = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? "";
    const name = a.includes("=") ? a.slice(0, a.indexOf("=")) : a;
    if (WITNESS_OPTIONS.has(name)) {
      if (!a.includes("=")) i++;
      continue;
    }
    out.push(a);
  }
  return out;
}

/**
 * The log folder whose checkpoint a target (an area URL or folder, or a file in one) is published beside.
 * @param {string} target
 * @param {typeof fetch | import("./source.js").UrlOptions} fetchImpl
 */
async function ledgerBeside(target, fetchImpl) {
  const ups = ["../ledger/", "../../ledger/", "../../../ledger/", "ledger/"];
  if (isUrl(target)) {
    const base = target.endsWith("/") ? new URL(target) : new URL(".", target);
    for (const up of ups) {
      const source = urlSource(new URL(up, base), fetchImpl);
      if ((await source.read("checkpoint", CHECKPOINT_LIMIT).catch(() => null)) !== null) return source;
    }
  } else {
    const path = resolve(target);
    const dir = (await stat(path).catch(() => null))?.isDirectory() ? path : dirname(path);
    for (const up of ups) {
      const source = folderSource(resolve(dir, up));
      if ((await source.read("checkpoint", CHECKPOINT_LIMIT).catch(() => null)) !== null) return source;
    }
  }
  throw new VerifyError("missing", `${target}: no ledger checkpoint published beside it (../ledger/checkpoint)`);
}

/**
 * @param {{ policy?: string; proof?: string; "write-proof"?: string; "entry-data"?: string; ledger?: string; entry?: string; timeout?: string }} values
 * @param {string[]} positionals
 * @param {string[]} argv
 * @param {import("./cli.js").Io} io
 * @param {(argv: string[], io: import("./cli.js").Io) => Promise<0 | 1 | 2>} ordinary the command without the witness options
 * @returns {Promise<0 | 1 | 2>}
 */
export async function witnessedMain(values, positionals, argv, io, ordinary) {
  const timeoutSeconds = values.timeout === undefined ? DEFAULT_TIMEOUT_SECONDS : Number(values.timeout);
  /** @type {import("./source.js").UrlOptions} */
  const fetchImpl = {
    fetch: io.fetch ?? globalThis.fetch,
    timeoutSeconds: Number.isFinite(timeoutSeconds) && timeoutSeconds > 0 ? timeoutSeconds : DEFAULT_TIMEOUT_SECONDS,
  };
  try {
    if (values.policy === undefined)
      throw new VerifyError("usage", "--proof and --write-proof need --policy FILE (a C2SP tlog-policy)");
    const policy = await readPolicy(values.policy, fetchImpl);
    if (values.proof !== undefined) {
      if (values.ledger !== undefined || positionals.length > 0)
        throw new VerifyError("usage", "--proof is checked alone: --proof FILE --policy FILE [--entry-data FILE]");
      const text = await readText(values.proof, fetchImpl, "--proof");
      const data =
        values["entry-data"] !== undefined ? new Uint8Array(await readFile(values["entry-data"])) : undefined;
      const r = await verifyTlogProof(text, policy, data);
      io.out(
        `${values.proof}: verified — leaf ${toBase64(r.leaf)} is entry ${r.index} of ${r.checkpoint.origin} at size ${r.checkpoint.size}, signed by ${r.log}, cosigned by ${r.cosigned.map((c) => c.id).join(", ") || "no witness"} (${r.quorum})`,
      );
      if (!r.entryBound)
        io.out("the entry's data was not given (--entry-data): only its leaf hash, named by the proof, is proven");
      return 0;
    }
    if (values["write-proof"] !== undefined && (values.ledger === undefined || values.entry === undefined))
      throw new VerifyError("usage", "--write-proof needs --ledger and --entry");
    const code = await ordinary(withoutWitnessOptions(argv), io);
    if (code === 2) return code;
    const source =
      values.ledger !== undefined
        ? isUrl(values.ledger)
          ? urlSource(values.ledger, fetchImpl)
          : folderSource(values.ledger)
        : await ledgerBeside(positionals[0] ?? "", fetchImpl);
    const bytes = await source.read("checkpoint", CHECKPOINT_LIMIT);
    const note = bytes === null ? null : decodeUtf8(bytes);
    if (note === null) throw new VerifyError("missing", `${source.describe("checkpoint")}: no checkpoint`);
    try {
      const w = await checkWitnessed(note, policy);
      io.out(
        `witnesses: ${source.describe("checkpoint")} (size ${w.checkpoint.size}) is cosigned by ${w.cosigned.map((c) => `${c.id} at ${new Date(c.timestamp * 1000).toISOString()}`).join(", ") || "no witness"}; ${w.quorum} met`,
      );
      if (values["write-proof"] !== undefined && code === 0) {
        const entry = Number(values.entry);
        const tiles = new TileReader(source, w.checkpoint.size);
        const proof = await tiles.inclusionProof(entry);
        await writeFile(
          values["write-proof"],
          formatTlogProof({ index: entry, proof, checkpoint: note, extra: await tiles.hashAt(0, entry) }),
        );
        io.out(
          `wrote ${values["write-proof"]}: entry ${entry}'s C2SP tlog-proof, checkable offline with --proof ${values["write-proof"]} --policy ${values.policy}`,
        );
      }
      return code;
    } catch (error) {
      if (!(error instanceof VerifyError)) throw error;
      io.err(`FAIL witnesses ${source.describe("checkpoint")}: ${error.message} [${error.code}]`);
      return /** @type {0 | 1 | 2} */ (Math.max(code, exitCodeOf(error.code)));
    }
  } catch (error) {
    if (!(error instanceof VerifyError)) throw error;
    io.err(`FAIL ${error.code}: ${error.message}`);
    return exitCodeOf(error.code);
  }
}
