/**
 * Offline verification (`npm run verify`) of areas written by the runner: signatures, profiles,
 * bytes and hashes, JSON Schemas, Table Schemas — and the streaming validators it shares with the
 * runner.
 */
import { spawnSync } from "node:child_process";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { LedgerEntry } from "../core/ledger/entry.ts";
import { DATASET_KEY, loadSigningKey, type SigningKey } from "../store/keys.ts";
import { openLedgerStore } from "../store/open-ledger.ts";
import { sampleEvent, steppingClock, tempDir } from "../test/support/store/helpers.ts";
import { signManifest as signAnyManifest } from "../core/datapackage/signature.ts";
import { runPipeline } from "./runner.ts";
import { parseTrustedKeys, signManifest, verifyManifestSignature } from "./sign.ts";
import type { Area, RowsStep, Step } from "./step.ts";
import { countStep } from "../test/support/pipeline/helpers.ts";
import { verifyAreas } from "./verify.ts";
import { immutablePathOf, listedResources } from "../core/datapackage/references.ts";

const REPO = new URL("..", import.meta.url).pathname;

const auditRow = (e: LedgerEntry) => ({
  timestamp: e.ts,
  event_type: e.type,
  agent: String((e.payload as { sentinel?: string }).sentinel ?? "ledger"),
  data: JSON.stringify(e.payload),
  attestation_hash: e.hash,
});

const STEPS: Step[] = [
  countStep,
  {
    kind: "rows",
    id: "government/ledger/export.csv",
    area: "government",
    path: "ledger/export.csv",
    name: "trail-csv",
    title: "Audit trail",
    description: "Every entry.",
    mediatype: "text/csv",
    access: "government",
    schema: "government/audit-trail-row",
    inputs: ["ledger"],
    version: 1,
    start: () => ({
      head: "timestamp,event_type,agent,data,attestation_hash\r\n",
      sink: {
        push: (e) => {
          const r = auditRow(e);
          return `${r.timestamp},${r.event_type},${r.agent},"${r.data.replaceAll('"', '""')}",${r.attestation_hash}\r\n`;
        },
        end: () => "",
      },
    }),
  } satisfies RowsStep,
  {
    kind: "rows",
    id: "government/ledger/export.json",
    area: "government",
    path: "ledger/export.json",
    name: "trail-json",
    title: "Audit trail (JSON)",
    description: "Every entry.",
    mediatype: "application/json",
    access: "government",
    schema: "government/audit-trail-row",
    inputs: ["ledger"],
    version: 1,
    start: () => {
      let n = 0;
      return {
        head: "[",
        sink: {
          push: (e) => `${n++ === 0 ? "\n" : ",\n"}${JSON.stringify(auditRow(e))}`,
          end: () => (n === 0 ? "]\n" : "\n]\n"),
        },
      };
    },
  } satisfies RowsStep,
];

let root: string;
let cleanup: () => void;
let pristine: string;
let areas: string;
let key: SigningKey;

beforeAll(async () => {
  ({ dir: root, cleanup } = tempDir("verify-test-"));
  pristine = join(root, "pristine");
  cpSync(join(REPO, "data", "schemas"), join(pristine, "schemas"), { recursive: true });
  const ledger = await openLedgerStore({
    path: join(root, "ledger.sqlite"),
    origin: "test.example/ledger",
    durability: "normal",
    now: steppingClock(),
  });
  await ledger.append(Array.from({ length: 30 }, (_, i) => sampleEvent(i)));
  key = loadSigningKey(DATASET_KEY, join(root, "state"), {});
  const report = await runPipeline({ dataDir: pristine, ledger, steps: STEPS, log: () => {}, signingKey: () => key });
  await ledger.close();
  expect(report.ok).toBe(true);
});
afterAll(async () => cleanup());

/** A fresh copy of the written data for each test to damage. */
let data: string;
let n = 0;
beforeEach(async () => {
  data = join(root, `copy-${n++}`);
  cpSync(pristine, data, { recursive: true });
  areas = join(data, "areas");
});

function cli(...args: string[]) {
  return spawnSync(process.execPath, ["--import", "tsx", join(REPO, "pipeline", "verify-cli.ts"), ...args], {
    cwd: REPO,
    encoding: "utf8",
  });
}

/** Rewrites a resource and its manifest entry (bytes, hash) and re-signs, as a careless publisher would. */
function republish(area: Area, path: string, text: string): void {
  writeFileSync(join(areas, area, path), text);
  const manifestFile = join(areas, area, "datapackage.json");
  type Listed = { path: string; bytes: number; hash: string; immutablePath?: string };
  const manifest = JSON.parse(readFileSync(manifestFile, "utf8")) as { resources: Listed[]; keyedResources?: Listed[] };
  const r = listedResources<Listed>(manifest).find((x) => x.path === path)!;
  r.bytes = Buffer.byteLength(text);
  r.hash = `sha256:${createHash("sha256").update(text).digest("hex")}`;
  if (r.immutablePath !== undefined) r.immutablePath = immutablePathOf(r.path, r.hash);
  const manifestText = `${JSON.stringify(manifest, null, 2)}\n`;
  writeFileSync(manifestFile, manifestText);
  writeFileSync(`${manifestFile}.sig`, signManifest(area, manifestText, key));
}

