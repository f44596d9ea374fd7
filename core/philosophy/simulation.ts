/**
 * The philosophy simulation: the council (council.ts) deliberates a scenario in rounds of
 * Friedkin–Johnsen opinion dynamics with virtue-weighted influence, each round one
 * `simulation_update` (the model: README "Philosophy simulation"). A pure function of (council,
 * scenario, maximum rounds): only + − × ÷ on doubles in a fixed order — no Math.exp, log or pow,
 * whose last bit may differ between engines — so a scenario gives the same stream, byte for byte,
 * anywhere. Every number in a message is rounded to 4 decimals.
 */
import type { Position, SimulationAction, SimulationUpdate } from "../schemas/index.ts";
import { VIRTUES } from "../schemas/index.ts";
import { sha256 } from "../digest.ts";
import type { Council } from "./council.ts";
import { relevance, topicTokens } from "./topics.ts";

export const DEFAULT_MAX_ROUNDS = 50;
/** Upper bound of any configured round limit. */
export const MAX_ROUNDS_LIMIT = 1000;
/** How far a member moves toward its target in one round. */
export const PACE = 0.25;
/** Weight of a member's overall record against its topic-specific record, in statements. */
export const PRIOR_WEIGHT = 2;
/** Largest first-impression shift of a member with no relevant record. */
export const SPREAD = 0.4;
/** A round in which no stance moves by this much ends the deliberation. */
export const SETTLED = 0.002;
/** Floor of each virtue's emphasis before normalising (a scenario unlike any past topic weighs all virtues alike). */
const EMPHASIS_FLOOR = 0.2;
/** A member whose stance moves less than this in the coming round holds. */
const HOLD = 0.0005;

export interface SimulationOptions {
  maxRounds?: number;
}

type Update = SimulationUpdate;

const round4 = (x: number): number => Math.round(x * 10_000) / 10_000 + 0;
const clamp = (x: number): number => (x < -1 ? -1 : x > 1 ? 1 : x);

export function positionOf(stance: number): Position {
  const s = round4(stance);
  return s >= 0.5 ? "support" : s >= 0.2 ? "conditional" : s > -0.2 ? "abstain" : "oppose";
}

/** Uniform in [0, 1) from the scenario text and a member id: the only seeded quantity. */
function firstImpression(scenario: string, id: string): number {
  const h = sha256(`philosophy-simulation\n${scenario}\n${id}`);
  return (((h[0]! << 24) | (h[1]! << 16) | (h[2]! << 8) | h[3]!) >>> 0) / 4_294_967_296;
}

interface Deliberation {
  ids: string[];
  x0: number[];
  influence: number[];
  stubbornness: number[];
}

/** Steps 1–3: first readings, influence and stubbornness of every member for this scenario. */
export function prepare(council: Council, scenario: string): Deliberation {
  const scenarioTokens = topicTokens(scenario);
  const r = council.topics.map((t) => relevance(scenarioTokens, t.tokens));

  const emphasis = VIRTUES.map((v) => {
    let e = EMPHASIS_FLOOR;
    council.topics.forEach((t, k) => (e += r[k]! * t.virtueShare[v]));
    return e;
  });
  const emphasisTotal = emphasis.reduce((a, b) => a + b, 0);

  const ids: string[] = [];
  const x0: number[] = [];
  const raw: number[] = [];
  const stubbornness: number[] = [];
  for (const m of council.members) {
    let weight = 0;
    let sum = 0;
    for (const t of m.byTopic) {
      const rel = r[t.topic]!;
      weight += rel * t.count;
      sum += rel * t.sum;
    }
    const prior = (sum + PRIOR_WEIGHT * m.baseline) / (weight + PRIOR_WEIGHT);
    const shift = (2 * firstImpression(scenario, m.id) - 1) * SPREAD * (PRIOR_WEIGHT / (weight + PRIOR_WEIGHT));
    ids.push(m.id);
    x0.push(clamp(prior + shift));
    let virtue = 0;
    VIRTUES.forEach(
      (v, i) => (virtue += (emphasis[i]! / emphasisTotal) * council.virtueScores[v] * m.virtueProfile[v]),
    );
    raw.push(m.gi * virtue);
    stubbornness.push(0.1 + 0.5 * m.virtueProfile.courage);
  }
  const total = raw.reduce((a, b) => a + b, 0);
  const influence = raw.map((w) => (total > 0 ? w / total : 1 / raw.length));
  return { ids, x0, influence, stubbornness };
}

