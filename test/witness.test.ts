/**
 * Witnessed checkpoints as they run: three witnesses (`npm run witness -- serve`) as separate
 * processes on loopback, started once for the file. The protocol's every status code is checked with
 * a second client written from the C2SP specs (test/support/tlog-witness-client.ts); the ledger gets
 * its checkpoints cosigned 2-of-3 (`npm run ledger -- witness`), with one witness stopped (still
 * met), two stopped (nothing newer published), and a restarted witness remembering what it cosigned;
 * integrity-verify demands the quorum and checks a .tlog-proof offline; the monitor follows the
 * published log and catches a split view, a rollback and tiles that disagree.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifierKey } from "../core/checkpoint.ts";
import { generateKeyPair, publicKeyFromSecret } from "../core/signature.ts";
import { cosignerVkey } from "../core/witness/cosignature.ts";
import { checkWitnessed, parsePolicy } from "../core/witness/policy.ts";
import { openLedgerStore } from "../store/open-ledger.ts";
import { publishLedger } from "../site/src/lib/ledger.ts";
import { witnessRound as askWitnesses } from "../pipeline/witnessing.ts";
import { sampleEvent, steppingClock, tempDir } from "./support/store/helpers.ts";
import { REPO_ROOT } from "./support/site/helpers.ts";
import { integrityVerifyBin } from "./support/integrity-verify.ts";
import { tlogFiles, writeTlog } from "./support/tlog-tiles.ts";
import { addCheckpoint, checkCosignature, post, SpecLog, SpecTree } from "./support/tlog-witness-client.ts";

const WITNESS = join(REPO_ROOT, "cli", "witness-cli.ts");
const LEDGER = join(REPO_ROOT, "cli", "ledger-cli.ts");
const VERIFY = integrityVerifyBin(REPO_ROOT);
const MONITOR = join(REPO_ROOT, "packages", "integrity-verify", "bin", "integrity-monitor.js");

interface Witness {
  id: string;
  state: string;
  port: number;
  url: string;
  vkey: string;
  child: ChildProcess | null;
}

let dir: string;
let cleanup: () => void;
const witnesses: Witness[] = [];

function run(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, args, { encoding: "utf8", env: { ...process.env, ...env } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

async function start(w: Witness): Promise<void> {
  const child = spawn(
    process.execPath,
    [
      WITNESS,
      "serve",
      "--listen",
      `127.0.0.1:${w.port}`,
      "--state",
      w.state,
      "--name",
      `${w.id.toLowerCase()}.witness.test`,
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  child.stderr.resume();
  w.child = child;
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.on("exit", (code) => reject(new Error(`witness ${w.id} exited (${code}) before listening`)));
  });
  w.url = url;
  w.port = Number(new URL(url).port);
}

async function stop(w: Witness): Promise<void> {
  const child = w.child;
  if (!child || child.exitCode !== null) return;
  await new Promise((resolve) => {
    child.on("exit", resolve);
    child.kill("SIGTERM");
  });
  w.child = null;
}

/** The same, without blocking: several at once. */
function runAsync(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr.on("data", (c: Buffer) => (err += c.toString()));
  return new Promise((done) => child.on("close", (code) => done({ code, out, err })));
}

async function addLog(ws: Witness[], vkey: string): Promise<void> {
  for (const r of await Promise.all(ws.map((w) => runAsync([WITNESS, "add-log", "--state", w.state, "--vkey", vkey]))))
    expect(r.code, r.err).toBe(0);
}

beforeAll(async () => {
  ({ dir, cleanup } = tempDir("witness-test-"));
  for (const id of ["W1", "W2", "W3"])
    witnesses.push({ id, state: join(dir, id), port: 0, url: "", vkey: "", child: null });
  await Promise.all(witnesses.map((w) => start(w)));
  const vkeys = await Promise.all(witnesses.map((w) => runAsync([WITNESS, "vkey", "--state", w.state])));
  witnesses.forEach((w, i) => (w.vkey = vkeys[i]!.out.trim().split("\n").at(-1)!));
}, 30_000);

