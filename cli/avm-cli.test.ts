import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signAttestation, signWalletMessage } from "../core/avm/messages.ts";
import { ledgerIdForKey } from "../core/avm/operations.ts";
import { avmRegistry, checkAuthority, stakeFor } from "../core/avm/registry.ts";
import { verifyToken } from "../core/avm/token.ts";
import { verifyAuthority } from "../core/avm/verifier.ts";
import { sha256Hex } from "../core/digest.ts";
import { foldAsync } from "../core/ledger/projection.ts";
import { generateKeyPair, publicKeyFromSecret } from "../core/signature.ts";
import { openLedger } from "../store/open-ledger.ts";
import { tempDir } from "../test/support/store/helpers.ts";

const cli = join(import.meta.dirname, "avm-cli.ts");
let dir: string;
let cleanup: () => void;
beforeAll(async () => ({ dir, cleanup } = tempDir("avm-cli-")));
afterAll(async () => cleanup());

/** The environment of the commands: this test's state folder, no inherited LEDGER_DB. */
function environment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const { LEDGER_DB: _inherited, ...env } = process.env;
  return { ...env, STATE_DIR: join(dir, "state"), ...extra };
}

function avm(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: "utf8", env: environment(env) });
  const lines = r.stdout.trim().split("\n").filter(Boolean);
  return {
    status: r.status,
    out: lines.length === 1 ? (JSON.parse(lines[0]!) as Record<string, unknown>) : null,
    lines,
    stderr: r.stderr,
  };
}

async function registry(env: Record<string, string> = {}) {
  const { ledger } = await openLedger({ env: environment(env) });
  try {
    return {
      registry: await foldAsync(avmRegistry, ledger.entries()),
      size: await ledger.size(),
      types: (await Array.fromAsync(ledger.entries())).map((e) => e.type),
    };
  } finally {
    await ledger.close();
  }
}

