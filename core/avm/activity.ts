/**
 * Authority activity as the ledger records it: a projection (core/ledger/projection.ts) counting
 * every `avm.attempt` (granted, or denied at a stage with a code; a body that did not parse reaches
 * no stage and counts as malformed), every `avm.grant` (a renewal when an earlier grant of the same
 * identity is in force at its instant, by the AVM registry folded alongside), every `avm.revoke` by
 * reason, identities by role and companions, and the same per UTC month. The government area's
 * authority-activity.json, the transparency report and the /authority page publish it.
 */
import type { LedgerEntry } from "../ledger/entry.ts";
import type { AvmEventPayload as EventPayload } from "./events.ts";
import type { Projection } from "../ledger/projection.ts";
import {
  AVM_ERROR_CODES,
  AVM_STAGES,
  REVOKE_REASONS,
  ROLES,
  type AuthorityActivity,
  type AuthorityMonth,
} from "../schemas/avm.ts";
import { avmRegistry, currentGrant, type AvmRegistry } from "./registry.ts";

export type ActivityFigures = Omit<AuthorityActivity, "cycle" | "timestamp">;

export interface ActivityState {
  registry: AvmRegistry;
  figures: ActivityFigures;
  /** By month, in ledger order (timestamps never go back). */
  months: Map<string, AuthorityMonth>;
}

const zeros = <K extends string>(keys: readonly K[]): Record<K, number> =>
  Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;

function month(state: ActivityState, ts: string): AuthorityMonth {
  const key = ts.slice(0, 7);
  let m = state.months.get(key);
  if (!m) state.months.set(key, (m = { month: key, attempts: 0, grants: 0, denials: 0, revocations: 0 }));
  return m;
}

export const authorityActivity: Projection<ActivityState> = {
  initial: () => ({
    registry: avmRegistry.initial(),
    figures: {
      attempts: 0,
      grants: 0,
      renewals: 0,
      denials: 0,
      denials_by_stage: zeros(AVM_STAGES),
      denials_by_code: zeros(AVM_ERROR_CODES),
      malformed: 0,
      revocations: 0,
      revocations_by_reason: zeros(REVOKE_REASONS),
      identities_by_role: zeros(ROLES),
      companions: 0,
      months: [],
    },
    months: new Map(),
  }),
  apply(state, entry: LedgerEntry) {
    const f = state.figures;
    switch (entry.type) {
      case "avm.attempt": {
        const p = entry.payload as EventPayload<"avm.attempt">;
        f.attempts++;
        month(state, entry.ts).attempts++;
        if (!p.verified) {
          f.denials++;
          month(state, entry.ts).denials++;
          if (p.failed_at_stage) f.denials_by_stage[p.failed_at_stage]++;
          else f.malformed++;
          if (p.code) f.denials_by_code[p.code]++;
        }
        break;
      }
      case "avm.grant": {
        const p = entry.payload as EventPayload<"avm.grant">;
        f.grants++;
        month(state, entry.ts).grants++;
        if (currentGrant(state.registry, p.ledger_id, Date.parse(entry.ts)) !== null) f.renewals++;
        break;
      }
      case "avm.revoke": {
        const p = entry.payload as EventPayload<"avm.revoke">;
        f.revocations++;
        f.revocations_by_reason[p.reason]++;
        month(state, entry.ts).revocations++;
        break;
      }
      case "identity.registered":
        f.identities_by_role[(entry.payload as EventPayload<"identity.registered">).role]++;
        break;
      case "companion.registered":
        f.companions++;
        break;
    }
    avmRegistry.apply(state.registry, entry);
    return state;
  },
};

/** The figures with the months, oldest first (a copy: the state keeps folding). */
export function activityFigures(state: ActivityState): ActivityFigures {
  return structuredClone({ ...state.figures, months: [...state.months.values()] });
}
