/**
 * /government/authority-activity.json: authority verification as the ledger records it, folded by
 * core/avm/activity.ts — attempts, grants and renewals, denials by stage and by code, bodies that
 * did not parse, revocations by reason, identities by role, companions, and the same per month. The
 * transparency report and the /authority page show these figures.
 */
import { AuthorityActivity } from "../../../core/schemas/avm.ts";
import { documentInstant } from "../../lib/dating.ts";
import { publishJson } from "../../lib/json.ts";
import type { DocumentStep } from "../../step.ts";
import { government } from "../../../core/areas/government.ts";
import { declaredOutput } from "../../../core/areas/declaration.ts";

export const authorityActivityStep: DocumentStep = {
  kind: "document",
  ...declaredOutput(government, "authority-activity.json"),
  name: "authority-activity",
  title: "Authority activity",
  description:
    "Authority verification as the ledger records it: every verify attempt (grants, renewals, denials by stage — identity, stake, attestation, scope, temporal — and by AVM error code, and request bodies that did not parse), every revocation by reason, the registered identities by role and companions, and the same attempts, grants, denials and revocations per UTC month.",
  schema: "government/authority-activity",
  inputs: ["ledger", "pulse"],
  version: 1,
  generate({ facts, pulse }) {
    const { timestamp, cycle } = documentInstant(facts, pulse);
    return publishJson("government/authority-activity.json", AuthorityActivity, {
      cycle,
      timestamp,
      ...facts.authorityActivity,
    });
  },
};