afterAll(async () => {
  await Promise.all(witnesses.map((w) => stop(w)));
  cleanup();
});

const W1 = () => witnesses[0]!;
const W2 = () => witnesses[1]!;
const W3 = () => witnesses[2]!;

describe("tlog-witness add-checkpoint, spoken by an independent client", () => {
  const log = new SpecLog("example.test/conformance");
  const tree = new SpecTree();
  for (let i = 0; i < 10; i++) tree.append(`entry ${i}`);
  let held = 0;
  const at = (n: number) => log.checkpoint(n, tree.root(n));

  it("the commands refuse bad arguments before touching anything", () => {
    expect(run([WITNESS, "serve", "--listen", "localhost", "--state", join(dir, "never")]).err).toMatch(
      /--listen must be HOST:PORT/,
    );
    expect(existsSync(join(dir, "never"))).toBe(false);
    const bad = run([WITNESS, "add-log", "--state", W1().state, "--vkey", "example.test/log+00000000+AQ=="]);
    expect([bad.code, bad.err]).toEqual([2, expect.stringMatching(/malformed verifier key|key ID does not match/)]);
  });

  it("the vkey is type 0x04 with the key ID over name, newline, 0x04 and the key", () => {
    const vkey = W1().vkey;
    const [name, id, key] = [
      vkey.slice(0, vkey.indexOf("+")),
      vkey.slice(vkey.indexOf("+") + 1, vkey.indexOf("+") + 9),
      vkey.slice(vkey.indexOf("+") + 10),
    ];
    const typed = Buffer.from(key, "base64");
    expect([name, typed.length, typed[0]]).toEqual(["w1.witness.test", 33, 0x04]);
    expect(
      createHash("sha256")
        .update(Buffer.concat([Buffer.from(`${name}\n`), typed]))
        .digest()
        .subarray(0, 4)
        .toString("hex"),
    ).toBe(id);
  });

  it("404 for an origin it does not follow; 403 when no trusted key signed", async () => {
    expect((await addCheckpoint(W1().url, 0, [], at(5))).status).toBe(404);
    await addLog([W1()], log.vkey());
    const impostor = new SpecLog("example.test/conformance");
    expect((await addCheckpoint(W1().url, 0, [], impostor.checkpoint(5, tree.root(5)))).status).toBe(403);
  });

  it("400 for malformed or oversized bodies and an old size above the checkpoint's", async () => {
    const cp = at(5);
    for (const body of [
      "",
      "old 01\n\n" + cp,
      "old -1\n\n" + cp,
      "old 1\n" + cp,
      "new 0\n\n" + cp,
      `old 0\n${"AAAA\n"}\n${cp}`,
      `old 0\n${`${Buffer.alloc(32).toString("base64")}\n`.repeat(64)}\n${cp}`,
    ]) {
      expect((await post(W1().url, body)).status, JSON.stringify(body.slice(0, 30))).toBe(400);
    }
    expect((await post(W1().url, `old 0\n\n${cp}${"x".repeat(70_000)}`)).status).toBe(400);
    expect((await addCheckpoint(W1().url, 6, [], cp)).status).toBe(400);
  });

  it("200 with a timestamped cosignature/v1; 409 text/x.tlog.size with the size it holds", async () => {
    const before = Math.floor(Date.now() / 1000);
    const ok = await addCheckpoint(W1().url, 0, [], at(5));
    expect(ok.status).toBe(200);
    const ts = checkCosignature(ok.body, at(5), W1().vkey);
    expect(ts).toBeGreaterThanOrEqual(before);
    const stale = await addCheckpoint(W1().url, 0, [], at(7));
    expect(stale).toMatchObject({ status: 409, contentType: "text/x.tlog.size", body: "5\n" });
  });

  it("422 for a consistency proof that does not verify, or one from size 0; 200 for the right one", async () => {
    const wrong = tree.consistency(4, 7);
    expect((await addCheckpoint(W1().url, 5, wrong, at(7))).status).toBe(422);
    expect((await addCheckpoint(W1().url, 5, tree.consistency(5, 7).reverse(), at(7))).status).toBe(422);
    const fresh = new SpecLog("example.test/fresh");
    await addLog([W1()], fresh.vkey());
    expect((await addCheckpoint(W1().url, 0, [tree.root(1)], fresh.checkpoint(7, tree.root(7)))).status).toBe(422);
    const ok = await addCheckpoint(W1().url, 5, tree.consistency(5, 7), at(7));
    expect(ok.status).toBe(200);
    checkCosignature(ok.body, at(7), W1().vkey);
  });

  it("409 at an equal size with another root (a fork); a rollback is refused", async () => {
    const fork = new SpecTree();
    for (let i = 0; i < 7; i++) fork.append(`forked ${i}`);
    expect(await addCheckpoint(W1().url, 7, [], log.checkpoint(7, fork.root(7)))).toMatchObject({
      status: 409,
      contentType: "text/x.tlog.size",
      body: "7\n",
    });
    expect((await addCheckpoint(W1().url, 7, [], at(5))).status).toBe(400);
    expect(await addCheckpoint(W1().url, 5, [], at(5))).toMatchObject({ status: 409, body: "7\n" });
    const same = await addCheckpoint(W1().url, 7, [], at(7));
    expect(same.status).toBe(200);
  });

  it("two requests from the same old size, even to two processes on one state folder: exactly one is cosigned", async () => {
    const twin: Witness = { ...W1(), port: 0, child: null };
    await start(twin);
    const answers = await Promise.all([
      addCheckpoint(W1().url, 7, tree.consistency(7, 8), at(8)),
      addCheckpoint(twin.url, 7, tree.consistency(7, 10), at(10)),
    ]);
    await stop(twin);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    held = answers[0]!.status === 200 ? 8 : 10;
    expect(answers.find((a) => a.status === 409)!.body).toBe(`${held}\n`);
    expect(await addCheckpoint(W1().url, 0, [], at(held))).toMatchObject({ status: 409, body: `${held}\n` });
  });

  it("keeps refused signed checkpoints as evidence, and remembers across a restart", async () => {
    const refusals = run([WITNESS, "refusals", "--state", W1().state])
      .out.trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { status: number; reason: string; body: string });
    expect(
      refusals.some(
        (r) =>
          r.status === 409 && r.reason.includes("fork") && r.body.startsWith("old 7\n\nexample.test/conformance\n7\n"),
      ),
    ).toBe(true);
    expect(refusals.some((r) => r.status === 422)).toBe(true);
    const vkey = W1().vkey;
    await stop(W1());
    await start(W1());
    expect(run([WITNESS, "vkey", "--state", W1().state]).out.trim()).toBe(vkey);
    expect(await addCheckpoint(W1().url, 0, [], at(held))).toMatchObject({ status: 409, body: `${held}\n` });
  });
});