describe("npm run avm", () => {
  const wallet = { algorithm: "ed25519" as const, secretKeyHex: sha256Hex("cli wallet") };
  const walletKey = publicKeyFromSecret("ed25519", wallet.secretKeyHex);
  const companion = { algorithm: "secp256k1" as const, secretKeyHex: sha256Hex("cli companion") };
  const companionKey = publicKeyFromSecret("secp256k1", companion.secretKeyHex);
  const ledgerId = ledgerIdForKey("ed25519", walletKey);

  it("registers an identity and a companion, locks and withdraws stake, each as one JSON line", async () => {
    const id = avm([
      "register-identity",
      "--algorithm",
      "ed25519",
      "--public-key",
      walletKey,
      "--role",
      "deployer",
      "--reputation",
      "0.95",
    ]);
    expect(id.status, id.stderr).toBe(0);
    expect(id.out).toEqual({
      ledger_id: ledgerId,
      algorithm: "ed25519",
      public_key: walletKey,
      role: "deployer",
      reputation: 0.95,
      seq: 0,
    });

    const comp = avm([
      "register-companion",
      "--companion-id",
      "athena",
      "--algorithm",
      "secp256k1",
      "--public-key",
      companionKey,
    ]);
    expect(comp.out).toEqual({ companion_id: "athena", algorithm: "secp256k1", public_key: companionKey, seq: 1 });

    // Without --accept-slashing the stake does not back authority.
    const unbonded = avm(["lock-stake", "--ledger-id", ledgerId, "--amount", "500"]);
    expect(unbonded.out).toMatchObject({
      ledger_id: ledgerId,
      amount_shards: "500000000",
      bonded_shards: "0",
      unbonded_shards: "500000000",
      slashing_conditions_accepted: false,
      seq: 2,
    });
    const bonded = avm(["lock-stake", "--ledger-id", ledgerId, "--amount", "10000.5", "--accept-slashing"]);
    expect(bonded.out).toMatchObject({
      amount_shards: "10000500000",
      bonded_shards: "10000500000",
      slashing_conditions_accepted: true,
      seq: 3,
    });
    expect(stakeFor((await registry()).registry, ledgerId)).toEqual({
      bondedShards: 10_000_500_000n,
      unbondedShards: 500_000_000n,
    });
  });

  it("a grant made on that ledger is revoked, in the same append, by a withdrawal that undercuts it", async () => {
    // The API's part, done here through the core and the store: verify, append attempt + grant.
    const { ledger } = await openLedger({ env: environment() });
    try {
      const reg = await foldAsync(avmRegistry, ledger.entries());
      const now = Date.now();
      const attestation = signAttestation(
        {
          companion_id: "athena",
          subject: ledgerId,
          scopes: ["api.deploy.production"],
          ej_hash: `sha256:${sha256Hex("justification")}`,
          risk_level: "medium",
          issued_at: new Date(now - 60_000).toISOString(),
          expires_at: new Date(now + 86_400_000).toISOString(),
        },
        companion,
      );
      const scopes = ["api.deploy.production" as const];
      const out = verifyAuthority(
        {
          ledger_id: ledgerId,
          wallet_signature: signWalletMessage(wallet, ledgerId, attestation, scopes),
          companion_attestation: attestation,
          requested_scopes: scopes,
        },
        reg,
        now,
      );
      expect(out.verified, out.verified ? "" : out.response.error_detail).toBe(true);
      await ledger.append(out.events);
    } finally {
      await ledger.close();
    }
    expect(checkAuthority((await registry()).registry, ledgerId, Date.now()).has_authority).toBe(true);

    // The 500 unbonded MIC go first; the other 501 leave 9,499.5 bonded, below production's 10,000.
    const withdrawn = avm(["withdraw-stake", "--ledger-id", ledgerId, "--amount", "1001"]);
    expect(withdrawn.status, withdrawn.stderr).toBe(0);
    expect(withdrawn.out).toMatchObject({
      ledger_id: ledgerId,
      amount_shards: "1001000000",
      bonded_shards: "9499500000",
      unbonded_shards: "0",
      revoked: true,
    });
    const after = registry();
    expect((await after).types.slice(-2)).toEqual(["stake.withdrawn", "avm.revoke"]);
    expect((await after).registry.identities.get(ledgerId)!.grant!.revocation!.reason).toBe("stake_withdrawn");
    expect(avm(["check", "--ledger-id", ledgerId]).out).toEqual({
      ledger_id: ledgerId,
      has_authority: false,
      scopes: [],
      expires_at: null,
    });
  });

  it("issues a token that verifies under the published token key; the ledger holds its jti, never the token", async () => {
    const issued = avm([
      "issue-token",
      "--subject",
      "operator-1",
      "--permission",
      "avm.revoke",
      "--permission",
      "consensus.write",
      "--ttl",
      "600",
    ]);
    expect(issued.status, issued.stderr).toBe(0);
    expect(Object.keys(issued.out!)).toEqual(["token"]);
    const token = issued.out!.token as string;
    const seed = readFileSync(join(dir, "state", "keys", "tokens.ed25519"), "utf8").trim();
    const { registry: reg } = await registry();
    const check = { publicKeyHex: publicKeyFromSecret("ed25519", seed), nowMs: Date.now(), registry: reg };
    expect(await verifyToken(token, { ...check, permission: "consensus.write" })).toMatchObject({
      ok: true,
      claims: { sub: "operator-1", permissions: ["avm.revoke", "consensus.write"] },
    });
    const { ledger } = await openLedger({ env: environment() });
    try {
      const texts = (await Array.fromAsync(ledger.storedEntries())).map((e) => e.payloadText).join("\n");
      expect(texts).not.toContain(token.split(".")[2]!);
    } finally {
      await ledger.close();
    }
    const jti = (JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()) as { jti: string }).jti;
    expect(avm(["revoke-token", "--jti", jti, "--reason", "rotated"]).status).toBe(0);
    expect(
      await verifyToken(token, { ...check, registry: (await registry()).registry, permission: "avm.revoke" }),
    ).toEqual({ ok: false, error: "revoked" });
  });

  it("refuses bad input with exit 2 and a message naming the option, and appends nothing", async () => {
    const before = (await registry()).size;
    const cases: [string[], RegExp][] = [
      [
        ["register-identity", "--algorithm", "ed25519", "--public-key", walletKey, "--role", "deployer"],
        /needs --reputation/,
      ],
      [
        [
          "register-identity",
          "--algorithm",
          "ed25519",
          "--public-key",
          generateKeyPair("ed25519").publicKey,
          "--role",
          "root",
          "--reputation",
          "0.5",
        ],
        /^avm: --role:/m,
      ],
      [
        [
          "register-identity",
          "--algorithm",
          "ed25519",
          "--public-key",
          generateKeyPair("ed25519").publicKey,
          "--role",
          "viewer",
          "--reputation",
          "high",
        ],
        /--reputation must be a number/,
      ],
      [
        [
          "register-identity",
          "--algorithm",
          "rsa",
          "--public-key",
          walletKey,
          "--role",
          "viewer",
          "--reputation",
          "0.5",
        ],
        /--algorithm:/,
      ],
      [["lock-stake", "--ledger-id", ledgerId, "--amount", "1.0000001", "--accept-slashing"], /more than 6 decimals/],
      [["lock-stake", "--ledger-id", "not-a-uuid", "--amount", "1"], /--ledger-id: Invalid UUID/],
      [
        ["lock-stake", "--ledger-id", "00000000-0000-4000-8000-000000000000", "--amount", "1"],
        /no identity is registered/,
      ],
      [
        ["withdraw-stake", "--ledger-id", ledgerId, "--amount", "1", "--accept-slashing"],
        /withdraw-stake takes no --accept-slashing/,
      ],
      [["withdraw-stake", "--ledger-id", ledgerId, "--amount", "1000000"], /cannot withdraw/],
      [["issue-token", "--subject", "x", "--permission", "root"], /--permission\.0:/],
      [
        ["issue-token", "--subject", "x", "--permission", "avm.revoke", "--ttl", "0"],
        /--ttl must be a positive whole number/,
      ],
      [
        ["register-companion", "--companion-id", "athena", "--algorithm", "ed25519", "--public-key", walletKey],
        /already registered/,
      ],
      [["lock-stake", "--ledger-id", ledgerId, "--amount", "1", "--bogus"], /Unknown option '--bogus'/],
    ];
    for (const [args, message] of cases) {
      const r = avm(args);
      expect(r.status, args.join(" ")).toBe(2);
      expect(r.lines).toEqual([]);
      expect(r.stderr, args.join(" ")).toMatch(message);
    }
    expect((await registry()).size).toBe(before);
  }, 180_000); // thirteen processes on a shared machine

  it("decides at the tail inside one write: four processes registering one companion id record it once", async () => {
    const db = join(dir, "race.sqlite");
    const keys = Array.from({ length: 4 }, () => generateKeyPair("ed25519").publicKey);
    const results = await Promise.all(
      keys.map(
        (key) =>
          new Promise<number | null>((resolve) => {
            const child = spawn(
              process.execPath,
              [cli, "register-companion", "--companion-id", "raced", "--algorithm", "ed25519", "--public-key", key],
              {
                env: environment({ LEDGER_DB: db }),
                stdio: "ignore",
              },
            );
            child.once("exit", (code) => resolve(code));
          }),
      ),
    );
    expect(results.filter((code) => code === 0)).toHaveLength(1);
    expect(results.filter((code) => code === 2)).toHaveLength(3);
    const after = registry({ LEDGER_DB: db });
    expect((await after).types).toEqual(["companion.registered"]);
  }, 120_000);

  it("honours LEDGER_DB", async () => {
    const db = join(dir, "elsewhere.sqlite");
    const r = avm(
      ["register-companion", "--companion-id", "hermes", "--algorithm", "ed25519", "--public-key", walletKey],
      { LEDGER_DB: db },
    );
    expect(r.out).toMatchObject({ companion_id: "hermes", seq: 0 });
    expect((await registry({ LEDGER_DB: db })).registry.companions.has("hermes")).toBe(true);
  });
});
