import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SignedManifests } from "./signed-manifests.ts";
import { tempDir } from "../../test/support/api/helpers.ts";

const REPO_DATA = new URL("../../data", import.meta.url).pathname;

describe("SignedManifests", () => {
  const temp = tempDir("signed-manifests-");
  afterAll(() => temp.cleanup());
  for (const part of ["areas", "keys"]) cpSync(join(REPO_DATA, part), join(temp.dir, part), { recursive: true });

  it("verifies a manifest once per version, not per request", () => {
    const manifests = new SignedManifests(temp.dir);
    for (let i = 0; i < 100; i++) expect(manifests.state("economy").status).toBe("verified");
    // The first look may see a racy version (written moments ago) and compare bytes; it never re-verifies equal bytes.
    expect(manifests.verifications).toBe(1);
    expect(manifests.state("academics").status).toBe("verified");
    expect(manifests.verifications).toBe(2);
  });

  it("re-verifies when the manifest, its signature or the trusted keys change, and refuses what fails", () => {
    const manifests = new SignedManifests(temp.dir);
    const file = join(temp.dir, "areas", "diplomacy", "datapackage.json");
    const genuine = readFileSync(file, "utf8");
    expect(manifests.state("diplomacy").status).toBe("verified");
    // Same size, same instant: caught by the byte comparison of a racy version.
    writeFileSync(file, genuine.replace('"public"', '"PUBLIC"'));
    expect(manifests.state("diplomacy")).toMatchObject({ status: "unverified", code: "signature-other-manifest" });
    writeFileSync(file, genuine);
    expect(manifests.state("diplomacy").status).toBe("verified");
    const keys = join(temp.dir, "keys", "datasets.vkey");
    const vkey = readFileSync(keys, "utf8");
    writeFileSync(keys, "# no key\n");
    expect(manifests.state("diplomacy")).toMatchObject({ status: "unverified", code: "keys-empty" });
    writeFileSync(keys, vkey);
    expect(manifests.state("diplomacy").status).toBe("verified");
    expect(manifests.verifications).toBe(5);
  });
});
