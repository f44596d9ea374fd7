import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import type { SignatureQuestion } from "../../core/signature-verdicts.ts";
import { generateKeyPair, sign, verify } from "../../core/signature.ts";
import { SignaturePool } from "./signature-pool.ts";

const pools: SignaturePool[] = [];
afterEach(async () => {
  for (const p of pools.splice(0)) await p.close();
});

/** Valid and invalid questions of both algorithms, and malformed ones. */
function questions(): SignatureQuestion[] {
  const out: SignatureQuestion[] = [];
  for (const algorithm of ["ed25519", "secp256k1"] as const) {
    const { publicKey, secretKey } = generateKeyPair(algorithm);
    for (let i = 0; i < 6; i++) {
      const message = new TextEncoder().encode(`message ${i}`);
      const signatureHex = sign(algorithm, secretKey, message);
      out.push({ algorithm, publicKeyHex: publicKey, message, signatureHex });
      out.push({ algorithm, publicKeyHex: publicKey, message: new TextEncoder().encode(`other ${i}`), signatureHex });
    }
    out.push({ algorithm, publicKeyHex: "zz", message: new Uint8Array(1), signatureHex: "00".repeat(64) });
    out.push({ algorithm, publicKeyHex: publicKey, message: new Uint8Array(1), signatureHex: "AB".repeat(64) });
  }
  return out;
}

const expected = (qs: SignatureQuestion[]) =>
  qs.map((q) => verify(q.algorithm, q.publicKeyHex, q.message, q.signatureHex));

describe("SignaturePool", () => {
  it("answers every question as verify does, across calls spread over its workers", async () => {
    const pool = new SignaturePool(2);
    pools.push(pool);
    const qs = questions();
    const calls = Array.from({ length: 8 }, (_, i) => qs.slice(i % 3, (i % 3) + 10));
    const answers = await Promise.all(calls.map((c) => pool.verify(c)));
    expect(answers).toEqual(calls.map(expected));
    expect(answers.flat().filter(Boolean).length).toBeGreaterThan(0);
    expect(pool.threads).toBe(2); // answered by its workers, not by this thread
    expect(await pool.verify([])).toEqual([]);
  });

  it("verifies on this thread, with the same answers, once its workers are gone (even with questions in flight)", async () => {
    const pool = new SignaturePool(1);
    pools.push(pool);
    const qs = questions();
    const inFlight = pool.verify(qs);
    expect(pool.threads).toBe(1);
    await pool.close();
    expect(pool.threads).toBe(0);
    expect(await inFlight).toEqual(expected(qs));
    expect(await pool.verify(qs)).toEqual(expected(qs));
  });

  it("does not keep a process alive: a program that started a pool, used or not, ends by itself", () => {
    const dir = mkdtempSync(join(tmpdir(), "signature-pool-"));
    try {
      const program = join(dir, "program.mts");
      writeFileSync(
        program,
        `import { SignaturePool } from ${JSON.stringify(fileURLToPath(new URL("./signature-pool.ts", import.meta.url)))};
        new SignaturePool(1); // started, never used (as in \`npm run openapi\`, which builds the app)
        const pool = SignaturePool.shared();
        const answers = await pool.verify([{ algorithm: "ed25519", publicKeyHex: "00".repeat(32), message: new Uint8Array(1), signatureHex: "00".repeat(64) }]);
        console.log(JSON.stringify({ answers, threads: pool.threads }));`,
      );
      // The timeout only stops a hung child; the check is that it exits on its own, with code 0.
      const child = spawnSync(process.execPath, [program], { encoding: "utf8", timeout: 60_000 });
      expect(child.signal).toBeNull();
      expect(child.status).toBe(0);
      expect(JSON.parse(child.stdout)).toEqual({ answers: [false], threads: Math.max(1, availableParallelism() - 1) });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
