import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AREAS, MANIFEST_FILE, type Area } from "./contract.ts";
import { DataPackageError } from "./errors.ts";
import { checkManifest } from "./manifest.ts";

const committed = (area: Area) =>
  readFileSync(join(import.meta.dirname, "../../data/areas", area, MANIFEST_FILE), "utf8");

function codeOf(
  area: Area,
  edit: (m: { resources: Record<string, unknown>[]; keyedResources?: Record<string, unknown>[] }) => void,
): string {
  const m = JSON.parse(committed(area));
  edit(m);
  try {
    checkManifest(area, JSON.stringify(m));
  } catch (error) {
    expect(error).toBeInstanceOf(DataPackageError);
    return (error as DataPackageError).code;
  }
  return "accepted";
}

const at = (m: { resources: Record<string, unknown>[]; keyedResources?: Record<string, unknown>[] }, path: string) =>
  [...m.resources, ...(m.keyedResources ?? [])].find((r) => r.path === path)!;

describe("checkManifest", () => {
  it("accepts every committed manifest and pairs each resource with its contract file", () => {
    for (const area of AREAS) {
      const { resources } = checkManifest(area, committed(area));
      for (const [path, { resource, file }] of resources) {
        expect(file.path).toBe(path);
        expect(resource.access).toBe(file.access);
      }
    }
  });

  it("refuses a manifest that opens a keyed file, or changes any file's tier or type", () => {
    expect(codeOf("government", (m) => void (at(m, "compliance-report.json").access = "public"))).toBe(
      "access-mismatch",
    );
    expect(codeOf("government", (m) => void (at(m, "ledger/export.csv").access = "academic"))).toBe("access-mismatch");
    expect(codeOf("diplomacy", (m) => void (at(m, "standards.json").access = "government"))).toBe("access-mismatch");
    expect(codeOf("government", (m) => void (at(m, "policy-impact.json").access = "secret"))).toBe(
      "manifest-malformed",
    );
    expect(codeOf("economy", (m) => void (at(m, "supply.json").mediatype = "text/html"))).toBe("manifest-malformed");
    expect(codeOf("economy", (m) => void (at(m, "supply.json").mediatype = "text/csv"))).toBe("mediatype-mismatch");
  });

  it("keeps keyed files out of resources (where a standard reader reads every entry) and checks immutablePath", () => {
    // A keyed file listed among the public resources, or a public one among the keyed.
    expect(codeOf("government", (m) => void m.resources.push(m.keyedResources!.shift()!))).toBe("access-mismatch");
    expect(codeOf("government", (m) => void m.keyedResources!.push(m.resources.shift()!))).toBe("access-mismatch");
    expect(codeOf("diplomacy", (m) => void (at(m, "standards.json").immutablePath = "sha256/00.json"))).toBe(
      "path-invalid",
    );
    expect(codeOf("government", (m) => void (at(m, "policy-impact.json").immutablePath = "sha256/x.json"))).toBe(
      "path-invalid",
    );
    expect(codeOf("diplomacy", (m) => void (at(m, "standards.json").path = "sha256/standards.json"))).toBe(
      "path-reserved",
    );
    // The checked manifest lists both, public first.
    const { manifest } = checkManifest("government", committed("government"));
    expect(manifest.resources.map((r) => r.access === "public")).toEqual([
      true,
      true,
      true,
      false,
      false,
      false,
      false,
    ]);
    for (const r of manifest.resources.filter((x) => x.access === "public"))
      expect(r.immutablePath).toBe(`sha256/${r.hash.slice(7)}${r.path.slice(r.path.lastIndexOf("."))}`);
  });

  it("refuses paths that break the rule, are reserved, repeated or unknown to the contract", () => {
    expect(codeOf("diplomacy", (m) => void (at(m, "standards.json").path = "a b.json"))).toBe("path-invalid");
    expect(codeOf("diplomacy", (m) => void (at(m, "standards.json").path = "../standards.json"))).toBe("path-invalid");
    expect(codeOf("diplomacy", (m) => void (at(m, "standards.json").path = "Standards.json"))).toBe("path-invalid");
    expect(codeOf("diplomacy", (m) => void (at(m, "standards.json").path = "datapackage.json"))).toBe("path-reserved");
    expect(codeOf("economy", (m) => void (at(m, "roi.json").path = "supply"))).toBe("path-reserved");
    expect(codeOf("diplomacy", (m) => void (at(m, "standards.json").path = "protocols.json"))).toBe("path-duplicate");
    expect(codeOf("diplomacy", (m) => void (at(m, "standards.json").path = "extra.json"))).toBe("file-unknown");
    expect(codeOf("diplomacy", (m) => void (at(m, "standards.json").path = "supply.json"))).toBe("file-unknown");
  });

  it("refuses what is not a manifest", () => {
    expect(() => checkManifest("economy", "{")).toThrow(expect.objectContaining({ code: "manifest-malformed" }));
    expect(() => checkManifest("economy", '{"name":"x","resources":[]}')).toThrow(
      expect.objectContaining({ code: "manifest-malformed" }),
    );
    expect(() => checkManifest("economy", new Uint8Array([0xff, 0xfe]))).toThrow(
      expect.objectContaining({ code: "manifest-malformed" }),
    );
  });
});
