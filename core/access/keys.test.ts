import { describe, expect, it } from "vitest";
import type { LedgerEntry } from "../ledger/entry.ts";
import { fold } from "../ledger/projection.ts";
import { validateEvent } from "../events/registry.ts";
import {
  issuePayload,
  KEY_GRACE_DAYS,
  KEY_LIFETIME_DAYS,
  keyRegistry,
  keyStatus,
  nextKeyId,
  opensFiles,
  type KeyRegistry,
} from "./keys.ts";

const hash = (n: number) => n.toString(16).padStart(64, "0");
const at = (iso: string) => new Date(iso);
const day = 86_400_000;

/** A tiny in-memory log: every payload is validated against the ledger registry, as a store would. */
function log() {
  const entries: LedgerEntry[] = [];
  const append = (type: string, payload: Record<string, unknown>) => {
    expect(validateEvent(type, payload)).toBeNull();
    entries.push({
      seq: entries.length,
      type,
      payload: payload as LedgerEntry["payload"],
      ts: "2026-01-01T00:00:00.000Z",
      prev: null,
      hash: "",
    });
  };
  return { entries, append, state: (): KeyRegistry => fold(keyRegistry, entries) };
}

describe("API keys as a projection of the access ledger", () => {
  it("never reuses an id, whatever was revoked", () => {
    const l = log();
    for (let i = 1; i <= 4; i++)
      l.append("apikey.issued", issuePayload(l.state(), "economist", `bank ${i}`, hash(i), at("2026-01-01T00:00:00Z")));
    l.append("apikey.revoked", {
      key_id: "economist-4",
      reason: "no longer needed",
      revoked_at: "2026-01-02T00:00:00.000Z",
    });
    l.append("apikey.issued", issuePayload(l.state(), "academic", "uni", hash(9), at("2026-01-01T00:00:00Z")));
    expect(nextKeyId(l.state(), "economist")).toBe("economist-5");
    expect(nextKeyId(l.state(), "academic")).toBe("academic-2");
    expect(nextKeyId(l.state(), "government")).toBe("government-1");
  });

  it("voids an issue that repeats an id or a token hash (two issuers racing)", () => {
    const l = log();
    const first = issuePayload(l.state(), "government", "ministry", hash(1), at("2026-01-01T00:00:00Z"));
    l.append("apikey.issued", first);
    l.append("apikey.issued", { ...first, sha256: hash(2) });
    l.append("apikey.issued", { ...first, key_id: "government-2" });
    const s = l.state();
    expect([...s.keys.keys()]).toEqual(["government-1"]);
    expect(s.byHash.get(hash(1))).toBe("government-1");
    expect(s.byHash.has(hash(2))).toBe(false);
    expect(nextKeyId(s, "government")).toBe("government-3");
  });

  it("expires a government key after 90 days, others after 365, each with a 14-day grace", () => {
    expect(KEY_LIFETIME_DAYS).toEqual({ government: 90, academic: 365, institutional: 365, economist: 365 });
    const l = log();
    const t0 = Date.parse("2026-01-01T00:00:00.000Z");
    l.append("apikey.issued", issuePayload(l.state(), "government", "ministry", hash(1), new Date(t0)));
    l.append("apikey.issued", issuePayload(l.state(), "academic", "uni", hash(2), new Date(t0)));
    const gov = l.state().keys.get("government-1")!;
    const uni = l.state().keys.get("academic-1")!;
    expect(gov.expires_at).toBe("2026-04-01T00:00:00.000Z");
    expect(keyStatus(gov, new Date(t0 + 90 * day - 1))).toBe("active");
    expect(keyStatus(gov, new Date(t0 + 90 * day))).toBe("grace");
    expect(keyStatus(gov, new Date(t0 + (90 + KEY_GRACE_DAYS) * day - 1))).toBe("grace");
    expect(keyStatus(gov, new Date(t0 + (90 + KEY_GRACE_DAYS) * day))).toBe("expired");
    expect(keyStatus(uni, new Date(t0 + 364 * day))).toBe("active");
    expect(opensFiles("grace")).toBe(true);
    expect(opensFiles("expired")).toBe(false);
  });

  it("rotation issues a successor; the predecessor retires 14 days later; revocation is immediate", () => {
    const l = log();
    const t0 = Date.parse("2026-01-01T00:00:00.000Z");
    l.append("apikey.issued", issuePayload(l.state(), "government", "ministry", hash(1), new Date(t0)));
    const rotatedAt = new Date(t0 + 80 * day);
    l.append("apikey.issued", issuePayload(l.state(), "government", "ministry", hash(2), rotatedAt, "government-1"));
    const s = l.state();
    const old = s.keys.get("government-1")!;
    expect(old.replaced_by).toBe("government-2");
    expect(old.retires_at).toBe(new Date(t0 + 94 * day).toISOString());
    expect(keyStatus(old, new Date(t0 + 93 * day))).toBe("grace");
    expect(keyStatus(old, new Date(t0 + 94 * day))).toBe("retired");
    expect(keyStatus(s.keys.get("government-2")!, new Date(t0 + 94 * day))).toBe("active");
    l.append("apikey.revoked", {
      key_id: "government-2",
      reason: "key compromise",
      revoked_at: "2026-03-22T00:00:00.000Z",
    });
    // Revoked from the moment the event exists, whatever the clock says.
    expect(keyStatus(l.state().keys.get("government-2")!, new Date(t0))).toBe("revoked");
  });

  it("folds the same registry however often it is rebuilt", () => {
    const l = log();
    l.append("apikey.issued", issuePayload(l.state(), "institutional", "lab", hash(7), at("2026-01-01T00:00:00Z")));
    l.append("access", {
      key_id: "institutional-1",
      key_status: "active",
      tier: "institutional",
      area: "economy",
      file: "supply.json",
      outcome: "served",
      status: 200,
    });
    expect(l.state()).toEqual(l.state());
    expect(l.state().keys.size).toBe(1);
  });
});
