/**
 * /government/policy-impact.json (government key): the curated projections of
 * `data/sources/government/policy-impact.json`, validated and dated. The projections are estimates
 * written by people, not figures derived from the ledger; the source says so in its strings.
 */
import { z } from "zod";
import { PolicyImpact } from "../../../core/schemas/index.ts";
import { documentInstant } from "../../lib/dating.ts";
import { publishJson } from "../../lib/json.ts";
import type { DocumentStep } from "../../step.ts";
import { government } from "../../../core/areas/government.ts";
import { declaredOutput } from "../../../core/areas/declaration.ts";

export const POLICY_SOURCE = "government/policy-impact.json";

export const PolicyImpactSource = z.strictObject({
  projections: PolicyImpact.shape.projections.min(1),
});
export type PolicyImpactSource = z.infer<typeof PolicyImpactSource>;

export const policyImpactStep: DocumentStep = {
  kind: "document",
  ...declaredOutput(government, "policy-impact.json"),
  name: "policy-impact",
  title: "Policy impact projections",
  description:
    "Curated projections of policies built on the platform: economic and social impact estimates, risks with severity and mitigation, and timelines.",
  schema: "government/policy-impact",
  inputs: ["ledger", "pulse", `sources/${POLICY_SOURCE}`],
  version: 1,
  generate({ facts, pulse, sources }) {
    const source = sources.json(POLICY_SOURCE, PolicyImpactSource);
    const { timestamp, cycle } = documentInstant(facts, pulse);
    const doc: PolicyImpact = { cycle, timestamp, projections: source.projections };
    return publishJson("government/policy-impact.json", PolicyImpact, doc);
  },
};
