/**
 * `npm run bench -- core`: the integrity primitives and the ledger against their floors.
 *
 * - Merkle root of 1,000,000 leaves vs the 2n−1 raw SHA-256 calls such a tree needs (target <= 1.5x time).
 * - Ed25519 verify through core/signature.ts vs raw node:crypto verify with a ready KeyObject (>= 0.9x speed).
 * - Ledger bulk append (`appendBulk`, two threads), one batch of 100,000 entries, vs raw SQLite
 *   inserts of the same rows (>= 0.5x speed), and (reported) against raw inserts into the ledger's own
 *   tables, append-only triggers included; the same batch through the default one-thread `append`
 *   (reported); and single appends, one transaction each. Group commit: `npm run bench -- groupcommit`.
 * - JCS canonicalize vs JSON.stringify on 10,000 records (reported).
 */
import { createPublicKey, hash, verify as cryptoVerify } from "node:crypto";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { canonicalize } from "../core/canonical.ts";
import type { NewEvent } from "../core/ledger/store.ts";
import { leafHash, rootHash } from "../core/merkle.ts";
import { generateKeyPair, sign, verify } from "../core/signature.ts";
import { openLedgerStore } from "../store/open-ledger.ts";
import { SCHEMA, triggers } from "../store/drivers/sqlite/backend.ts";
import { sampleEvent, sealedRows, steppingClock, tempDir } from "../test/support/store/helpers.ts";
import { compare, compareAsync, printComparisons, type Comparison } from "./harness.ts";

function merkle(): Comparison {
  const n = 1_000_000;
  const leafSize = 64;
  const data = Array.from({ length: n }, (_, i) => {
    const d = new Uint8Array(leafSize);
    new DataView(d.buffer).setUint32(0, i);
    return d;
  });
  const leafInput = new Uint8Array(1 + leafSize);
  const nodeInput = new Uint8Array(65);
  nodeInput[0] = 1;
  const t = compare(
    3,
    () => {
      rootHash(data.map(leafHash));
    },
    () => {
      for (let i = 0; i < n; i++) hash("sha256", leafInput, "buffer");
      for (let i = 0; i < n - 1; i++) hash("sha256", nodeInput, "buffer");
    },
  );
  return {
    name: `Merkle root of ${n.toLocaleString("en")} leaves (${leafSize}-byte entries)`,
    subject: "leafHash ×n + rootHash",
    floor: "2n−1 raw SHA-256 calls, same input sizes",
    subjectSeconds: t.subject,
    rounds: t.rounds,
    floorSeconds: t.floor,
    items: n,
    kind: "time",
    target: 1.5,
  };
}

function ed25519(): Comparison {
  const n = 20_000;
  const keys = generateKeyPair("ed25519");
  const messages = Array.from({ length: 64 }, (_, i) => new TextEncoder().encode(`checkpoint note ${i}`));
  const signatures = messages.map((m) => sign("ed25519", keys.secretKey, m));
  const keyObject = createPublicKey({
    key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(keys.publicKey, "hex").toString("base64url") },
    format: "jwk",
  });
  const rawSignatures = signatures.map((s) => Buffer.from(s, "hex"));
  let ok = 0;
  const t = compare(
    5,
    () => {
      for (let i = 0; i < n; i++) if (verify("ed25519", keys.publicKey, messages[i & 63]!, signatures[i & 63]!)) ok++;
    },
    () => {
      for (let i = 0; i < n; i++) if (cryptoVerify(null, messages[i & 63]!, keyObject, rawSignatures[i & 63]!)) ok++;
    },
  );
  if (ok !== 12 * n) throw new Error("a benchmark signature failed to verify");
  return {
    name: `Ed25519 verify, ${n.toLocaleString("en")} signatures`,
    subject: "core/signature.ts verify (hex in, cached key)",
    floor: "node:crypto verify with a ready KeyObject",
    subjectSeconds: t.subject,
    rounds: t.rounds,
    floorSeconds: t.floor,
    items: n,
    kind: "speed",
    target: 0.9,
  };
}

const PRAGMAS = "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;";
const RAW_SCHEMA = `${PRAGMAS}
  CREATE TABLE entries (seq INTEGER PRIMARY KEY, type TEXT NOT NULL, payload TEXT NOT NULL, ts TEXT NOT NULL,
  prev TEXT, hash TEXT NOT NULL, leaf BLOB NOT NULL) STRICT;`;

