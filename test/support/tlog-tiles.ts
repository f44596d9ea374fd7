/**
 * A minimal C2SP tlog-tiles writer for tests: a small log's entries as tiles of height 8
 * (`tile/<L>/<N>[.p/<W>]`), bundles (each entry a big-endian uint16 length and its bytes: the C2SP
 * entry bundles `tile/entries/<N>[.p/<W>]` when they hold the leaf data, otherwise — envelopes —
 * `envelopes/<N>[.p/<W>]`) and a `checkpoint` signed with the given key — the layout the portal
 * publishes under /ledger/. Hashes come from core/merkle.ts (RFC 9162), the project's own, so the
 * verifier under test is checked against an implementation it does not share code with.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { signCheckpoint, type NoteSigner } from "../../core/checkpoint.ts";
import { envelopeText } from "../../core/ledger/envelope.ts";
import { sealEntry } from "../../core/ledger/entry.ts";
import { leafHash, nodeHash, rootHash } from "../../core/merkle.ts";

const WIDTH = 256;

function indexPath(n: number): string {
  let path = String(n % 1000).padStart(3, "0");
  for (let rest = Math.floor(n / 1000); rest > 0; rest = Math.floor(rest / 1000))
    path = `x${String(rest % 1000).padStart(3, "0")}/${path}`;
  return path;
}

function tileName(level: number, index: number, width: number): string {
  return `tile/${level}/${indexPath(index)}${width < WIDTH ? `.p/${width}` : ""}`;
}

/**
 * Every file of the log, by path relative to the log's folder. The bundles hold `bundled` (default:
 * the leaf data itself, at `tile/entries/`), e.g. each entry's public envelope as the portal
 * publishes its ledger, at `envelopes/`; `bundleRoot` puts them elsewhere (a log serving envelopes
 * at the C2SP entry bundle URL: `tile/entries`).
 */
export function tlogFiles(
  entries: readonly Uint8Array[],
  signer: NoteSigner,
  origin = signer.name,
  bundled: readonly Uint8Array[] = entries,
  bundleRoot = bundled === entries ? "tile/entries" : "envelopes",
): Map<string, Uint8Array> {
  const files = new Map<string, Uint8Array>();
  // Hashes at tree level 8·L, level by level: each the node of two complete halves below it.
  let level = entries.map((e) => leafHash(e));
  const leaves = level;
  for (let tileLevel = 0; level.length > 0; tileLevel++) {
    for (let start = 0; start < level.length; start += WIDTH) {
      const hashes = level.slice(start, start + WIDTH);
      files.set(tileName(tileLevel, start / WIDTH, hashes.length), Buffer.concat(hashes));
    }
    for (let up = 0; up < 8; up++) {
      const next: Uint8Array[] = [];
      for (let i = 0; i + 1 < level.length; i += 2) next.push(nodeHash(level[i]!, level[i + 1]!));
      level = next;
    }
  }
  for (let start = 0; start < entries.length; start += WIDTH) {
    const bundle = bundled
      .slice(start, start + WIDTH)
      .flatMap((e) => [Buffer.from([e.length >> 8, e.length & 0xff]), Buffer.from(e)]);
    files.set(
      `${bundleRoot}/${indexPath(start / WIDTH)}${entries.length - start < WIDTH ? `.p/${entries.length - start}` : ""}`,
      Buffer.concat(bundle),
    );
  }
  files.set(
    "checkpoint",
    Buffer.from(signCheckpoint({ origin, size: entries.length, rootHash: rootHash(leaves) }, signer)),
  );
  return files;
}

/** Writes the log's files under `dir`. */
export function writeTlog(dir: string, files: Map<string, Uint8Array>): void {
  for (const [path, bytes] of files) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), bytes);
  }
}

/** `count` sealed ledger entries (hash chain through `prev`): their leaf data and their public envelopes. */
export function ledgerEntries(count: number): { leaves: Uint8Array[]; envelopes: Uint8Array[] } {
  const leaves: Uint8Array[] = [];
  const envelopes: Uint8Array[] = [];
  let prev: string | null = null;
  for (let seq = 0; seq < count; seq++) {
    const sealed = sealEntry({
      seq,
      type: "mic_mint",
      payload: { n: seq },
      ts: new Date(Date.UTC(2026, 1, 1, 10, 0, seq)).toISOString(),
      prev,
    });
    leaves.push(Buffer.from(sealed.text));
    envelopes.push(Buffer.from(envelopeText(sealed.entry)));
    prev = sealed.entry.hash;
  }
  return { leaves, envelopes };
}

/** `count` small JSON entries, as a ledger's would look. */
export function sampleEntries(count: number): Uint8Array[] {
  return Array.from({ length: count }, (_, i) =>
    Buffer.from(JSON.stringify({ seq: i, type: "test.event", payload: { n: i } })),
  );
}
