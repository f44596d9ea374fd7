/**
 * /economy/supply: the MIC supply from the ledger's supply events, summed in integer shards and
 * converted to MIC numbers only here. total_supply = minted; burned; locked = currently locked
 * (locks minus unlocks); circulating = minted − burned − locked. A negative circulating supply would
 * mean the ledger burned or locked more than was minted: the step fails instead of publishing it.
 */
import { shardsToMic } from "../../../core/economy/formulas.ts";
import { Supply } from "../../../core/schemas/economy.ts";
import type { LedgerFacts } from "../../facts/types.ts";
import { documentInstant } from "../../lib/dating.ts";
import { publishJson } from "../../lib/json.ts";
import type { DocumentStep } from "../../step.ts";

export function supplyFigures(supply: LedgerFacts["supply"]): Omit<Supply, "cycle" | "timestamp"> {
  const { mintedShards, burnedShards, lockedShards } = supply;
  const circulating = mintedShards - burnedShards - lockedShards;
  if (mintedShards < 0n || burnedShards < 0n || lockedShards < 0n || circulating < 0n) {
    throw new Error(
      `economy/supply.json: inconsistent supply (shards): minted ${mintedShards}, burned ${burnedShards}, locked ${lockedShards}, circulating would be ${circulating}`,
    );
  }
  return {
    total_supply: shardsToMic(mintedShards),
    circulating: shardsToMic(circulating),
    locked: shardsToMic(lockedShards),
    burned: shardsToMic(burnedShards),
  };
}

export const supplyStep: DocumentStep = {
  kind: "document",
  id: "economy/supply.json",
  area: "economy",
  path: "supply.json",
  name: "supply",
  title: "MIC supply",
  description:
    "MIC supply from the ledger: total minted (total_supply), circulating (minted minus burned minus locked), locked in contracts, and burned; amounts in MIC, summed exactly in integer shards.",
  mediatype: "application/json",
  access: "public",
  schema: "economy/supply",
  inputs: ["ledger", "pulse"],
  version: 1,
  generate({ facts, pulse }) {
    const { timestamp, cycle } = documentInstant(facts, pulse);
    const f = supplyFigures(facts.supply);
    return publishJson("economy/supply.json", Supply, {
      cycle,
      timestamp,
      total_supply: f.total_supply,
      circulating: f.circulating,
      locked: f.locked,
      burned: f.burned,
    });
  },
};
