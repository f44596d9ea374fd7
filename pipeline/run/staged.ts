/**
 * A staged output's bytes and its placing. A staged file is either the whole output, renamed over
 * the target, or — for a rows step that continued its kept prefix (./folds.ts) — only the bytes that
 * follow the target's first `appendAt` bytes, which publishing writes in place after that prefix
 * (over the old closing text: a JSON array's `]`, or nothing), so a run after new events writes what
 * is new, not the whole file again (docs/data-areas.md, "Incremental regeneration"). Publishing
 * happens only after the pass has validated and hashed the whole output; a process stopped halfway
 * leaves a file that matches neither its fold state nor its manifest, and the next run writes it whole.
 */
import {
  closeSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import { dirname } from "node:path";
import type { Output } from "./plan.ts";

/** The output's whole bytes: in memory, the staged file, or the target's prefix and the staged rest. */
export function outputBytes(out: Output, target: string): Uint8Array {
  if (out.bytes) return out.bytes;
  if (!out.tmp) return readFileSync(target);
  if (out.appendAt === undefined) return readFileSync(out.tmp);
  const rest = readFileSync(out.tmp);
  const whole = Buffer.allocUnsafe(out.appendAt + rest.length);
  const fd = openSync(target, "r");
  try {
    for (let at = 0; at < out.appendAt;) {
      const n = readSync(fd, whole, at, out.appendAt - at, at);
      if (n === 0) throw new Error(`${target}: shorter than the ${out.appendAt} bytes its staged rest follows`);
      at += n;
    }
  } finally {
    closeSync(fd);
  }
  whole.set(rest, out.appendAt);
  return whole;
}

/** Puts a staged file in place of `target`: renamed over it, or appended to its kept prefix. */
export function placeStaged(tmp: string, target: string, appendAt?: number): void {
  mkdirSync(dirname(target), { recursive: true });
  if (appendAt === undefined) return renameSync(tmp, target);
  const rest = readFileSync(tmp);
  const fd = openSync(target, "r+");
  try {
    // Written over the old closing text first, then the length set: the file is never shorter than
    // the version a reader may be reading, and a JSON array's `]` is overwritten only by what
    // continues it.
    for (let at = 0; at < rest.length;) at += writeSync(fd, rest, at, rest.length - at, appendAt + at);
    ftruncateSync(fd, appendAt + rest.length);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  rmSync(tmp, { force: true });
}