async function ledgerAppends(dir: string): Promise<Comparison[]> {
  const n = 100_000;
  const events: NewEvent[] = Array.from({ length: n }, (_, i) => sampleEvent(i));
  // The floor inserts the very rows the ledger writes, computed beforehand: no hashing, no validation.
  const rows = sealedRows(events);
  let round = 0;
  const fresh = (name: string) => {
    const path = join(dir, `${name}-${round++}.sqlite`);
    rmSync(path, { force: true });
    return path;
  };

  // Each round's file is deleted after it: the 100,000-entry files would otherwise pile up.
  const dispose = (path: string) => {
    for (const suffix of ["", "-wal", "-shm"]) rmSync(`${path}${suffix}`, { force: true });
  };
  const rawInto = (schema: string) => () => {
    const path = fresh("raw");
    const db = new DatabaseSync(path);
    db.exec(schema);
    const insert = db.prepare("INSERT INTO entries VALUES (?, ?, ?, ?, ?, ?, ?)");
    db.exec("BEGIN IMMEDIATE");
    for (const r of rows) insert.run(...r);
    db.exec("COMMIT");
    db.close();
    dispose(path);
  };
  const raw = rawInto(RAW_SCHEMA);
  const batchedWith = (method: "appendBulk" | "append", floor = raw) =>
    compareAsync(
      3,
      async () => {
        const path = fresh("ledger");
        const ledger = await openLedgerStore({
          path,
          origin: "bench/ledger",
          now: steppingClock(),
          durability: "normal",
        });
        await ledger[method](events);
        await ledger.close();
        dispose(path);
      },
      floor,
    );
  const bulk = await batchedWith("appendBulk");
  // Report only: the same floor into the ledger's own tables, whose append-only triggers check every insert.
  const bulkGuarded = await batchedWith("appendBulk", rawInto(`${PRAGMAS} ${SCHEMA} ${triggers}`));
  const oneThread = await batchedWith("append");

  const singles = 2_000;
  const single = async (durability: "full" | "normal"): Promise<Comparison> => {
    const t = await compareAsync(
      1,
      async () => {
        const ledger = await openLedgerStore({
          path: fresh("single"),
          origin: "bench/ledger",
          now: steppingClock(),
          durability,
        });
        for (let i = 0; i < singles; i++) await ledger.append([events[i]!]);
        await ledger.close();
      },
      () => {
        const db = new DatabaseSync(fresh("raw-single"));
        db.exec(RAW_SCHEMA.replace("NORMAL", durability.toUpperCase()));
        const insert = db.prepare("INSERT INTO entries VALUES (?, ?, ?, ?, ?, ?, ?)");
        for (let i = 0; i < singles; i++) {
          db.exec("BEGIN IMMEDIATE");
          insert.run(...rows[i]!);
          db.exec("COMMIT");
        }
        db.close();
      },
    );
    return {
      name: `Ledger single appends, ${singles.toLocaleString("en")} transactions, synchronous=${durability.toUpperCase()}`,
      subject: "Ledger.append([event]) each (SQLite)",
      floor: "raw INSERT of the same row, one transaction each",
      subjectSeconds: t.subject,
      rounds: t.rounds,
      floorSeconds: t.floor,
      items: singles,
      kind: "speed",
    };
  };

  return [
    {
      name: `Ledger bulk append, one batch of ${n.toLocaleString("en")} entries (synchronous=NORMAL)`,
      subject: "Ledger.appendBulk on SQLite (validate, JCS, hash, Merkle, insert; sealed on a worker thread)",
      floor: "raw SQLite INSERT of the same precomputed rows",
      subjectSeconds: bulk.subject,
      floorSeconds: bulk.floor,
      items: n,
      kind: "speed",
      target: 0.5,
    },
    {
      name: "The same bulk append against raw INSERTs into the ledger's own tables (report only)",
      subject: "Ledger.appendBulk on SQLite",
      floor: "raw SQLite INSERT of the same rows into the ledger's schema, its append-only triggers included",
      subjectSeconds: bulkGuarded.subject,
      floorSeconds: bulkGuarded.floor,
      items: n,
      kind: "speed",
    },
    {
      name: `Ledger default append, the same batch on one thread (synchronous=NORMAL)`,
      subject: "Ledger.append (SQLite)",
      floor: "raw SQLite INSERT of the same precomputed rows",
      subjectSeconds: oneThread.subject,
      floorSeconds: oneThread.floor,
      items: n,
      kind: "speed",
    },
    await single("normal"),
    await single("full"),
  ];
}

function jcs(): Comparison {
  const records = Array.from({ length: 10_000 }, (_, i) => ({
    ...sampleEvent(i).payload,
    note: `record ${i} — “quoted” text`,
    tags: ["alpha", "beta", String(i)],
    nested: { z: i, a: i / 7, m: null, ok: i % 2 === 0 },
  }));
  const t = compare(
    10,
    () => {
      for (const r of records) canonicalize(r);
    },
    () => {
      for (const r of records) JSON.stringify(r);
    },
  );
  return {
    name: "JCS canonicalize vs JSON.stringify, 10,000 records",
    subject: "canonicalize (RFC 8785)",
    floor: "JSON.stringify",
    subjectSeconds: t.subject,
    rounds: t.rounds,
    floorSeconds: t.floor,
    items: records.length,
    kind: "time",
  };
}

export async function run(): Promise<void> {
  const { dir, cleanup } = tempDir("bench-core-");
  try {
    printComparisons("core: integrity primitives and the ledger", [
      merkle(),
      ed25519(),
      ...(await ledgerAppends(dir)),
      jcs(),
    ]);
  } finally {
    cleanup();
  }
}
