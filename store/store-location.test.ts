/**
 * The stores' one location (store/store-location.ts): DATABASE_URL read in one place, checked, and
 * the same resolution for the ledger, the access ledger and the limits. A value that does not parse
 * is refused with an error naming the variable (never its value), not taken for "unset".
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { accessLedgerPath } from "./access-ledger.ts";
import { defaultLedgerPath } from "./open-ledger.ts";
import { resolveStoreLocation, StoreLocationError } from "./store-location.ts";

const ROOT = join(import.meta.dirname, "..");

describe("the stores' location", () => {
  it("one PostgreSQL URL for every store, shown without its password", () => {
    const location = resolveStoreLocation({
      DATABASE_URL: "postgres://app:secret@db.example:5432/ledger",
      LEDGER_DB: "/x.sqlite",
    });
    expect(location).toMatchObject({
      ledger: "postgres://app:secret@db.example:5432/ledger",
      access: "postgres://app:secret@db.example:5432/ledger",
      shown: "postgres://app@db.example:5432/ledger",
    });
    expect(location.driver.kind).toBe("postgresql");
  });

  it("a --db flag names the one store a command works on, checked as the flag, before DATABASE_URL", () => {
    const env = { DATABASE_URL: "postgres://app:secret@db.example/ledger" };
    const file = resolveStoreLocation(env, { db: "/tmp/other.sqlite" });
    expect(file).toMatchObject({ ledger: "/tmp/other.sqlite", access: "/tmp/other.sqlite" });
    expect(file.driver.kind).toBe("sqlite");
    expect(resolveStoreLocation(env, { db: "postgresql://db.example/x" }).driver.kind).toBe("postgresql");
    expect(() => resolveStoreLocation(env, { db: "postgres://app:secret@/x" })).toThrow(/--db must be a postgres/);
  });

  it("unset or empty: the embedded files, LEDGER_DB and ACCESS_LEDGER_DB first", () => {
    const embedded = resolveStoreLocation({ STATE_DIR: "/s" });
    expect(embedded).toMatchObject({ ledger: "/s/ledger.sqlite", access: "/s/access.sqlite" });
    expect(embedded.driver.kind).toBe("sqlite");
    expect(
      resolveStoreLocation({ DATABASE_URL: "", LEDGER_DB: "/l.sqlite", ACCESS_LEDGER_DB: "/a.sqlite" }),
    ).toMatchObject({ ledger: "/l.sqlite", access: "/a.sqlite" });
  });

  it.each([
    [" postgres://app:secret@db.example/ledger", "white space before or after it"],
    ["postgres://app:secret@db.example/ledger\n", "white space before or after it"],
    ["postgres://app:se cret@db.example/ledger", "white space or a control character"],
    ["mysql://app:secret@db.example/ledger", "does not start with postgres://"],
    ["db.example/ledger", "does not start with postgres://"],
    ["postgres://app:secret@[::1/ledger", "does not parse as a URL"],
    ["postgres:///ledger", "names no host"],
  ])("refuses DATABASE_URL=%j, naming the variable and never the password", (value, why) => {
    for (const read of [
      () => resolveStoreLocation({ DATABASE_URL: value }),
      () => defaultLedgerPath({ DATABASE_URL: value }),
      () => accessLedgerPath({ DATABASE_URL: value }),
    ]) {
      let error: unknown;
      try {
        read();
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(StoreLocationError);
      expect((error as Error).message).toContain("DATABASE_URL");
      expect((error as Error).message).toContain(why);
      expect((error as Error).message).not.toContain("secret");
    }
  });

  it("no production module but store/store-location.ts reads DATABASE_URL", () => {
    const readers: string[] = [];
    const walk = (dir: string): void => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, e.name);
        if (e.isDirectory()) {
          if (e.name !== "node_modules") walk(path);
        } else if (
          /\.(ts|mjs|js|astro)$/.test(e.name) &&
          !e.name.endsWith(".test.ts") &&
          readsDatabaseUrl(readFileSync(path, "utf8"))
        ) {
          readers.push(relative(ROOT, path));
        }
      }
    };
    for (const dir of ["core", "store", "api", "cli", "pipeline", "site/src", "deploy"]) walk(join(ROOT, dir));
    expect(readers).toEqual(["store/store-location.ts"]);
  });

  it("the scan above finds each way of reading the variable, and not a mention in a comment", () => {
    for (const text of [
      "const url = process.env.DATABASE_URL;",
      "const url = env?.DATABASE_URL ?? '';",
      'const url = process.env["DATABASE_URL"];',
      "const { DATABASE_URL: url } = process.env;",
      "const { PORT, DATABASE_URL } = env;",
    ])
      expect(readsDatabaseUrl(text), text).toBe(true);
    expect(readsDatabaseUrl("/** With DATABASE_URL set, every store is in PostgreSQL. */")).toBe(false);
  });
});

/** Whether a module's text reads `DATABASE_URL` from an environment: by property, by index or by destructuring. */
function readsDatabaseUrl(text: string): boolean {
  return /env(\?)?\.DATABASE_URL|\[["'`]DATABASE_URL["'`]\]|\{[^}]*\bDATABASE_URL\b[^}]*\}\s*=\s*[\w.?]*env\b/.test(
    text,
  );
}
