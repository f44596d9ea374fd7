/**
 * The verifier against a hostile origin on loopback (a real HTTP server): one that sends its headers
 * and one byte and then stalls, and one whose body never ends. Every fetch gives up at its deadline
 * (`--timeout`, short here) naming it, and stops reading at its size cap naming that cap — a file's
 * recorded `bytes`, a hash tile's width × 32, a checkpoint's and a manifest's cap — having received
 * no more than the cap and what the sockets buffer, where an unbounded read would run until memory
 * gives out. Run as a downloader runs it: the command, in a child process.
 */
import { createServer, type Server } from "node:http";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifierKey } from "../../../core/checkpoint.ts";
import { publicKeyFromSecret } from "../../../core/signature.ts";
import { TEST_DATASET_SIGNER } from "../../../test/support/api/helpers.ts";
import { HostileAnswers, type Hostile } from "../../../test/support/hostile-answers.ts";
import { runIntegrityVerify } from "../../../test/support/integrity-verify.ts";
import { sampleEntries, tlogFiles } from "../../../test/support/tlog-tiles.ts";
import { MANIFEST_LIMIT } from "./limits.js";

const REPO = resolve(import.meta.dirname, "../../..");
const tmp = mkdtempSync(join(tmpdir(), "integrity-verify-limits-"));
const LEDGER_SIGNER = { ...TEST_DATASET_SIGNER, name: "test.example/ledger" };
const ledgerKey = verifierKey(LEDGER_SIGNER.name, publicKeyFromSecret("ed25519", LEDGER_SIGNER.secretKeyHex));
const datasetKey = join(REPO, "data", "keys", "datasets.vkey");

/** What the server does for a path: serve these bytes, stall after one byte, or never end. */
type Behaviour = Uint8Array | Hostile;
const routes = new Map<string, Behaviour>();
const hostile = new HostileAnswers();
/** Bytes of body written per path, for the hostile answers. */
const sent = hostile.sent;
let server: Server;
let base: string;

beforeAll(async () => {
  for (const name of ["datapackage.json", "datapackage.json.sig", "dataset.json", "papers.json"]) {
    routes.set(`/academics/${name}`, readFileSync(join(REPO, "data", "areas", "academics", name)));
  }
  for (const [path, bytes] of tlogFiles(sampleEntries(300), LEDGER_SIGNER)) routes.set(`/ledger/${path}`, bytes);
  server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const behaviour = routes.get(path);
    if (behaviour === undefined) return void res.writeHead(404).end();
    if (behaviour instanceof Uint8Array)
      return void res.writeHead(200, { "content-length": behaviour.length }).end(behaviour);
    // No Content-Length: the cap must hold while reading, not only on a declared length.
    hostile.answer(path, res, behaviour);
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
});

afterAll(async () => {
  hostile.destroyAll();
  await new Promise((done) => server.close(done));
  rmSync(tmp, { recursive: true, force: true });
});

/** Runs the command with `path` answering as `behaviour`, and the time it took. */
async function against(path: string, behaviour: Behaviour, ...args: string[]) {
  const original = routes.get(path);
  routes.set(path, behaviour);
  const started = performance.now();
  try {
    const result = await runIntegrityVerify(tmp, ...args);
    return { ...result, seconds: (performance.now() - started) / 1000 };
  } finally {
    if (original === undefined) routes.delete(path);
    else routes.set(path, original);
  }
}

/** An endless answer may have been sent no more than the cap and what two sockets buffer. */
const SOCKET_SLACK = 32 * 1024 * 1024;

