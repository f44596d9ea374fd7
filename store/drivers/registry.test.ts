/**
 * The driver registry (store/drivers/registry.ts): the store kinds come from its one list, a
 * location goes to the driver that recognises it, and each driver's backend names its kind. And the
 * contract the engine holds every driver to (store/ledger/backend.ts) has no optional member: what
 * only some drivers can do is their append strategy.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { driverFor, FILE_DRIVER, LIMITS_KINDS, STORE_DRIVERS, STORE_KINDS, URL_DRIVERS } from "./registry.ts";

describe("the store drivers", () => {
  it("give the store kinds and the limits' kinds, one per driver", () => {
    expect(STORE_KINDS).toEqual(["sqlite", "postgresql"]);
    expect(LIMITS_KINDS).toEqual(["memory", "postgresql"]);
    expect(new Set(STORE_DRIVERS.map((d) => d.kind)).size).toBe(STORE_DRIVERS.length);
  });

  it("send a location to the driver that recognises it: a database URL to its driver, any path to the embedded one", () => {
    expect(driverFor("postgres://app@db.example/ledger").kind).toBe("postgresql");
    expect(driverFor("postgresql://db.example/ledger").kind).toBe("postgresql");
    for (const path of ["/var/lib/ledger.sqlite", ".state/ledger.sqlite", ":memory:"])
      expect(driverFor(path)).toBe(FILE_DRIVER);
    expect(FILE_DRIVER.kind).toBe("sqlite");
    expect(URL_DRIVERS.map((d) => d.kind)).toEqual(["postgresql"]);
  });

  it("open backends of their own kind, showing no password", async () => {
    for (const [location, shown] of [
      [":memory:", ":memory:"],
      ["postgres://app:secret@127.0.0.1:1/ledger", "postgres://app@127.0.0.1:1/ledger"],
    ] as const) {
      const driver = driverFor(location);
      expect(driver.shown(location)).toBe(shown);
      const backend = driver.ledger(location, { env: {} });
      try {
        expect(backend.kind).toBe(driver.kind);
        expect(backend.location).not.toContain("secret");
      } finally {
        await backend.close();
      }
    }
  });

  it("are held to a contract without optional members (store/ledger/backend.ts)", () => {
    const text = readFileSync(join(import.meta.dirname, "..", "ledger", "backend.ts"), "utf8");
    for (const name of ["BackendReads", "BackendWrites", "WriteTransaction", "LedgerBackend"]) {
      const body = new RegExp(`export interface ${name}\\b[^{]*\\{([\\s\\S]*?)\\n\\}`).exec(text)?.[1];
      expect(body, name).toBeDefined();
      // Members only, not the comments: `name?(` or `name?:` is an optional member.
      const members = body!.replace(/\/\*\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");
      expect(members, name).not.toMatch(/^\s*(readonly\s+)?\w+\?\s*[(:]/m);
    }
  });
});
