/**
 * A second implementation of the client side of C2SP tlog-witness, written from the specifications
 * (tlog-witness, tlog-cosignature, signed-note, tlog-checkpoint, RFC 6962) and sharing no code with
 * the project's witness or its core modules: node:crypto only. It plays a log (its own Ed25519 note
 * signer, its own RFC 6962 tree and consistency proofs), sends add-checkpoint requests byte for byte
 * as the spec lays them out, and checks the cosignatures it gets back against the witness's vkey.
 */
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign,
  verify,
  type KeyObject,
} from "node:crypto";

const sha = (...parts: Buffer[]) => createHash("sha256").update(Buffer.concat(parts)).digest();

/** RFC 6962 §2.1: MTH over leaf data. */
export class SpecTree {
  leaves: Buffer[] = [];
  append(data: string): void {
    this.leaves.push(sha(Buffer.from([0]), Buffer.from(data)));
  }
  root(n = this.leaves.length, start = 0): Buffer {
    if (n === 0) return sha();
    if (n === 1) return this.leaves[start]!;
    let k = 1;
    while (k * 2 < n) k *= 2;
    return sha(Buffer.from([1]), this.root(k, start), this.root(n - k, start + k));
  }
  /** RFC 6962 §2.1.2 PROOF(m, D[n]) via SUBPROOF. */
  consistency(m: number, n = this.leaves.length): Buffer[] {
    const sub = (m: number, start: number, n: number, b: boolean): Buffer[] => {
      if (m === n) return b ? [] : [this.root(n, start)];
      let k = 1;
      while (k * 2 < n) k *= 2;
      if (m <= k) return [...sub(m, start, k, b), this.root(n - k, start + k)];
      return [...sub(m - k, start + k, n - k, false), this.root(k, start)];
    };
    return m === 0 || m === n ? [] : sub(m, 0, n, true);
  }
}

/** A log: origin, Ed25519 key, signed-note signing (key ID over 0x01 ‖ key). */
export class SpecLog {
  readonly origin: string;
  readonly #key: KeyObject;
  readonly publicKey: Buffer;
  constructor(origin: string, seed?: Buffer) {
    this.origin = origin;
    if (seed) {
      this.#key = createPrivateKey({
        key: Buffer.concat([Buffer.from("302e020100300506032b657004220420", "hex"), seed]),
        format: "der",
        type: "pkcs8",
      });
    } else this.#key = generateKeyPairSync("ed25519").privateKey;
    this.publicKey = Buffer.from(createPublicKey(this.#key).export({ format: "jwk" }).x!, "base64url");
  }
  vkey(): string {
    const typed = Buffer.concat([Buffer.from([0x01]), this.publicKey]);
    const id = sha(Buffer.from(`${this.origin}\n`), typed).subarray(0, 4);
    return `${this.origin}+${id.toString("hex")}+${typed.toString("base64")}`;
  }
  /** A signed checkpoint note of (size, root). */
  checkpoint(size: number, root: Buffer): string {
    const body = `${this.origin}\n${size}\n${root.toString("base64")}\n`;
    const id = sha(Buffer.from(`${this.origin}\n`), Buffer.from([0x01]), this.publicKey).subarray(0, 4);
    const sig = sign(null, Buffer.from(body), this.#key);
    return `${body}\n\u2014 ${this.origin} ${Buffer.concat([id, sig]).toString("base64")}\n`;
  }
}

export interface WitnessAnswer {
  status: number;
  contentType: string;
  body: string;
}

/** POST <prefix>/add-checkpoint: the old size line, the proof lines, an empty line, the checkpoint. */
export async function addCheckpoint(
  prefix: string,
  oldSize: number,
  proof: Buffer[],
  checkpoint: string,
): Promise<WitnessAnswer> {
  const body = `old ${oldSize}\n${proof.map((h) => `${h.toString("base64")}\n`).join("")}\n${checkpoint}`;
  return post(prefix, body);
}

export async function post(prefix: string, body: string): Promise<WitnessAnswer> {
  const res = await fetch(`${prefix.replace(/\/$/, "")}/add-checkpoint`, { method: "POST", body });
  return { status: res.status, contentType: res.headers.get("content-type") ?? "", body: await res.text() };
}

/**
 * Checks a 200's body against the witness's vkey (type 0x04): every line starts with an em dash and
 * ends in a newline; the line with the witness's name and key ID is key ID ‖ u64 timestamp ‖ Ed25519
 * signature over "cosignature/v1\ntime <T>\n" ‖ the checkpoint body. Returns the timestamp.
 */
export function checkCosignature(responseBody: string, checkpoint: string, witnessVkey: string): number {
  const [name, idHex, keyB64] = [
    witnessVkey.slice(0, witnessVkey.indexOf("+")),
    ...witnessVkey.slice(witnessVkey.indexOf("+") + 1).split(/\+(.*)/s, 2),
  ] as [string, string, string];
  const typed = Buffer.from(keyB64, "base64");
  if (typed[0] !== 0x04 || typed.length !== 33) throw new Error("not a cosignature/v1 Ed25519 vkey");
  const expectedId = sha(Buffer.from(`${name}\n`), typed)
    .subarray(0, 4)
    .toString("hex");
  if (expectedId !== idHex)
    throw new Error(`vkey key ID ${idHex} is not SHA-256(name‖\\n‖0x04‖key)[:4] = ${expectedId}`);
  if (!responseBody.endsWith("\n")) throw new Error("the response does not end in a newline");
  const lines = responseBody.slice(0, -1).split("\n");
  if (lines.some((l) => !l.startsWith("\u2014 "))) throw new Error("a response line is not a note signature line");
  const mine = lines.find(
    (l) =>
      l.startsWith(`\u2014 ${name} `) &&
      Buffer.from(l.slice(`\u2014 ${name} `.length), "base64")
        .subarray(0, 4)
        .toString("hex") === idHex,
  );
  if (!mine) throw new Error("no cosignature by the witness's key");
  const raw = Buffer.from(mine.slice(`\u2014 ${name} `.length), "base64");
  if (raw.length !== 4 + 8 + 64) throw new Error(`cosignature of ${raw.length} bytes, not 76`);
  const timestamp = raw.readBigUInt64BE(4);
  const body = checkpoint.slice(0, checkpoint.indexOf("\n\n") + 1);
  const message = Buffer.from(`cosignature/v1\ntime ${timestamp}\n${body}`);
  const key = createPublicKey({
    key: { kty: "OKP", crv: "Ed25519", x: typed.subarray(1).toString("base64url") },
    format: "jwk",
  });
  if (!verify(null, message, key, raw.subarray(12))) throw new Error("the cosignature does not verify");
  return Number(timestamp);
}
