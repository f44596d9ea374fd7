/**
 * A witness's state folder: its Ed25519 key (`witness.ed25519`, the hex seed, created on first use
 * with mode 0600) and `witness.sqlite` — its name, the logs it follows (origin and vkey), the latest
 * checkpoint it cosigned of each, and the requests it refused (as evidence: a signed checkpoint that
 * is not consistent with the one cosigned before proves the log misbehaved).
 *
 * `addCheckpoint` reads the latest checkpoint, decides, and stores the new one inside one
 * `BEGIN IMMEDIATE` transaction: SQLite's write lock makes the check of the old size and the store of
 * the new checkpoint one step, across requests and across processes sharing the folder.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync, renameSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { parseVerifierKey } from "../core/checkpoint.ts";
import { generateKeyPair, publicKeyFromSecret } from "../core/signature.ts";
import { cosign, cosignerVkey, type Cosigner } from "../core/witness/cosignature.ts";
import { decide, logVerifiers, parseAddCheckpoint, type Decision } from "../core/witness/add-checkpoint.ts";

const KEY_FILE = "witness.ed25519";
const DB_FILE = "witness.sqlite";
const SEED = /^[0-9a-f]{64}$/;

export interface WitnessReply {
  status: number;
  contentType: string;
  body: string;
  /** Why it was refused (for the log line); absent on a 200. */
  reason?: string;
}

export class WitnessState {
  readonly dir: string;
  readonly name: string;
  readonly #seed: string;
  readonly #db: DatabaseSync;

  /** Opens (creating on first use) the state in `dir`; `name` is required the first time only and must match after. */
  constructor(dir: string, name?: string) {
    this.dir = dir;
    mkdirSync(dir, { recursive: true });
    const keyPath = join(dir, KEY_FILE);
    if (!existsSync(keyPath)) {
      const tmp = `${keyPath}.${process.pid}.tmp`;
      writeFileSync(tmp, `${generateKeyPair("ed25519").secretKey}\n`, { mode: 0o600 });
      renameSync(tmp, keyPath);
    }
    chmodSync(keyPath, 0o600);
    const seed = readFileSync(keyPath, "utf8").trim();
    if (!SEED.test(seed)) throw new Error(`${keyPath}: not a 32-byte hex Ed25519 seed`);
    this.#seed = seed;
    this.#db = new DatabaseSync(join(dir, DB_FILE));
    this.#db.exec(`PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;
      CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS logs (origin TEXT NOT NULL, vkey TEXT NOT NULL, PRIMARY KEY (origin, vkey));
      CREATE TABLE IF NOT EXISTS checkpoints (origin TEXT PRIMARY KEY, size INTEGER NOT NULL, root BLOB NOT NULL, note TEXT NOT NULL, cosigned_at INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS refusals (id INTEGER PRIMARY KEY, at INTEGER NOT NULL, origin TEXT NOT NULL, status INTEGER NOT NULL, reason TEXT NOT NULL, body TEXT NOT NULL);`);
    const stored = this.#db.prepare("SELECT value FROM meta WHERE key = 'name'").get() as { value: string } | undefined;
    const defaultName = `witness.localhost/${publicKeyFromSecret("ed25519", seed).slice(0, 8)}`;
    if (stored === undefined) {
      this.name = name ?? defaultName;
      this.vkey(); // validates the name (the key ID covers it)
      this.#db.prepare("INSERT INTO meta (key, value) VALUES ('name', ?)").run(this.name);
    } else {
      if (name !== undefined && name !== stored.value)
        throw new Error(
          `${dir} is the witness ${stored.value}; it cannot be renamed ${name} (the key ID covers the name)`,
        );
      this.name = stored.value;
    }
  }

  cosigner(): Cosigner {
    return { name: this.name, publicKeyHex: publicKeyFromSecret("ed25519", this.#seed) };
  }

  vkey(): string {
    return cosignerVkey(this.cosigner());
  }

  /** Follows a log: its vkey (Ed25519 signed-note key) under `origin` (default: the key's name). */
  addLog(vkey: string, origin?: string): { origin: string } {
    const key = parseVerifierKey(vkey.trim());
    const o = origin ?? key.name;
    if (o === "" || o.includes("\n")) throw new Error("an origin is one non-empty line");
    this.#db.prepare("INSERT OR IGNORE INTO logs (origin, vkey) VALUES (?, ?)").run(o, vkey.trim());
    return { origin: o };
  }

  logs(): { origin: string; vkey: string }[] {
    return this.#db.prepare("SELECT origin, vkey FROM logs ORDER BY origin, vkey").all() as {
      origin: string;
      vkey: string;
    }[];
  }

  latest(origin: string): { size: number; note: string; cosignedAt: number } | undefined {
    const row = this.#db.prepare("SELECT size, note, cosigned_at FROM checkpoints WHERE origin = ?").get(origin) as
      { size: number; note: string; cosigned_at: number } | undefined;
    return row && { size: row.size, note: row.note, cosignedAt: row.cosigned_at };
  }

  refusals(): { at: number; origin: string; status: number; reason: string; body: string }[] {
    return this.#db.prepare("SELECT at, origin, status, reason, body FROM refusals ORDER BY id").all() as {
      at: number;
      origin: string;
      status: number;
      reason: string;
      body: string;
    }[];
  }

  /** One add-checkpoint request, decided and (on success) stored atomically. `nowS`: POSIX seconds. */
  addCheckpoint(bytes: Uint8Array, nowS: number): WitnessReply {
    const req = parseAddCheckpoint(bytes);
    if (typeof req === "string") return text(400, req);
    const db = this.#db;
    db.exec("BEGIN IMMEDIATE");
    let decision: Decision;
    try {
      const vkeys = (db.prepare("SELECT vkey FROM logs WHERE origin = ?").all(req.origin) as { vkey: string }[]).map(
        (r) => r.vkey,
      );
      const row = db.prepare("SELECT size, root FROM checkpoints WHERE origin = ?").get(req.origin) as
        { size: number; root: Uint8Array } | undefined;
      decision = decide(
        req,
        vkeys.length > 0 ? logVerifiers(vkeys) : undefined,
        row && { size: row.size, rootHash: new Uint8Array(row.root) },
      );
      if (decision.status === 200) {
        const { checkpoint } = decision;
        db.prepare(
          "INSERT INTO checkpoints (origin, size, root, note, cosigned_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (origin) DO UPDATE SET size = excluded.size, root = excluded.root, note = excluded.note, cosigned_at = excluded.cosigned_at",
        ).run(checkpoint.origin, checkpoint.size, checkpoint.rootHash, req.note, nowS);
      } else if (decision.evidence) {
        db.prepare("INSERT INTO refusals (at, origin, status, reason, body) VALUES (?, ?, ?, ?, ?)").run(
          nowS,
          req.origin,
          decision.status,
          decision.reason,
          new TextDecoder().decode(bytes),
        );
      }
      db.exec("COMMIT");
    } catch (error) {
      db.exec("ROLLBACK");
      throw error;
    }
    if (decision.status === 200)
      return {
        status: 200,
        contentType: "text/plain; charset=utf-8",
        body: cosign(decision.body, this.name, this.#seed, nowS),
      };
    if (decision.status === 409)
      return { status: 409, contentType: "text/x.tlog.size", body: `${decision.size}\n`, reason: decision.reason };
    return text(decision.status, decision.reason);
  }

  close(): void {
    this.#db.close();
  }
}

function text(status: number, reason: string): WitnessReply {
  return { status, contentType: "text/plain; charset=utf-8", body: `${reason}\n`, reason };
}
