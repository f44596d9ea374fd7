/**
 * Shared by the AVM route tests, the hostile-input suite and the AVM benchmark: a real, durable
 * SQLite ledger in a throwaway folder, set up through core/avm/operations.ts (identities of any
 * role with their stake, companions, operator tokens recorded on the ledger and signed with a test
 * token key), signed verify requests, and the API on loopback over that ledger.
 */
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import type { OpenAPIHono } from "@hono/zod-openapi";
import { attestationHash, signWalletMessage, type Signer } from "../../../core/avm/messages.ts";
import * as ops from "../../../core/avm/operations.ts";
import { avmRegistry } from "../../../core/avm/registry.ts";
import { signToken, tokenClaims, tokenIssuedEvent } from "../../../core/avm/token.ts";
import { sha256Hex } from "../../../core/digest.ts";
import type {
  AvmVerifyRequest,
  CompanionAttestation,
  Role,
  Scope,
  TokenPermission,
} from "../../../core/schemas/avm.ts";
import { publicKeyFromSecret, type SignatureAlgorithm } from "../../../core/signature.ts";
import type { Ledger } from "../../../store/ledger/ledger.ts";
import { openLedgerStore } from "../../../store/open-ledger.ts";
import { createApp, type AppEnv, type AppOptions } from "../../../api/app.ts";
import { listen, type RunningServer } from "../../../api/server/server.ts";
import { attest, DAY, EJ_HASH, type AttestationOptions } from "../core/avm/helpers.ts";
import { manualClock, tempDir } from "./helpers.ts";

export { DAY, EJ_HASH };

export const MIC = 1_000_000n;
/** The test token key (a fixed seed: tests only). */
export const TEST_TOKEN_SECRET = sha256Hex("avm test token key");
export const TEST_TOKEN_PUBLIC = publicKeyFromSecret("ed25519", TEST_TOKEN_SECRET);

export interface Holder {
  ledger_id: string;
  wallet: Signer;
}

export type Companion = Signer & { companion_id: string };

export interface IdentityOptions {
  algorithm?: SignatureAlgorithm;
  role?: Role;
  reputation?: number;
  /** MIC locked (0: none). */
  stake?: string;
  acceptSlashing?: boolean;
}

/** How an attestation differs from the default (test/support/core/avm/helpers.ts `attest`); counted from the fixture clock. */
export type AttestOptions = Omit<AttestationOptions, "now">;

export interface ApiOnLoopback {
  url: string;
  server: RunningServer;
  post(path: string, body: unknown, token?: string): Promise<Response>;
  get(path: string): Promise<Response>;
  close(): Promise<void>;
}

/** The fixture's ledger file, signed with the test ledger key (each connection: another API instance). */
function openFixtureLedger(path: string, now: () => Date): Promise<Ledger> {
  return openLedgerStore({
    path,
    origin: "integrity-platform.example/ledger",
    now,
    durability: "full",
    signer: { name: "integrity-platform.example/ledger", secretKeyHex: sha256Hex("avm test ledger key") },
  });
}

export class AvmFixture {
  readonly dir: string;
  /** The ledger's location: a SQLite file, or a postgres:// URL. */
  readonly path: string;
  readonly ledger: Ledger;
  readonly clock: { now: () => Date; advance: (ms: number) => void };
  readonly #cleanup: () => void;
  readonly #servers: ApiOnLoopback[] = [];

  /**
   * A fresh durable ledger (`synchronous=FULL`) whose clock starts at `startMs` (default: now); on
   * `location` when given (an empty PostgreSQL database's postgres:// URL), else a new SQLite file.
   */
  static async open(startMs = Date.now(), location?: string): Promise<AvmFixture> {
    const made = tempDir("avm-api-");
    const path = location ?? join(made.dir, "ledger.sqlite");
    const clock = manualClock(startMs);
    return new AvmFixture(made, path, clock, await openFixtureLedger(path, clock.now));
  }

  private constructor(
    made: { dir: string; cleanup: () => void },
    path: string,
    clock: AvmFixture["clock"],
    ledger: Ledger,
  ) {
    this.dir = made.dir;
    this.#cleanup = made.cleanup;
    this.path = path;
    this.clock = clock;
    this.ledger = ledger;
  }

  get nowMs(): number {
    return this.clock.now().getTime();
  }

  /** Appends what an operation decided against the registry at the tail (throws on a refusal). */
  async apply<T>(
    operation: (registry: ReturnType<typeof avmRegistry.initial>) => ops.Operation<T>,
  ): Promise<{ result: T; seq: number }> {
    const registry = await this.ledger.state(avmRegistry);
    const op = operation(registry);
    if (!op.ok) throw new Error(`${op.code}: ${op.message}`);
    const entries = await this.ledger.append(op.events);
    return { result: op.result, seq: entries[0]!.seq };
  }

