/**
 * MIC figures written into JSON exactly. A figure the spec gives as a JSON number (a supply figure,
 * `stake_locked`) is held as a double in memory, exact only up to 2^53 shards; its exact shard count
 * travels beside it as `<figure>_shards`. For the bytes a reader receives, the number's text is
 * written from that integer (`JSON.rawJSON`, honoured by `JSON.stringify`), never through a double,
 * so a reader that keeps a number's text gets the exact amount at any size.
 */
import { micNumberText } from "../money/units.ts";

/** `JSON.rawJSON` (Node ≥ 21): the TypeScript library in use does not declare it yet. */
const rawJSON = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON;

/**
 * A copy of `doc` for `JSON.stringify`, each named figure replaced by the exact decimal text of its
 * `<figure>_shards` (MIC, shortest form: `"1.005"`, `"9007199254.740993"`). The copy's figures are
 * raw JSON, not numbers: serialize it, do not compute with it or validate it.
 */
export function withExactMicFigures<T extends object>(doc: T, figures: readonly (keyof T & string)[]): T {
  const copy = { ...doc } as Record<string, unknown>;
  for (const figure of figures) {
    const shards = copy[`${figure}_shards`];
    if (typeof shards !== "string")
      throw new TypeError(`${figure}_shards is missing: the exact figure cannot be written`);
    copy[figure] = rawJSON(micNumberText(BigInt(shards)));
  }
  return copy as T;
}
