// @ts-check
/**
 * `integrity-monitor --log <URL or folder of the log> --policy P --state DIR [--every SECONDS] [--timeout MS]`
 *
 * Follows a published log (its `checkpoint`, C2SP tiles and bundles) with state kept in DIR. One
 * round (or one every SECONDS):
 *
 *   quorum       the checkpoint is signed by a log of the policy and meets its witness quorum
 *   rollback     its size is not below the size seen last round
 *   fork         at the same size, the same root; at a larger one, the consistency proof (from the
 *                tiles) from the root seen last round verifies
 *   tiles        every new leaf hash of the level-0 tiles, appended to the saved compact range of the
 *                tree seen so far, hashes up to the checkpoint's root; every new entry bundle is
 *                fetched (an entry bundle's data must hash to its leaf)
 *   split view   each witness of the policy with a URL is shown the checkpoint (tlog-witness
 *                add-checkpoint, from the size it holds, proof from the tiles): a witness holding
 *                another root at the same size, or a view the checkpoint is not consistent with
 *                (422), was shown another history
 *
 * Exit status: 0 clean (the state moves on), 1 evidence found (written to DIR/evidence/ and named on
 * stderr; the state stays at the last clean round), 2 the round could not run.
 */
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { decodeUtf8, equalBytes, fromBase64, toBase64 } from "./bytes.js";
import { VerifyError } from "./errors.js";
import { folderSource } from "./folder-source.js";
import { CHECKPOINT_LIMIT, NOTE_FILE_LIMIT } from "./limits.js";
import { readBody, urlSource } from "./source.js";
import { nodeHash, TileReader, verifyConsistency, leafHash } from "./tiles.js";
import { checkWitnessed } from "./witness.js";
import { readPolicy } from "./witnessed-cli.js";

export const MONITOR_USAGE =
  "usage: integrity-monitor --log <URL or folder of the log> --policy P --state DIR [--every SECONDS] [--timeout MS]";

/**
 * @typedef {object} MonitorState
 * @property {string} origin
 * @property {number} size
 * @property {string} root base64
 * @property {string} note the checkpoint seen last
 * @property {{ level: number; hash: string }[]} range the compact range of the tree seen (perfect subtrees, left to right)
 * @property {Record<string, number>} witnesses the size each witness was last seen holding
 */

class Evidence extends Error {
  /**
   * @param {string} kind
   * @param {string} message
   * @param {string} detail
   */
  constructor(kind, message, detail) {
    super(message);
    this.kind = kind;
    this.detail = detail;
  }
}

/**
 * @param {string[]} argv
 * @param {{ out: (l: string) => void; err: (l: string) => void; fetch?: typeof fetch }} [io]
 * @returns {Promise<0 | 1 | 2>}
 */
export async function monitorMain(argv, io = { out: (l) => console.log(l), err: (l) => console.error(l) }) {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        log: { type: "string" },
        policy: { type: "string" },
        state: { type: "string" },
        every: { type: "string" },
        timeout: { type: "string" },
      },
    }));
  } catch (error) {
    io.err(`${/** @type {Error} */ (error).message}\n${MONITOR_USAGE}`);
    return 2;
  }
  if (!values.log || !values.policy || !values.state) {
    io.err(MONITOR_USAGE);
    return 2;
  }
  const every = values.every === undefined ? 0 : Number(values.every);
  for (;;) {
    const code = await round(
      { log: values.log, policy: values.policy, state: values.state, timeoutMs: Number(values.timeout ?? 5000) },
      io,
    );
    if (code !== 0 || !(every > 0)) return code;
    await new Promise((r) => setTimeout(r, every * 1000));
  }
}

/**
 * One round; see the module comment.
 * @param {{ log: string; policy: string; state: string; timeoutMs: number }} options
 * @param {{ out: (l: string) => void; err: (l: string) => void; fetch?: typeof fetch }} io
 * @returns {Promise<0 | 1 | 2>}
 */
