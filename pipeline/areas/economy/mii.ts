/**
 * /economy/mii: the MII of the newest pulse record, the minting threshold from
 * data/sources/economy/minting.json, and whether minting is active (mii ≥ threshold). Without any
 * pulse record there is no MII to publish: the step fails ("no pulse history") rather than invent a
 * score.
 */
import type { PulseRecord } from "../../../core/pulse/history.ts";
import { EconomyMii } from "../../../core/schemas/economy.ts";
import { documentInstant, latestPulse } from "../../lib/dating.ts";
import { publishJson } from "../../lib/json.ts";
import type { DocumentStep } from "../../step.ts";
import { MINTING_SOURCE, MintingConfig } from "./sources.ts";
import { economy } from "../../../core/areas/economy.ts";
import { declaredOutput } from "../../../core/areas/declaration.ts";

/** The minting state the newest pulse gives (null without any pulse): mii ≥ threshold → active. */
export function mintingState(
  pulse: readonly PulseRecord[],
  config: MintingConfig,
): { active: boolean; mii: number; threshold: number } | null {
  const latest = latestPulse(pulse);
  return latest
    ? { active: latest.miiScore >= config.mii_threshold, mii: latest.miiScore, threshold: config.mii_threshold }
    : null;
}

export const miiStep: DocumentStep = {
  kind: "document",
  ...declaredOutput(economy, "mii.json"),
  name: "mii",
  title: "MII and minting status",
  description:
    "The integrity index (MII) of the newest pulse record, the MII threshold at or above which MIC minting is active (data/sources/economy/minting.json), and whether minting is active.",
  schema: "economy/mii",
  inputs: ["ledger", "pulse", `sources/${MINTING_SOURCE}`],
  version: 1,
  generate({ facts, pulse, sources }) {
    const config = sources.json(MINTING_SOURCE, MintingConfig);
    const minting = mintingState(pulse, config);
    if (!minting)
      throw new Error(
        "economy/mii.json: no pulse history: the MII is measured by the pulse indexer and no pulse has been recorded",
      );
    const { timestamp, cycle } = documentInstant(facts, pulse);
    return publishJson("economy/mii.json", EconomyMii, {
      timestamp,
      mii: minting.mii,
      threshold: minting.threshold,
      minting_active: minting.active,
      cycle,
    });
  },
};