  /** A registered identity with `stake` MIC locked (bonded unless acceptSlashing is false). */
  async identity(label: string, options: IdentityOptions = {}): Promise<Holder> {
    const wallet: Signer = {
      algorithm: options.algorithm ?? "ed25519",
      secretKeyHex: sha256Hex(`avm-api-test/identity/${label}`),
    };
    const public_key = publicKeyFromSecret(wallet.algorithm, wallet.secretKeyHex);
    const { result } = await this.apply((r) =>
      ops.registerIdentity(r, {
        algorithm: wallet.algorithm,
        public_key,
        role: options.role ?? "deployer",
        reputation: options.reputation ?? 0.95,
      }),
    );
    const stake = options.stake ?? "20000";
    if (stake !== "0")
      await this.apply((r) =>
        ops.lockStake(r, {
          ledger_id: result.ledger_id,
          amount: stake,
          slashing_conditions_accepted: options.acceptSlashing ?? true,
        }),
      );
    return { ledger_id: result.ledger_id, wallet };
  }

  async companion(companion_id: string, algorithm: SignatureAlgorithm = "ed25519"): Promise<Companion> {
    const signer: Signer = { algorithm, secretKeyHex: sha256Hex(`avm-api-test/companion/${companion_id}`) };
    await this.apply((r) =>
      ops.registerCompanion(r, {
        companion_id,
        algorithm,
        public_key: publicKeyFromSecret(algorithm, signer.secretKeyHex),
      }),
    );
    return { ...signer, companion_id };
  }

  /** An attestation about `subject`, valid from a day ago for 60 days by default (fixture clock). */
  attest(companion: Companion, subject: string, options: AttestOptions = {}): CompanionAttestation {
    return attest(companion, subject, { ...options, now: this.nowMs });
  }

  /** A signed verify request: `holder`'s wallet signs the fixed message over A, ledger_id and scopes. */
  body(
    holder: Holder,
    companion: Companion,
    scopes: Scope[],
    options: AttestOptions & { wallet?: Signer } = {},
  ): AvmVerifyRequest {
    const attestation = this.attest(companion, holder.ledger_id, { scopes, ...options });
    return {
      ledger_id: holder.ledger_id,
      wallet_signature: signWalletMessage(options.wallet ?? holder.wallet, holder.ledger_id, attestation, scopes),
      companion_attestation: attestation as AvmVerifyRequest["companion_attestation"],
      requested_scopes: scopes,
    };
  }

  /** An operator token recorded on the ledger and signed with the test token key. */
  async token(
    permissions: TokenPermission[],
    options: { ttlSeconds?: number; subject?: string } = {},
  ): Promise<{ token: string; jti: string }> {
    const claims = tokenClaims(
      {
        jti: randomUUID(),
        subject: options.subject ?? "operator-1",
        permissions,
        ttlSeconds: options.ttlSeconds ?? 86_400,
      },
      this.nowMs,
    );
    await this.ledger.append([tokenIssuedEvent(claims)]);
    return { token: await signToken(claims, TEST_TOKEN_SECRET), jti: claims.jti };
  }

  /** The app over this ledger — or over `ledger`, another connection to the same file (a second instance). */
  app(options: Partial<AppOptions> = {}, ledger: Ledger = this.ledger): OpenAPIHono<AppEnv> {
    return createApp({
      dataDir: this.dir,
      log: () => {},
      now: this.clock.now,
      ledger,
      tokenPublicKeyHex: TEST_TOKEN_PUBLIC,
      tokenSecretKeyHex: TEST_TOKEN_SECRET,
      ...options,
    });
  }

  /** The app on a real server on a free loopback port. */
  async serve(options: Partial<AppOptions> = {}, ledger?: Ledger): Promise<ApiOnLoopback> {
    const server = await listen(this.app(options, ledger), "127.0.0.1", 0);
    const send = (path: string, init: RequestInit) => fetch(`${server.url}${path}`, init);
    const api: ApiOnLoopback = {
      url: server.url,
      server,
      post: (path, body, token) =>
        send(path, {
          method: "POST",
          headers: { "Content-Type": "application/json", ...(token ? { Authorization: `Bearer ${token}` } : {}) },
          body: typeof body === "string" ? body : JSON.stringify(body),
        }),
      get: (path) => send(path, {}),
      close: () => server.close(100),
    };
    this.#servers.push(api);
    return api;
  }

  /** Another connection to the same ledger file: what a second API instance or process opens. */
  secondConnection(): Promise<Ledger> {
    return openFixtureLedger(this.path, this.clock.now);
  }

  async close(): Promise<void> {
    await Promise.all(this.#servers.map((s) => s.close()));
    await this.ledger.close();
    this.#cleanup();
  }
}

export { attestationHash };