export async function round(options, io) {
  const fetchImpl = io.fetch ?? globalThis.fetch;
  const statePath = join(options.state, "monitor.json");
  try {
    const policy = await readPolicy(options.policy, fetchImpl);
    const source = recent(
      /^https?:\/\//i.test(options.log)
        ? urlSource(options.log.endsWith("/") ? options.log : `${options.log}/`, fetchImpl)
        : folderSource(options.log),
    );
    /** @type {MonitorState | null} */
    const saved = await readFile(statePath, "utf8").then(
      (t) => JSON.parse(t),
      () => null,
    );
    const bytes = await source.read("checkpoint", CHECKPOINT_LIMIT);
    const note = bytes === null ? null : decodeUtf8(bytes);
    if (note === null) throw new VerifyError("missing", `${source.describe("checkpoint")}: no checkpoint`);
    let witnessed;
    try {
      witnessed = await checkWitnessed(note, policy);
    } catch (error) {
      if (!(error instanceof VerifyError)) throw error;
      throw new Evidence(
        error.code === "quorum-not-met" ? "missing-quorum" : "checkpoint-refused",
        error.message,
        note,
      );
    }
    const { checkpoint } = witnessed;
    io.out(
      `checkpoint ${checkpoint.origin} size ${checkpoint.size} root ${toBase64(checkpoint.root)}; cosigned by ${witnessed.cosigned.map((c) => c.id).join(", ") || "none"} (${witnessed.quorum})`,
    );
    const tiles = new TileReader(source, checkpoint.size);
    let range = /** @type {{ level: number; hash: Uint8Array }[]} */ ([]);
    let from = 0;
    if (saved) {
      if (saved.origin !== checkpoint.origin)
        throw new Evidence(
          "fork",
          `the log's origin changed from ${saved.origin} to ${checkpoint.origin}`,
          `${saved.note}\n${note}`,
        );
      const oldRoot = /** @type {Uint8Array} */ (fromBase64(saved.root));
      if (checkpoint.size < saved.size)
        throw new Evidence(
          "rollback",
          `rolled back: size ${checkpoint.size} after ${saved.size} was seen`,
          `seen:\n${saved.note}\nnow:\n${note}`,
        );
      if (checkpoint.size === saved.size && !equalBytes(oldRoot, checkpoint.root))
        throw new Evidence(
          "fork",
          `fork: size ${checkpoint.size} with another root than seen`,
          `seen:\n${saved.note}\nnow:\n${note}`,
        );
      if (checkpoint.size > saved.size && saved.size > 0) {
        const proof = await tiles.consistencyProof(saved.size);
        if (!(await verifyConsistency(saved.size, checkpoint.size, oldRoot, checkpoint.root, proof))) {
          throw new Evidence(
            "fork",
            `fork: size ${checkpoint.size} is not consistent with size ${saved.size} seen before`,
            `seen:\n${saved.note}\nnow:\n${note}\nproof:\n${proof.map(toBase64).join("\n")}`,
          );
        }
      }
      range = saved.range.map((r) => ({ level: r.level, hash: /** @type {Uint8Array} */ (fromBase64(r.hash)) }));
      from = saved.size;
    }
    // The tiles: every new leaf hash appended to the compact range must give the signed root.
    let bundles = 0;
    for (let i = from; i < checkpoint.size; i++) {
      let hash = await tiles.hashAt(0, i);
      const entry = await tiles.entry(i).then(
        (data) => ({ data }),
        (error) => (error instanceof VerifyError && error.code === "missing" ? null : Promise.reject(error)),
      );
      if (entry !== null) {
        bundles++;
        if (!equalBytes(await leafHash(entry.data), hash))
          throw new Evidence(
            "tiles",
            `entry ${i}'s bundle does not hash to its leaf in the level-0 tile`,
            source.describe("tile/"),
          );
      } else if (
        (await tiles.envelope(i).then(
          () => true,
          () => false,
        )) === true
      )
        bundles++;
      let level = 0;
      while (range.length > 0 && range[range.length - 1]?.level === level) {
        hash = await nodeHash(/** @type {{ hash: Uint8Array }} */ (range.pop()).hash, hash);
        level++;
      }
      range.push({ level, hash });
    }
    let root =
      range.length > 0
        ? /** @type {Uint8Array} */ (range[range.length - 1]?.hash)
        : await crypto.subtle.digest("SHA-256", new Uint8Array()).then((b) => new Uint8Array(b));
    for (let j = range.length - 2; j >= 0; j--) root = await nodeHash(/** @type {Uint8Array} */ (range[j]?.hash), root);
    if (!equalBytes(root, checkpoint.root))
      throw new Evidence(
        "tiles",
        `the tiles' leaves hash to ${toBase64(root)}, not the checkpoint's root ${toBase64(checkpoint.root)}`,
        note,
      );
    io.out(
      `tiles: ${checkpoint.size - from} new leaves hash up to the signed root; ${bundles} entry bundle entries fetched`,
    );
    // Split view: each witness is shown this checkpoint.
    const sizes = { ...(saved?.witnesses ?? {}) };
    for (const w of policy.witnesses.values()) {
      if (!w.url) continue;
      const seen = await showWitness(w, note, checkpoint.size, tiles, sizes[w.id] ?? 0, options.timeoutMs, fetchImpl);
      if (seen.evidence)
        throw new Evidence(
          "split-view",
          `split view: witness ${w.id} ${seen.detail}`,
          `${w.id} ${w.url}\n${seen.detail}\nshown:\n${note}`,
        );
      if (seen.size !== undefined) sizes[w.id] = seen.size;
      io.out(`witness ${w.id}: ${seen.detail}`);
    }
    /** @type {MonitorState} */
    const next = {
      origin: checkpoint.origin,
      size: checkpoint.size,
      root: toBase64(checkpoint.root),
      note,
      range: range.map((r) => ({ level: r.level, hash: toBase64(r.hash) })),
      witnesses: sizes,
    };
    await mkdir(options.state, { recursive: true });
    await writeFile(`${statePath}.tmp`, JSON.stringify(next, null, 1));
    await rename(`${statePath}.tmp`, statePath);
    io.out(
      `ok: ${checkpoint.origin} at size ${checkpoint.size}, consistent with what was seen${saved ? ` (size ${saved.size})` : " (first round)"}`,
    );
    return 0;
  } catch (error) {
    if (error instanceof Evidence) {
      const dir = join(options.state, "evidence");
      await mkdir(dir, { recursive: true });
      const file = join(dir, `${new Date().toISOString().replace(/[:.]/g, "-")}-${error.kind}.txt`);
      await writeFile(file, `${error.kind}: ${error.message}\n\n${error.detail}\n`);
      io.err(`EVIDENCE ${error.kind}: ${error.message} (kept in ${file})`);
      return 1;
    }
    if (error instanceof VerifyError) {
      io.err(`FAIL ${error.code}: ${error.message}`);
      return 2;
    }
    throw error;
  }
}

