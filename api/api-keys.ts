/**
 * API keys for the keyed data areas. Keys are random 32-byte tokens (`ipk_<base64url>`), shown once
 * when issued and stored only as SHA-256 hashes in `<STATE_DIR>/api-keys.json` (`API_KEYS_FILE`).
 * A presented key is hashed and compared in constant time; any error while deciding is a denial.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { z } from "zod";

export const KEY_TIERS = ["government", "academic", "institutional", "economist"] as const;
export type KeyTier = (typeof KEY_TIERS)[number];

const KeyRecord = z.strictObject({
  id: z.string().regex(/^[a-z0-9-]{1,64}$/),
  tier: z.enum(KEY_TIERS),
  label: z.string().min(1).max(200),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  issued_at: z.string(),
});
const KeyFile = z.strictObject({ keys: z.array(KeyRecord) });
export type KeyRecord = z.infer<typeof KeyRecord>;

export function keysPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.API_KEYS_FILE ?? join(env.STATE_DIR ?? ".state", "api-keys.json");
}

const TOKEN = /^ipk_[A-Za-z0-9_-]{43}$/;
const hashOf = (token: string) => createHash("sha256").update(token).digest();

export class ApiKeyStore {
  readonly path: string;
  constructor(path: string) {
    this.path = path;
  }

  list(): KeyRecord[] {
    if (!existsSync(this.path)) return [];
    return KeyFile.parse(JSON.parse(readFileSync(this.path, "utf8"))).keys;
  }

  /** Issues a key; returns the token, which is not stored and cannot be shown again. */
  issue(tier: KeyTier, label: string, now: Date): { token: string; record: KeyRecord } {
    const token = `ipk_${randomBytes(32).toString("base64url")}`;
    const keys = this.list();
    const record = KeyRecord.parse({
      id: `${tier}-${keys.length + 1}`,
      tier,
      label,
      sha256: hashOf(token).toString("hex"),
      issued_at: now.toISOString(),
    });
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    const tmp = `${this.path}.tmp`;
    writeFileSync(tmp, `${JSON.stringify({ keys: [...keys, record] }, null, 2)}\n`, { mode: 0o600 });
    renameSync(tmp, this.path);
    return { token, record };
  }

  /** The record of a presented token, or null. Never throws: an unreadable store denies. */
  find(token: string): KeyRecord | null {
    try {
      if (!TOKEN.test(token)) return null;
      const presented = hashOf(token);
      let found: KeyRecord | null = null;
      for (const record of this.list()) {
        if (timingSafeEqual(presented, Buffer.from(record.sha256, "hex"))) found = record;
      }
      return found;
    } catch {
      return null;
    }
  }
}
