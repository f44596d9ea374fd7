import { describe, expect, it } from "vitest";
import { signCheckpoint, verifierKey } from "../checkpoint.ts";
import { leafHashOfText, rootHash } from "../merkle.ts";
import { publicKeyFromSecret } from "../signature.ts";
import { historyLine, historyLines, sealPulse, type PulseRecord } from "./history.ts";
import { checkPublished, PULSE_ORIGIN } from "./published.ts";

const signer = { name: "integrity-platform.example/datasets", secretKeyHex: "3c".repeat(32) };
const vkeyText = `${verifierKey(signer.name, publicKeyFromSecret("ed25519", signer.secretKeyHex))}\n`;

function records(n: number, scores: number[] = []): PulseRecord[] {
  const out: PulseRecord[] = [];
  for (let i = 0; i < n; i++) {
    out.push(
      sealPulse({
        id: `00000000-0000-8000-8000-${String(i).padStart(12, "0")}`,
        cycle: "C-1",
        branch: "main",
        giScore: scores[i] ?? 0.99,
        miiScore: scores[i] ?? 0.99,
        stats: { totalFiles: 1, totalLines: 1, appsCount: 1, packagesCount: 1, workflowsCount: 1 },
        generatedAt: new Date(Date.UTC(2026, 0, 1 + i)).toISOString(),
        prev: out[i - 1]?.hash ?? null,
      }),
    );
  }
  return out;
}
const text = (rs: PulseRecord[]) => rs.map((r) => `${historyLine(r)}\n`).join("");
const checkpointOf = (t: string, size?: number) => {
  const lines = historyLines(t).slice(0, size);
  return signCheckpoint(
    { origin: PULSE_ORIGIN, size: lines.length, rootHash: rootHash(lines.map(leafHashOfText)) },
    signer,
  );
};

describe("the published pulse history rule", () => {
  it("serves exactly the lines the signed checkpoint covers", () => {
    const two = text(records(2));
    const check = checkPublished({ historyText: two, checkpointText: checkpointOf(two), vkeyText });
    expect(check.problems).toEqual([]);
    expect(check.signed?.records).toHaveLength(2);
  });

  it("never serves a correctly chained line appended without re-signing, and names it", () => {
    const rs = records(2, [0.99, 0.42]);
    const one = text(rs.slice(0, 1));
    const check = checkPublished({ historyText: text(rs), checkpointText: checkpointOf(one), vkeyText });
    expect(check.problems).toEqual(["history.jsonl line 2: not covered by the checkpoint, which signs 1 line(s) of 2"]);
    expect(check.issues[0]).toMatchObject({ code: "lines-unsigned", line: 2 });
    expect(check.signed?.records.map((r) => r.giScore)).toEqual([0.99]);
    // A broken line beyond the checkpoint is reported, and still not served.
    const broken = checkPublished({ historyText: `${one}{not json}\n`, checkpointText: checkpointOf(one), vkeyText });
    expect(broken.signed?.size).toBe(1);
    expect(broken.problems[0]).toMatch(/line 2: not valid JSON/);
  });

  it("vouches for nothing when the history is shorter than its checkpoint, or empty", () => {
    const two = text(records(2));
    for (const historyText of [text(records(1)), ""]) {
      const check = checkPublished({ historyText, checkpointText: checkpointOf(two), vkeyText });
      expect(check.signed).toBeNull();
      expect(check.issues.map((i) => i.code)).toEqual(["lines-missing"]);
    }
  });

  it("vouches for nothing without a valid, trusted checkpoint over the right root and origin", () => {
    const two = text(records(2));
    const cases: [string | null, string | null, string][] = [
      [null, vkeyText, "checkpoint-missing"],
      [checkpointOf(two), null, "no-trusted-key"],
      [checkpointOf(two), "not a key\n", "keys-malformed"],
      [checkpointOf(two).replace(PULSE_ORIGIN, "x"), vkeyText, "checkpoint-invalid"],
      [
        signCheckpoint({ origin: "example.org/other", size: 2, rootHash: new Uint8Array(32) }, signer),
        vkeyText,
        "checkpoint-origin",
      ],
      [
        signCheckpoint({ origin: PULSE_ORIGIN, size: 1, rootHash: new Uint8Array(32) }, signer),
        vkeyText,
        "root-mismatch",
      ],
    ];
    for (const [checkpointText, keys, code] of cases) {
      const check = checkPublished({ historyText: two, checkpointText, vkeyText: keys });
      expect(check.signed, code).toBeNull();
      expect(
        check.issues.map((i) => i.code),
        code,
      ).toContain(code);
    }
    // A bad line the checkpoint covers.
    const tampered = two.replace('"branch":"main"', '"branch":"mair"');
    expect(
      checkPublished({ historyText: tampered, checkpointText: checkpointOf(tampered), vkeyText }).signed,
    ).toBeNull();
  });

  it("an empty history without a checkpoint is a verified history of nothing", () => {
    expect(checkPublished({ historyText: "", checkpointText: null, vkeyText: null })).toMatchObject({
      problems: [],
      signed: { records: [], size: 0 },
    });
  });
});
