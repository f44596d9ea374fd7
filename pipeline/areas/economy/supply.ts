/**
 * /economy/supply: the MIC supply, computed by core/economy/supply.ts — the same projection the API
 * folds for the live figures — from the ledger pass's facts (`facts.supply` is that projection's
 * state). An inconsistent supply (more burned or locked than minted) fails the step instead of
 * being published.
 */
import { supplyFigures } from "../../../core/economy/supply.ts";
import { Supply } from "../../../core/schemas/economy.ts";
import { documentInstant } from "../../lib/dating.ts";
import { publishJson } from "../../lib/json.ts";
import type { DocumentStep } from "../../step.ts";

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
