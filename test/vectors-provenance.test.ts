/**
 * The conformance vectors this repository carries (vendor/vectors/) are what PROVENANCE.tsv says:
 * every file listed with its SHA-256, every file present listed, each licence beside its files.
 * The digests were taken from the reference copy when the files were vendored, so a file that
 * drifts from it fails here; the test reads nothing outside this repository.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { filesUnder } from "../store/files.ts";

const VENDORED = fileURLToPath(new URL("../vendor/vectors/", import.meta.url));
const NOT_VECTORS = new Set(["PROVENANCE.tsv", "NOTICE", "LICENSE-Apache-2.0", "frictionless/UNLICENSE"]);

function sha256(path: string): string {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

const rows = readFileSync(join(VENDORED, "PROVENANCE.tsv"), "utf8")
  .trimEnd()
  .split("\n")
  .slice(1)
  .map((line) => {
    const [path, origin, licence, digest] = line.split("\t");
    return { path: path!, origin: origin!, licence: licence!, digest: digest! };
  });

describe("vendored conformance vectors", () => {
  it("lists every vendored file exactly once, and nothing that is not there", () => {
    const present = filesUnder(VENDORED).filter((f) => !NOT_VECTORS.has(f));
    expect(rows.map((r) => r.path)).toEqual(present);
  });

  it("holds every file with the SHA-256 its provenance row records", () => {
    const wrong = rows.filter((r) => sha256(join(VENDORED, r.path)) !== r.digest).map((r) => r.path);
    expect(wrong).toEqual([]);
  });

  it("carries each origin's licence beside its files", () => {
    expect(readFileSync(join(VENDORED, "LICENSE-Apache-2.0"), "utf8")).toMatch(/Apache License\s+Version 2\.0/);
    expect(readFileSync(join(VENDORED, "frictionless/UNLICENSE"), "utf8")).toMatch(
      /^This is free and unencumbered software released into the public domain\./,
    );
    const licences = new Set(
      rows.filter((r) => r.path !== "README.md").map((r) => `${r.path.split("/")[0]} ${r.licence}`),
    );
    expect([...licences].sort()).toEqual([
      "frictionless Unlicense",
      "jcs Apache-2.0",
      "merkle Apache-2.0",
      "wycheproof Apache-2.0",
    ]);
    const notice = readFileSync(join(VENDORED, "NOTICE"), "utf8");
    for (const origin of [
      "transparency-dev/merkle",
      "C2SP/wycheproof",
      "cyberphone/json-canonicalization",
      "frictionlessdata/datapackage",
    ])
      expect(notice).toContain(origin);
  });
});
