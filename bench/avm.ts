/**
 * `npm run bench -- avm`: the AVM's scope decision (`decidePolicy`, core/avm/policy.ts) against the
 * same policy in Cedar (cedar-wasm, core/avm/cedar-oracle.ts) on the same random requests; target:
 * faster than Cedar. Cedar is called the cheapest way it offers: the policy set parsed once
 * (`statefulIsAuthorized`), the calls built before timing. Both run on this thread, alternating.
 *
 * Verify throughput over HTTP comes with the AVM's routes.
 */
import fc from "fast-check";
import { cedarDecide, policyCaseArbitrary, prepareCedar, toCedarCall, toPolicyInput } from "../core/avm/cedar-oracle.ts";
import { decidePolicy } from "../core/avm/policy.ts";
import { compare, printComparisons, type Comparison } from "./harness.ts";

function scopeDecision(): Comparison {
  const n = 1_000;
  prepareCedar();
  const cases = fc.sample(policyCaseArbitrary, { numRuns: n, seed: 151 });
  const inputs = cases.map(toPolicyInput);
  const calls = cases.map(toCedarCall);
  // Same answers first: a benchmark of two deciders that disagree would measure nothing.
  let allowed = 0;
  for (let i = 0; i < n; i++) {
    const ours = decidePolicy(inputs[i]!.subject, inputs[i]!.request).allowed;
    if (ours !== cedarDecide(calls[i]!).allowed) throw new Error(`decidePolicy and Cedar disagree on case ${i}`);
    if (ours) allowed++;
  }
  let sink = 0;
  const t = compare(
    3,
    () => {
      for (const { subject, request } of inputs) if (decidePolicy(subject, request).allowed) sink++;
    },
    () => {
      for (const call of calls) if (cedarDecide(call).allowed) sink++;
    },
  );
  if (sink < 0) console.log(sink);
  return {
    name: `scope decision, ${n.toLocaleString("en")} random requests (${((100 * allowed) / n).toFixed(0)} % allowed)`,
    subject: "decidePolicy (the policy table)",
    floor: "Cedar statefulIsAuthorized, the same policy, preparsed",
    subjectSeconds: t.subject,
    floorSeconds: t.floor,
    items: n,
    kind: "speed",
    target: 1,
  };
}

export async function run(): Promise<void> {
  printComparisons("avm: authority verification", [scopeDecision()]);
}
