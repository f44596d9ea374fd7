/**
 * /economy/supply: the MIC supply, computed by core/economy/supply.ts — the same projection the API
 * folds for the live figures — from the ledger pass's facts (`facts.supply` is that projection's
 * state). An inconsistent supply (more burned or locked than minted) fails the step instead of
 * being published. Each figure's number is written from its exact shard count (`<figure>_shards`),
 * never through a double (core/balance/exact-json.ts).
 */
import { withExactMicFigures } from "../../../core/balance/exact-json.ts";
import { SUPPLY_FIGURES, supplyFigures } from "../../../core/economy/supply.ts";
import { Supply } from "../../../core/schemas/economy.ts";
import { documentInstant } from "../../lib/dating.ts";
import { jsonText, publishJson } from "../../lib/json.ts";
import type { DocumentStep } from "../../step.ts";
import { economy } from "../../../core/areas/economy.ts";
import { declaredOutput } from "../../../core/areas/declaration.ts";

export const supplyStep: DocumentStep = {
  kind: "document",
  ...declaredOutput(economy, "supply.json"),
  name: "supply",
  title: "MIC supply",
  description:
    "MIC supply from the ledger: total minted (total_supply), circulating (minted minus burned minus locked), locked in contracts, and burned; amounts in MIC, summed exactly in integer shards; each figure's exact shard count beside it as a decimal string (<figure>_shards).",
  schema: "economy/supply",
  inputs: ["ledger", "pulse"],
  version: 1,
  generate({ facts, pulse }) {
    const { timestamp, cycle } = documentInstant(facts, pulse);
    const document: Supply = { cycle, timestamp, ...supplyFigures(facts.supply) };
    publishJson("economy/supply.json", Supply, document); // validated with its numbers
    return jsonText(withExactMicFigures(document, SUPPLY_FIGURES));
  },
};