describe("the ledger cosigned 2-of-3 (npm run ledger -- witness), verified and monitored", () => {
  const seed = generateKeyPair("ed25519").secretKey;
  let env: Record<string, string>;
  let db: string;
  let data: string;
  let policyFile: string;
  let appended = 0;
  let ledgerVkey = "";

  const append = async (n: number) => {
    const ledger = await openLedgerStore({
      path: db,
      origin: "integrity-platform.example/ledger",
      now: steppingClock(Date.parse("2026-03-01T00:00:00Z") + appended * 1000),
      durability: "normal",
    });
    await ledger.append(Array.from({ length: n }, (_, i) => sampleEvent(appended + i)));
    appended += n;
    await ledger.close();
  };
  const witnessRound = () => run([LEDGER, "witness", "--policy", policyFile, "--db", db, "--timeout", "3000"], env);
  const published = () => readFileSync(join(data, "ledger", "checkpoint"), "utf8");
  const cosigners = (note: string) =>
    checkWitnessed(note, parsePolicy(readFileSync(policyFile, "utf8")))
      .cosigned.map((c) => c.id)
      .sort();

  beforeAll(async () => {
    env = { LEDGER_SIGNING_KEY: seed, STATE_DIR: join(dir, "ledger-state"), DATA_DIR: join(dir, "data") };
    db = join(dir, "ledger.sqlite");
    data = join(dir, "data");
    policyFile = join(dir, "ledger.policy");
    await append(30);
    ledgerVkey = run([LEDGER, "vkey"], env).out.trim().split("\n").at(-1)!;
    const vkey = ledgerVkey;
    expect(vkey).toMatch(/^integrity-platform\.example\/ledger\+[0-9a-f]{8}\+/);
    await addLog(witnesses, vkey);
    writeFileSync(
      policyFile,
      [
        `log ${vkey}`,
        ...witnesses.map((w) => `witness ${w.id} ${w.vkey} ${w.url}`),
        "group two-of-three 2 W1 W2 W3",
        "quorum two-of-three",
        "",
      ].join("\n"),
    );
  }, 30_000);

  it("all three cosign; the cosigned checkpoint is printed and published with its tiles", () => {
    const r = witnessRound();
    expect(r.code, r.err).toBe(0);
    expect(cosigners(r.out)).toEqual(["W1", "W2", "W3"]);
    expect(published()).toBe(r.out);
    expect(r.out.split("\n")[1]).toBe("30");
    firstNote = r.out;
  });

  it("integrity-verify demands the quorum, names the cosigners, and writes a .tlog-proof checked offline", () => {
    const ok = run([
      VERIFY,
      "--ledger",
      join(data, "ledger"),
      "--entry",
      "3",
      "--policy",
      policyFile,
      "--key",
      ledgerVkey,
      "--write-proof",
      join(dir, "entry3.tlog-proof"),
    ]);
    expect(ok.code, ok.err + ok.out).toBe(0);
    expect(ok.out).toMatch(/cosigned by W1 at .*, W2 at .*, W3 at .*quorum two-of-three: 2 of W1, W2, W3 met/);
    const offline = run([VERIFY, "--proof", join(dir, "entry3.tlog-proof"), "--policy", policyFile]);
    expect(offline.code, offline.err).toBe(0);
    expect(offline.out).toContain("is entry 3 of integrity-platform.example/ledger at size 30");
    const proof = readFileSync(join(dir, "entry3.tlog-proof"), "utf8");
    writeFileSync(join(dir, "bad.tlog-proof"), proof.replace("index 3", "index 4"));
    expect(run([VERIFY, "--proof", join(dir, "bad.tlog-proof"), "--policy", policyFile]).code).toBe(1);
    // A policy asking for all of four witnesses, one of which never cosigned: refused, naming who did.
    const strict = join(dir, "strict.policy");
    const w4 = cosignerVkey({ name: "w4.witness.test", publicKeyHex: generateKeyPair("ed25519").publicKey });
    writeFileSync(
      strict,
      readFileSync(policyFile, "utf8").replace(
        "group two-of-three 2 W1 W2 W3\nquorum two-of-three",
        `witness W4 ${w4}\ngroup everyone all W1 W2 W3 W4\nquorum everyone`,
      ),
    );
    const refused = run([VERIFY, "--ledger", join(data, "ledger"), "--entry", "3", "--policy", strict]);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(
      /quorum everyone: 4 of W1, W2, W3, W4 is NOT met: cosigned by W1 \(.*\), W2 \(.*\), W3 \(.*\) \[quorum-not-met\]/,
    );
  });

  it("with an area, the ledger checkpoint published beside it must meet the policy", () => {
    const area = join(REPO_ROOT, "data", "areas", "academics");
    const committed = run([VERIFY, area, "--policy", join(REPO_ROOT, "data", "keys", "ledger.policy")]);
    expect(committed.code, committed.err).toBe(0);
    expect(committed.out).toMatch(
      /witnesses: .*data\/ledger\/checkpoint \(size \d+\) is cosigned by no witness; quorum none met/,
    );
    const demanding = join(dir, "demanding.policy");
    writeFileSync(
      demanding,
      `${readFileSync(join(REPO_ROOT, "data", "keys", "ledger.policy"), "utf8").replace("quorum none", "")}witness W1 ${W1().vkey}\nquorum W1\n`,
    );
    const refused = run([VERIFY, area, "--policy", demanding]);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(
      /FAIL witnesses .*quorum W1: witness W1 is NOT met: cosigned by no witness of the policy \[quorum-not-met\]/,
    );
  });

  it("one witness stopped: the quorum is still met with two", async () => {
    const monitorState = join(dir, "monitor");
    const first = run([MONITOR, "--log", join(data, "ledger"), "--policy", policyFile, "--state", monitorState]);
    expect(first.code, first.err + first.out).toBe(0);
    await stop(W3());
    await append(5);
    const r = witnessRound();
    expect(r.code, r.err).toBe(0);
    expect(cosigners(r.out)).toEqual(["W1", "W2"]);
    expect(r.err).toMatch(/FAILED\s+W3 .*unreachable/);
    writeFileSync(join(dir, "two-cosigners"), r.out);
    expect(published()).toBe(r.out);
    const next = run([MONITOR, "--log", join(data, "ledger"), "--policy", policyFile, "--state", monitorState]);
    expect(next.code, next.err + next.out).toBe(0);
    expect(next.out).toContain("5 new leaves hash up to the signed root");
  });

  it("two stopped: the command fails naming the quorum, and nothing newer is published", async () => {
    const before = published();
    await stop(W2());
    await append(4);
    const r = witnessRound();
    expect(r.code).toBe(1);
    expect(r.err).toContain("quorum two-of-three: 2-of-3 (W1, W2, W3) NOT met — cosigned by W1; nothing published");
    expect(r.out).toBe("");
    expect(published()).toBe(before);
  });

  it("the site build publishes the cosigned checkpoint only while it meets the committed policy", async () => {
    mkdirSync(join(data, "keys"), { recursive: true });
    copyFileSync(policyFile, join(data, "keys", "ledger.policy"));
    const out = join(dir, "site-out");
    expect(await publishLedger(data, out)).toMatchObject({ size: 35, tiles: true });
    expect(readFileSync(join(out, "ledger", "checkpoint"), "utf8")).toBe(published());
    writeFileSync(
      join(data, "keys", "ledger.policy"),
      readFileSync(policyFile, "utf8").replace("group two-of-three 2 W1 W2 W3", "group two-of-three all W1 W2 W3"),
    );
    await expect(publishLedger(data, join(dir, "site-out-2"))).rejects.toThrow(
      /quorum two-of-three: 3-of-3 \(W1, W2, W3\) of .* is not met: cosigned by W1, W2/,
    );
    copyFileSync(policyFile, join(data, "keys", "ledger.policy"));
  });

  it("restarted witnesses remember what they cosigned; the log catches them up", async () => {
    await Promise.all([start(W2()), start(W3())]);
    expect(await post(W3().url, `old 0\n\n${readFileSync(join(data, "ledger", "checkpoint"), "utf8")}`)).toMatchObject({
      status: 409,
      body: "30\n",
    });
    const r = witnessRound();
    expect(r.code, r.err).toBe(0);
    expect(cosigners(r.out)).toEqual(["W1", "W2", "W3"]);
    expect(r.err).toMatch(/cosigned W3 .*from size 30\)/);
    expect(r.out.split("\n")[1]).toBe("39");
  });

  it("a rolled-back checkpoint is refused by every witness, and the round names it", async () => {
    const round = await askWitnesses({
      note: firstNote,
      policy: parsePolicy(readFileSync(policyFile, "utf8")),
      consistencyProof: async () => [],
    });
    expect(round.met).toBe(false);
    expect(round.outcomes.map((o) => o.detail)).toEqual(
      witnesses.map(
        () =>
          "holds a checkpoint of size 39, larger than 30: the log was rolled back, or another history was shown to it",
      ),
    );
  });

  it("the monitor names a rollback and tiles that disagree with the checkpoint", () => {
    const monitorState = join(dir, "monitor");
    expect(run([MONITOR, "--log", join(data, "ledger"), "--policy", policyFile, "--state", monitorState]).code).toBe(0);
    const copy = join(dir, "rolled-back");
    cpSync(join(data, "ledger"), copy, { recursive: true });
    writeFileSync(join(copy, "checkpoint"), firstNote);
    const rolled = run([MONITOR, "--log", copy, "--policy", policyFile, "--state", monitorState]);
    expect(rolled.code).toBe(1);
    expect(rolled.err).toMatch(/EVIDENCE rollback: rolled back: size 30 after 39 was seen/);
    // Fresh state: every leaf of the tiles must hash up to the root; one changed byte is caught.
    copyFileSync(join(data, "ledger", "checkpoint"), join(copy, "checkpoint"));
    const tile = join(copy, "tile", "0", "000.p", "39");
    const bytes = readFileSync(tile);
    bytes[5] = bytes[5]! ^ 1;
    writeFileSync(tile, bytes);
    const tampered = run([MONITOR, "--log", copy, "--policy", policyFile, "--state", join(dir, "monitor-fresh")]);
    expect(tampered.code).toBe(1);
    expect(tampered.err).toMatch(/EVIDENCE tiles/);
    // A policy the published checkpoint does not meet: the missing quorum is the evidence.
    const strict = join(dir, "all-three.policy");
    writeFileSync(strict, readFileSync(policyFile, "utf8").replace("group two-of-three 2", "group two-of-three all"));
    writeFileSync(join(copy, "checkpoint"), readFileSync(join(dir, "two-cosigners"), "utf8"));
    const short = run([MONITOR, "--log", copy, "--policy", strict, "--state", join(dir, "monitor-strict")]);
    expect(short.code).toBe(1);
    expect(short.err).toMatch(
      /EVIDENCE missing-quorum: quorum two-of-three: 3 of W1, W2, W3 is NOT met: cosigned by W1 \(.*\), W2 \(.*\)/,
    );
  });
});