/**
 * The source with its last reads remembered: the round walks the new entries in order, and every
 * entry of a bundle reads the same bundle (and a missing one the same 404).
 * @param {import("./source.js").Source} source
 * @returns {import("./source.js").Source}
 */
function recent(source, keep = 16) {
  /** @type {Map<string, Promise<Uint8Array | null>>} */
  const reads = new Map();
  return {
    ...source,
    read(path, limit) {
      let read = reads.get(path);
      if (read) reads.delete(path);
      else read = source.read(path, limit);
      reads.set(path, read);
      if (reads.size > keep) reads.delete(/** @type {string} */ (reads.keys().next().value));
      return read;
    },
  };
}

/**
 * Shows the checkpoint to a witness (tlog-witness add-checkpoint), from the size it holds.
 * @param {import("./witness.js").Witness} w
 * @param {string} note
 * @param {number} size
 * @param {TileReader} tiles
 * @param {number} old
 * @param {number} timeoutMs
 * @param {typeof fetch} fetchImpl
 * @returns {Promise<{ evidence: boolean; detail: string; size?: number }>}
 */
async function showWitness(w, note, size, tiles, old, timeoutMs, fetchImpl) {
  const url = new URL("add-checkpoint", /** @type {string} */ (w.url).endsWith("/") ? w.url : `${w.url}/`);
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      if (old > size)
        return {
          evidence: false,
          detail: `holds size ${old}, newer than the log serves here: not compared this round`,
          size: old,
        };
      const proof = old > 0 && old < size ? await tiles.consistencyProof(old) : [];
      const res = await fetchImpl(url, {
        method: "POST",
        body: `old ${old}\n${proof.map((h) => `${toBase64(h)}\n`).join("")}\n${note}`,
        signal,
      });
      const text = decodeUtf8(await readBody(res, NOTE_FILE_LIMIT, url.href)) ?? "";
      if (res.status === 200)
        return { evidence: false, detail: `holds a view consistent with it (from size ${old}) and cosigned it`, size };
      if (res.status === 409 && /^(0|[1-9][0-9]*)\n$/.test(text)) {
        const held = Number(text);
        if (held === old) return { evidence: true, detail: `holds another root at size ${held} than the log serves` };
        old = held;
        continue;
      }
      if (res.status === 422)
        return {
          evidence: true,
          detail: `holds a checkpoint of size ${old} that the log's tree of size ${size} is not consistent with`,
        };
      return { evidence: false, detail: `could not be compared: ${res.status} ${text.trim().slice(0, 120)}` };
    }
    return { evidence: false, detail: "could not be compared: its size kept changing" };
  } catch (error) {
    return { evidence: false, detail: `could not be compared: ${/** @type {Error} */ (error).message}` };
  }
}
