/**
 * The log's side of C2SP `tlog-witness`: a witness round. The checkpoint goes to every witness of the
 * policy that has a URL, in parallel, each with its own deadline: `old <size>` (the size the witness
 * last cosigned, as far as the log knows; 0 when it does not), the consistency proof from that size,
 * an empty line and the signed checkpoint. A 409 `text/x.tlog.size` tells the size the witness holds:
 * the request is sent again from there (a witness holding a larger size, or the same size with another
 * root, is a fork or a rollback and fails). A 200's cosignature lines are kept only when they verify
 * under the witness's key in the policy. The round's note is the checkpoint with every cosignature
 * obtained; `met` says whether it meets the policy's quorum. A witness that is down, slow or refusing
 * is skipped and named.
 */
import { parseCheckpoint } from "../core/checkpoint.ts";
import { toBase64 } from "../core/tlog/bytes.js";
import { addSignatureLines, splitNote, verifyCosignatures } from "../core/witness/cosignature.ts";
import { describeQuorum, meets, type Policy, type PolicyWitness } from "../core/witness/policy.ts";

export interface WitnessOutcome {
  id: string;
  url: string;
  ok: boolean;
  /** The size the witness last cosigned before this round, when learned. */
  oldSize?: number;
  detail: string;
}

export interface RoundResult {
  note: string;
  met: boolean;
  quorum: string;
  outcomes: WitnessOutcome[];
  /** The size each witness holds after the round (for the next round's old size). */
  sizes: Record<string, number>;
}

export interface RoundOptions {
  /** The log-signed checkpoint note. */
  note: string;
  policy: Policy;
  /** The consistency proof from `oldSize` to the checkpoint's size. */
  consistencyProof: (oldSize: number) => Promise<Uint8Array[]>;
  /** Per witness; default 5 s. */
  timeoutMs?: number;
  /** What the log last learned of each witness (policy name → size). */
  knownSizes?: Record<string, number>;
  fetch?: typeof fetch;
}

const SIZE_BODY = /^(0|[1-9][0-9]*)\n$/;
const MAX_ATTEMPTS = 3;

export async function witnessRound(options: RoundOptions): Promise<RoundResult> {
  const { note, policy } = options;
  const checkpoint = parseCheckpoint(splitNote(note).body);
  const witnesses = [...policy.witnesses.values()].filter((w) => w.url !== undefined);
  const outcomes = await Promise.all(witnesses.map((w) => askOne(w, options, checkpoint.size)));
  let cosigned = note;
  const sizes: Record<string, number> = {};
  for (const o of outcomes) {
    if (o.lines) cosigned = addSignatureLines(cosigned, o.lines);
    if (o.held !== undefined) sizes[o.outcome.id] = o.held;
  }
  const ids = new Set(outcomes.filter((o) => o.outcome.ok).map((o) => o.outcome.id));
  return {
    note: cosigned,
    met: meets(policy, ids),
    quorum: describeQuorum(policy),
    outcomes: outcomes.map((o) => o.outcome),
    sizes,
  };
}

async function askOne(
  w: PolicyWitness,
  options: RoundOptions,
  size: number,
): Promise<{ outcome: WitnessOutcome; lines?: string[]; held?: number }> {
  const url = new URL("add-checkpoint", w.url!.endsWith("/") ? w.url! : `${w.url!}/`).href;
  const doFetch = options.fetch ?? globalThis.fetch;
  const signal = AbortSignal.timeout(options.timeoutMs ?? 5000);
  const done = (ok: boolean, detail: string, extra: { oldSize?: number; lines?: string[]; held?: number } = {}) => ({
    outcome: { id: w.id, url, ok, detail, ...(extra.oldSize !== undefined ? { oldSize: extra.oldSize } : {}) },
    ...(extra.lines ? { lines: extra.lines } : {}),
    ...(extra.held !== undefined ? { held: extra.held } : {}),
  });
  let old = Math.min(options.knownSizes?.[w.id] ?? 0, size);
  try {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const proof = old > 0 && old < size ? await options.consistencyProof(old) : [];
      const body = `old ${old}\n${proof.map((h) => `${toBase64(h)}\n`).join("")}\n${options.note}`;
      const res = await doFetch(url, {
        method: "POST",
        body,
        signal,
        headers: { "Content-Type": "text/plain; charset=utf-8" },
      });
      const text = await res.text();
      if (res.status === 200) {
        const lines = text.split("\n").filter((l) => l !== "");
        let valid;
        try {
          valid = verifyCosignatures(addSignatureLines(options.note, lines), [w]);
        } catch (error) {
          return done(false, `answered 200 with a cosignature that does not verify: ${(error as Error).message}`, {
            oldSize: old,
          });
        }
        if (valid.length === 0)
          return done(false, "answered 200 without a cosignature by its key in the policy", { oldSize: old });
        const own = lines.filter((l) => l.startsWith(`\u2014 ${w.name} `));
        return done(true, `cosigned at ${new Date(valid[0]!.timestamp * 1000).toISOString()} (from size ${old})`, {
          oldSize: old,
          lines: own,
          held: size,
        });
      }
      if (res.status === 409) {
        const m =
          (res.headers.get("content-type") ?? "").split(";")[0]!.trim() === "text/x.tlog.size"
            ? SIZE_BODY.exec(text)
            : null;
        if (!m) return done(false, `409 without a text/x.tlog.size body`);
        const held = Number(m[1]);
        if (held > size)
          return done(
            false,
            `holds a checkpoint of size ${held}, larger than ${size}: the log was rolled back, or another history was shown to it`,
            { oldSize: held, held },
          );
        if (held === old) return done(false, `holds another root at size ${held}: a fork`, { oldSize: held, held });
        old = held;
        continue;
      }
      return done(false, `${res.status}: ${text.trim().slice(0, 200)}`, { oldSize: old });
    }
    return done(false, `its size kept changing over ${MAX_ATTEMPTS} attempts`);
  } catch (error) {
    const e = error as Error;
    const why =
      e.name === "TimeoutError" || e.name === "AbortError"
        ? `no answer within ${options.timeoutMs ?? 5000} ms`
        : `unreachable: ${e.message}${(e.cause as Error | undefined)?.message ? ` (${(e.cause as Error).message})` : ""}`;
    return done(false, why);
  }
}
