/**
 * /philosophy/consensus-registry.json: the consensus registry at the data's instant, folded from
 * the ledger (core/consensus/views.ts registrySnapshot): the cycle last recorded, the roster of
 * offices with their priority, key and latest measured GI, the sessions still active, and the
 * newest sealed proofs. The /consensus page is built from it, and falls back to its `current`
 * cycle when the live API does not answer.
 */
import { ConsensusRegistry } from "../../../core/schemas/consensus.ts";
import { documentInstant } from "../../lib/dating.ts";
import { publishJson } from "../../lib/json.ts";
import type { DocumentStep } from "../../step.ts";
import { philosophy } from "../../../core/areas/philosophy.ts";
import { declaredOutput } from "../../../core/areas/declaration.ts";

export const consensusRegistryStep: DocumentStep = {
  kind: "document",
  ...declaredOutput(philosophy, "consensus-registry.json"),
  name: "consensus-registry",
  title: "Consensus registry",
  description:
    "The consensus registry as the ledger holds it at the data's instant: the cycle last recorded (cycle, the offices' mean office integrity and the room of the newest active session), every office with its priority, cathedral, Ed25519 public key and latest measured office integrity (eligible at 0.95 or above), the sessions still active with their participants and votes so far, the ten newest sealed deliberation proofs (outcome, agreement, office integrity, validator, the sealing entry and Merkle root), and how many sessions and sealed proofs there are.",
  schema: "philosophy/consensus-registry",
  inputs: ["ledger", "pulse"],
  version: 1,
  generate({ facts, pulse }) {
    const { timestamp, cycle } = documentInstant(facts, pulse);
    return publishJson("philosophy/consensus-registry.json", ConsensusRegistry, {
      cycle,
      timestamp,
      ...facts.consensusRegistry,
    });
  },
};