let firstNote = "";

describe("a split view shown to two witnesses and to the monitor", () => {
  it("is cosigned by the two it fooled, refused by them for the other history, and caught by the monitor", async () => {
    const signer = { name: "example.test/split", secretKeyHex: generateKeyPair("ed25519").secretKey };
    const honest = Array.from({ length: 6 }, (_, i) => Buffer.from(`honest ${i}`));
    const forked = Array.from({ length: 6 }, (_, i) => Buffer.from(i < 3 ? `honest ${i}` : `forked ${i}`));
    const honestFiles = tlogFiles(honest, signer);
    const forkFiles = tlogFiles(forked, signer);
    const vkey = verifierKey(signer.name, publicKeyFromSecret("ed25519", signer.secretKeyHex));
    await addLog(witnesses, vkey);
    const honestNote = Buffer.from(honestFiles.get("checkpoint")!).toString();
    let forkNote = Buffer.from(forkFiles.get("checkpoint")!).toString();
    // The honest history reaches W3; the fork reaches W1 and W2, which cosign it (they saw nothing before).
    expect((await addCheckpoint(W3().url, 0, [], honestNote)).status).toBe(200);
    for (const w of [W1(), W2()]) {
      const a = await addCheckpoint(w.url, 0, [], forkNote);
      expect(a.status).toBe(200);
      forkNote += a.body;
    }
    // The fooled witnesses refuse the honest history at the same size: a fork, kept as evidence.
    expect(await addCheckpoint(W1().url, 6, [], honestNote)).toMatchObject({ status: 409, body: "6\n" });
    const policy = join(dir, "split.policy");
    writeFileSync(
      policy,
      [
        `log ${vkey}`,
        ...witnesses.map((w) => `witness ${w.id} ${w.vkey} ${w.url}`),
        "group g 2 W1 W2 W3",
        "quorum g",
        "",
      ].join("\n"),
    );
    // The victim's view meets the quorum on its own; the monitor shows it to every witness.
    forkFiles.set("checkpoint", Buffer.from(forkNote));
    writeTlog(join(dir, "fork-view"), forkFiles);
    const r = run([
      MONITOR,
      "--log",
      join(dir, "fork-view"),
      "--policy",
      policy,
      "--state",
      join(dir, "split-monitor"),
    ]);
    expect(r.code, r.out + r.err).toBe(1);
    expect(r.err).toMatch(/EVIDENCE split-view: split view: witness W3 holds another root at size 6/);
  });
});