describe("npm run verify", () => {
  it("prints ok for every area the runner wrote", async () => {
    const result = cli(areas);
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe("economy: ok (1 resources)\ngovernment: ok (2 resources)\n");
    expect(result.status).toBe(0);
  });

  it("the signature verifies with the published key and names the area and the exact bytes", async () => {
    const manifest = readFileSync(join(areas, "economy", "datapackage.json"));
    const sig = readFileSync(join(areas, "economy", "datapackage.json.sig"), "utf8");
    const trusted = parseTrustedKeys(readFileSync(join(data, "keys", "datasets.vkey"), "utf8"));
    expect(verifyManifestSignature("economy", manifest, sig, trusted)).toEqual([DATASET_KEY.name]);
    expect(() => verifyManifestSignature("government", manifest, sig, trusted)).toThrow(
      /signature is for "economy datapackage"/,
    );
  });

  it("a tampered manifest fails, naming datapackage.json", async () => {
    const file = join(areas, "economy", "datapackage.json");
    writeFileSync(file, readFileSync(file, "utf8").replace('"access": "public"', '"access": "economist"'));
    const result = cli(areas);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`economy: FAILED ${file}: signature check failed`);
    expect(result.stdout).toBe("government: ok (2 resources)\n");
  });

  it("a signed manifest that disagrees with the contract fails: a path the site refuses, or a keyed file made public", async () => {
    const file = join(areas, "government", "datapackage.json");
    const pristineText = readFileSync(file, "utf8");
    // Signed by a trusted key without the contract check, as a careless publisher could.
    type Listed = { path: string; access: string };
    const resign = (edit: (m: { resources: Listed[]; keyedResources: Listed[] }) => void) => {
      const m = JSON.parse(pristineText) as { resources: Listed[]; keyedResources: Listed[] };
      edit(m);
      const text = `${JSON.stringify(m, null, 2)}\n`;
      writeFileSync(file, text);
      writeFileSync(`${file}.sig`, signAnyManifest("government", text, key));
    };
    resign((m) => void (m.keyedResources.find((r) => r.path === "ledger/export.json")!.access = "public"));
    expect(verifyAreas(areas)[1]).toMatchObject({
      ok: false,
      file,
      problem: expect.stringMatching(/access is "public", the contract says "government"/),
    });
    resign((m) => void (m.keyedResources.find((r) => r.path === "ledger/export.json")!.path = "a b.json"));
    expect(verifyAreas(areas)[1]).toMatchObject({
      ok: false,
      file,
      problem: expect.stringMatching(/path "a b\.json" must be a relative path of lowercase plain segments/),
    });
    expect(() => signManifest("government", readFileSync(file), key)).toThrow(
      expect.objectContaining({ code: "path-invalid" }),
    );
  });

  it("a signature by a key that is not trusted fails, naming the .sig file", async () => {
    const other = loadSigningKey(DATASET_KEY, join(root, `other-${n}`), {});
    const file = join(areas, "economy", "datapackage.json");
    writeFileSync(`${file}.sig`, signManifest("economy", readFileSync(file), other));
    const result = cli(areas);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`economy: FAILED ${file}.sig: note has no verifiable signatures`);
  });

  it("a data file whose bytes changed fails, naming it", async () => {
    const file = join(areas, "government", "ledger", "export.csv");
    const bytes = readFileSync(file);
    bytes[40] = bytes[40] === 0x30 ? 0x31 : 0x30;
    writeFileSync(file, bytes);
    const [, government] = verifyAreas(areas);
    expect(government).toMatchObject({
      ok: false,
      file,
      problem: expect.stringMatching(/^sha256 is sha256:[0-9a-f]{64}, the manifest records/),
    });
  });

  it("a JSON document that fails its schema fails, naming it, even when its manifest entry and signature are current", async () => {
    const file = join(areas, "economy", "supply.json");
    republish("economy", "supply.json", `{"schemaVersion":1,"label":"entries","message":"30","color":"purple"}\n`);
    const result = cli(areas, "--areas", "economy");
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      `economy: FAILED ${file}: does not match its JSON Schema: /color must be equal to one of the allowed values`,
    );
  });

  it("a CSV row that fails its Table Schema, and a JSON array item that fails its row schema, are named", async () => {
    const csv = readFileSync(join(areas, "government", "ledger", "export.csv"), "utf8").split("\r\n");
    csv[3] = csv[3]!.replace(/,sha256:[0-9a-f]{64}$/, ",sha256:nothex");
    republish("government", "ledger/export.csv", csv.join("\r\n"));
    expect(verifyAreas(areas)[1]).toMatchObject({
      ok: false,
      file: join(areas, "government", "ledger", "export.csv"),
      problem: expect.stringMatching(/^row 3 does not match its row JSON Schema: \/attestation_hash/),
    });

    republish(
      "government",
      "ledger/export.csv",
      readFileSync(join(pristine, "areas", "government", "ledger", "export.csv"), "utf8"),
    );
    const json = readFileSync(join(areas, "government", "ledger", "export.json"), "utf8").replace(
      '"event_type":"mic_mint"',
      '"event_type":"Mic Mint"',
    );
    republish("government", "ledger/export.json", json);
    expect(verifyAreas(areas)[1]).toMatchObject({
      ok: false,
      file: join(areas, "government", "ledger", "export.json"),
      problem: expect.stringMatching(/^item 2 does not match its JSON Schema: \/event_type/),
    });
  });

  it("a file listed in the manifest but missing is named", async () => {
    const file = join(areas, "government", "ledger", "export.json");
    writeFileSync(file, "");
    expect(verifyAreas(areas)[1]).toMatchObject({ ok: false, file });
    expect(cli(join(data, "nowhere")).status).toBe(2);
  });
});
