/** The curated input of the economy area: data/sources/economy/minting.json. */
import { z } from "zod";
import { NonEmptyString, Score01 } from "../../../core/schemas/common.ts";

export const MINTING_SOURCE = "economy/minting.json";

export const MintingConfig = z.strictObject({
  version: NonEmptyString,
  description: NonEmptyString,
  /** MII at or above which minting is active. */
  mii_threshold: Score01,
});
export type MintingConfig = z.infer<typeof MintingConfig>;