/** Step 4: one round, everyone at once. */
function step(d: Deliberation, x: readonly number[]): number[] {
  let weighted = 0;
  let weights = 0;
  for (let j = 0; j < x.length; j++) {
    weighted += d.influence[j]! * x[j]!;
    weights += d.influence[j]!;
  }
  return x.map((xi, i) => {
    const othersWeight = weights - d.influence[i]!;
    // Alone (or among members without influence), a member has no one to listen to.
    if (!(othersWeight > 0)) return xi;
    const others = (weighted - d.influence[i]! * xi) / othersWeight;
    const lambda = d.stubbornness[i]!;
    return clamp((1 - PACE) * xi + PACE * (lambda * d.x0[i]! + (1 - lambda) * others));
  });
}

/** The simulation's messages, one per round, the last with phase `final`. */
export function* simulate(
  council: Council,
  scenario: string,
  options: SimulationOptions = {},
): Generator<Update, void, undefined> {
  const maxRounds = options.maxRounds ?? DEFAULT_MAX_ROUNDS;
  if (!Number.isInteger(maxRounds) || maxRounds < 1 || maxRounds > MAX_ROUNDS_LIMIT) {
    throw new RangeError(`maxRounds must be an integer from 1 to ${MAX_ROUNDS_LIMIT}, not ${maxRounds}`);
  }
  const d = prepare(council, scenario);
  const cathedral = new Map(council.members.map((m) => [m.id, m.cathedral]));
  const n = d.ids.length;

  const message = (round: number, x: readonly number[], movement: number, next: readonly number[] | null): Update => {
    const positions = x.map(positionOf);
    const support = positions.filter((p) => p === "support").length;
    const oppose = positions.filter((p) => p === "oppose").length;
    let mean = 0;
    x.forEach((xi, i) => (mean += d.influence[i]! * xi));
    const outcome =
      next !== null
        ? null
        : n > 0 && support * 4 >= n * 3
          ? "approved"
          : n > 0 && oppose * 2 >= n
            ? "rejected"
            : "deferred";
    let nextActions: Update["next_actions"];
    if (next !== null) {
      nextActions = d.ids.map((id, i) => {
        const delta = next[i]! - x[i]!;
        const action: SimulationAction = Math.abs(delta) < HOLD ? "hold" : delta > 0 ? "lean_support" : "lean_oppose";
        return { sentinel: id, action, position: positionOf(next[i]!) };
      });
    } else {
      const majority: Position | null = outcome === "approved" ? "support" : outcome === "rejected" ? "oppose" : null;
      nextActions =
        majority === null
          ? []
          : d.ids.flatMap((id, i) =>
              positions[i] === majority
                ? []
                : [{ sentinel: id, action: "record_dissent" as const, position: positions[i]! }],
            );
    }
    return {
      type: "simulation_update",
      scenario,
      sentinels: d.ids.map((id, i) => ({
        id,
        cathedral: cathedral.get(id)!,
        position: positions[i]!,
        stance: round4(x[i]!),
        influence: round4(d.influence[i]!),
      })),
      current_state: {
        round,
        max_rounds: maxRounds,
        phase: next !== null ? (round === 0 ? "opening" : "deliberating") : "final",
        agreement: n === 0 ? 0 : round4(support / n),
        opposition: n === 0 ? 0 : round4(oppose / n),
        mean_stance: round4(mean),
        movement: round4(movement),
        outcome,
        end_reason: null,
        excluded: [...council.excluded],
        inputs: { ...council.inputs },
      },
      next_actions: nextActions,
    };
  };

  let x: number[] = d.x0.slice();
  if (n === 0) {
    const only = message(0, x, 0, null);
    only.current_state.end_reason = "settled";
    yield only;
    return;
  }
  let movement = 0;
  for (let round = 0; ; round++) {
    if (round > 0) {
      const positions = x.map(positionOf);
      const first = positions[0]!;
      const unanimous = (first === "support" || first === "oppose") && positions.every((p) => p === first);
      const end = unanimous ? "unanimous" : movement < SETTLED ? "settled" : round >= maxRounds ? "round_limit" : null;
      if (end !== null) {
        const last = message(round, x, movement, null);
        last.current_state.end_reason = end;
        yield last;
        return;
      }
    }
    const next = step(d, x);
    yield message(round, x, movement, next);
    movement = 0;
    next.forEach((v, i) => (movement = Math.max(movement, Math.abs(v - x[i]!))));
    x = next;
  }
}
