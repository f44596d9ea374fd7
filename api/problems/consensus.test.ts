import { describe, expect, it } from "vitest";
import { REFUSAL_CODES, REFUSAL_KIND } from "../../core/consensus/refusal.ts";
import {
  CONSENSUS_PROBLEM_EXTENSIONS,
  CONSENSUS_PROBLEM_TYPES,
  consensusProblemSlug,
  REFUSAL_STATUS,
} from "./consensus.ts";
import { PROBLEM_TYPES, problemType } from "./problem.ts";

describe("consensus problem types", () => {
  it("one per refusal code, its status the code's kind's, listed with the API's problems under a stable URI", () => {
    expect(Object.keys(CONSENSUS_PROBLEM_TYPES).sort()).toEqual(REFUSAL_CODES.map(consensusProblemSlug).sort());
    for (const code of REFUSAL_CODES) {
      const slug = consensusProblemSlug(code);
      expect(CONSENSUS_PROBLEM_TYPES[slug].status, code).toBe(REFUSAL_STATUS[REFUSAL_KIND[code]]);
      expect(PROBLEM_TYPES[slug]).toEqual(CONSENSUS_PROBLEM_TYPES[slug]);
      expect(problemType(slug)).toBe(`https://integrity-platform.example/problems/consensus-${code}`);
      expect(Object.keys(CONSENSUS_PROBLEM_EXTENSIONS[slug])).toContain("code");
    }
  });

  it("maps the four kinds to 404, 409, 422 and 403", () => {
    expect(REFUSAL_STATUS).toEqual({ "not-found": 404, conflict: 409, unprocessable: 422, forbidden: 403 });
  });
});