describe("a stalling origin", () => {
  it("gives up a manifest and a file that stall after one byte, at the deadline, naming it", async () => {
    const manifest = await against(
      "/academics/datapackage.json",
      "stall",
      `${base}/academics/`,
      "--key",
      datasetKey,
      "--timeout",
      "0.5",
    );
    expect(manifest.code).toBe(2);
    expect(manifest.err).toMatch(
      new RegExp(
        `^FAIL manifest ${base}/academics/datapackage\\.json: .*within the deadline of 0.5 s; gave up \\[fetch-timeout\\]$`,
        "m",
      ),
    );
    // Within the deadline, with the time a Node process takes to start and stop.
    expect(manifest.seconds).toBeLessThan(0.5 + 4);
    const file = await against(
      "/academics/papers.json",
      "stall",
      `${base}/academics/papers.json`,
      "--key",
      datasetKey,
      "--timeout",
      "0.5",
    );
    expect(file.code).toBe(2);
    expect(file.err).toMatch(/^FAIL file .*papers\.json: .*deadline of 0.5 s.*\[fetch-timeout\]$/m);
  });

  it("gives up a stalled checkpoint and a stalled tile", async () => {
    const checkpoint = await against(
      "/ledger/checkpoint",
      "stall",
      "--ledger",
      `${base}/ledger/`,
      "--entry",
      "3",
      "--key",
      ledgerKey,
      "--timeout",
      "0.5",
    );
    expect(checkpoint.code).toBe(2);
    expect(checkpoint.err).toMatch(/^FAIL checkpoint .*\/ledger\/checkpoint: .*deadline of 0.5 s.*\[fetch-timeout\]$/m);
    const tile = await against(
      "/ledger/tile/0/000",
      "stall",
      "--ledger",
      `${base}/ledger/`,
      "--entry",
      "3",
      "--key",
      ledgerKey,
      "--timeout",
      "0.5",
    );
    expect(tile.code).toBe(2);
    expect(tile.err).toMatch(/tile\/0\/000: .*deadline of 0.5 s.*\[fetch-timeout\]$/m);
  });

  it("refuses a deadline that is not a number of seconds", async () => {
    const r = await runIntegrityVerify(tmp, `${base}/academics/`, "--timeout", "soon");
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--timeout soon: a number of seconds/);
  });
});

describe("an endless body", () => {
  it("stops reading a file at the size the signed manifest records, naming that cap", async () => {
    const recorded = (
      JSON.parse(readFileSync(join(REPO, "data", "areas", "academics", "datapackage.json"), "utf8")) as {
        resources: { path: string; bytes: number }[];
      }
    ).resources.find((r) => r.path === "papers.json")!.bytes;
    const r = await against(
      "/academics/papers.json",
      "endless",
      `${base}/academics/papers.json`,
      "--key",
      datasetKey,
      "--timeout",
      "20",
    );
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      new RegExp(
        `^FAIL file ${base}/academics/papers\\.json: ${base}/academics/papers\\.json: more than ${recorded} bytes, the size the signed manifest records for this file; stopped reading at the size cap \\[too-large\\]$`,
        "m",
      ),
    );
    expect(sent.get("/academics/papers.json")).toBeLessThan(recorded + SOCKET_SLACK);
  });

  it("stops reading a manifest at the manifest cap", async () => {
    const r = await against(
      "/academics/datapackage.json",
      "endless",
      `${base}/academics/`,
      "--key",
      datasetKey,
      "--timeout",
      "20",
    );
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /^FAIL manifest .*datapackage\.json: more than 4 MiB, the cap for a manifest; stopped reading at the size cap \[too-large\]$/m,
    );
    expect(sent.get("/academics/datapackage.json")).toBeLessThan(MANIFEST_LIMIT.maxBytes + SOCKET_SLACK);
  });

  it("stops reading a checkpoint at its cap and a hash tile at its width × 32", async () => {
    const checkpoint = await against(
      "/ledger/checkpoint",
      "endless",
      "--ledger",
      `${base}/ledger/`,
      "--entry",
      "3",
      "--key",
      ledgerKey,
      "--timeout",
      "20",
    );
    expect(checkpoint.code).toBe(1);
    expect(checkpoint.err).toMatch(
      /checkpoint: more than 2 KiB, the cap for a signed checkpoint; stopped reading at the size cap \[too-large\]$/m,
    );
    expect(sent.get("/ledger/checkpoint")).toBeLessThan(2048 + SOCKET_SLACK);
    const tile = await against(
      "/ledger/tile/0/000",
      "endless",
      "--ledger",
      `${base}/ledger/`,
      "--entry",
      "3",
      "--key",
      ledgerKey,
      "--timeout",
      "20",
    );
    expect(tile.code).toBe(1);
    expect(tile.err).toMatch(
      /tile\/0\/000: more than 8 KiB, a tile of 256 hashes × 32 bytes; stopped reading at the size cap \[too-large\]$/m,
    );
  });
});
