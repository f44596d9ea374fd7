import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, test } from "vitest";
import { systemHealth } from "../../core/health/system-health.ts";
import { systemHealthOf } from "./system-health.ts";
import { tempDir, testServer } from "../../test/support/api/helpers.ts";

const REPO_DATA = fileURLToPath(new URL("../../data", import.meta.url));
const temp = tempDir("api-system-health-");
afterAll(() => temp.cleanup());

/** A copy of the repository's government and economy areas. */
function copyAreas(into: string): string {
  for (const area of ["government", "economy"])
    cpSync(join(REPO_DATA, "areas", area), join(into, "areas", area), { recursive: true });
  return into;
}
const json = (dir: string, path: string) => JSON.parse(readFileSync(join(dir, "areas", path), "utf8"));

describe("system health over the published files", () => {
  test("is core/health over sentinel-status, mii and the compliance report, and agrees with the file's system_health", () => {
    const dir = copyAreas(join(temp.dir, "a"));
    const report = systemHealthOf(dir)!;
    const status = json(dir, "government/sentinel-status.json");
    const mii = json(dir, "economy/mii.json");
    const compliance = json(dir, "government/compliance-report.json");
    expect(report).toEqual(
      systemHealth({
        asOf: status.timestamp,
        sentinels: status.sentinels,
        minting: { active: mii.minting_active, mii: mii.mii, threshold: mii.threshold },
        compliance: { status: compliance.compliance_status, nextAudit: compliance.next_audit },
      }),
    );
    expect(status.system_health).toBe(report.status === "operational" ? "healthy" : report.status);
  });

  test("uses no file that does not match its manifest, and states nothing without sentinel-status", () => {
    const dir = copyAreas(join(temp.dir, "b"));
    const file = join(dir, "areas", "economy", "mii.json");
    writeFileSync(file, readFileSync(file, "utf8").replace('"minting_active": true', '"minting_active": false'));
    expect(systemHealthOf(dir)!.minting).toBeNull();
    const status = join(dir, "areas", "government", "sentinel-status.json");
    writeFileSync(status, readFileSync(status, "utf8") + " ");
    expect(systemHealthOf(dir)).toBeNull();
    expect(systemHealthOf(join(temp.dir, "none"))).toBeNull();
  });

  test("GET /health carries it as `system`", async () => {
    const server = await testServer(null);
    try {
      copyAreas(server.dataDir);
      const body = (await (await fetch(`${server.url}/health`)).json()) as {
        system: { status: string; as_of: string; sentinels: unknown };
      };
      const report = systemHealthOf(server.dataDir)!;
      expect(body.system).toMatchObject({ status: report.status, as_of: report.asOf, sentinels: report.sentinels });
    } finally {
      await server.stop();
    }
  });
});
