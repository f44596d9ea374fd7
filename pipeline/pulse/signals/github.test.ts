import { describe, expect, it } from "vitest";
import { ciSuccess, greenBeforeMerge, securityAlerts } from "./github.ts";

// Shapes as the GitHub REST API returns them (only the fields the signals read).
const run = (conclusion: string | null, status = "completed") => ({
  status,
  conclusion,
  created_at: "2026-01-10T00:00:00Z",
});
const check = (
  conclusion: string | null,
  completed_at: string | null = "2026-01-10T10:00:00Z",
  status = "completed",
) => ({ name: "test", status, conclusion, completed_at });

describe("GitHub signal arithmetic", () => {
  it("gi.ci_success: successes among runs that judged, cancelled and skipped left out", () => {
    expect(
      ciSuccess(
        [run("success"), run("failure"), run("success"), run("cancelled"), run("skipped"), run("timed_out")],
        "main",
      ),
    ).toEqual({
      value: 2 / 4,
      reason: "2 of 4 completed workflow runs on main succeeded",
    });
    expect(ciSuccess([run("cancelled")], "main").value).toBeNull();
    expect(ciSuccess([], "main").value).toBeNull();
  });

  it("mii.ci_green_before_merge: every check and status green, and finished before the merge", () => {
    const merged = "2026-01-10T12:00:00Z";
    expect(greenBeforeMerge(merged, [check("success"), check("skipped"), check("neutral")], [])).toBe(true);
    expect(
      greenBeforeMerge(
        merged,
        [check("success")],
        [{ context: "ci", state: "success", updated_at: "2026-01-10T11:00:00Z" }],
      ),
    ).toBe(true);
    expect(greenBeforeMerge(merged, [check("success"), check("failure")], [])).toBe(false);
    expect(greenBeforeMerge(merged, [check("success", "2026-01-10T13:00:00Z")], [])).toBe(false); // green only after the merge
    expect(greenBeforeMerge(merged, [check(null, null, "in_progress")], [])).toBe(false);
    expect(
      greenBeforeMerge(merged, [], [{ context: "ci", state: "pending", updated_at: "2026-01-10T11:00:00Z" }]),
    ).toBe(false);
    expect(greenBeforeMerge(merged, [], [])).toBe(false); // no CI at all is not green
  });

  it("gi.security_alerts: linear to 0 at the threshold, sources that did not answer left out", () => {
    expect(securityAlerts({ codeScanning: 0, dependabot: 0 }, 10, []).value).toBe(1);
    expect(securityAlerts({ codeScanning: 2, dependabot: 3 }, 10, []).value).toBe(0.5);
    expect(securityAlerts({ codeScanning: 12, dependabot: 3 }, 10, []).value).toBe(0);
    const partial = securityAlerts({ codeScanning: null, dependabot: 1 }, 10, [
      "code scanning alerts: HTTP 404, not measured",
    ]);
    expect(partial).toEqual({
      value: 0.9,
      reason: "1 open security alert(s) (Dependabot), 0 at 10; code scanning alerts: HTTP 404, not measured",
    });
    expect(
      securityAlerts({ codeScanning: null, dependabot: null }, 10, ["a: HTTP 403", "b: HTTP 404"]).value,
    ).toBeNull();
  });
});
