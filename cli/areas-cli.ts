/**
 * `npm run -s areas`: prints the declared areas (core/areas/index.ts), one name a line, in
 * navigation order — what a shell script (the regeneration workflow) loops over instead of listing
 * the areas itself. `--files` prints every declared file instead, `<area>/<path> <access>` a line.
 */
import { parseArgs } from "node:util";
import { AREA_DECLARATIONS } from "../core/areas/index.ts";

export function areaLines(options: { files?: boolean } = {}): string[] {
  return options.files
    ? AREA_DECLARATIONS.flatMap((d) => Object.entries(d.files).map(([path, access]) => `${d.name}/${path} ${access}`))
    : AREA_DECLARATIONS.map((d) => d.name);
}

const { values } = parseArgs({ options: { files: { type: "boolean" } }, strict: true });
process.stdout.write(`${areaLines(values).join("\n")}\n`);
