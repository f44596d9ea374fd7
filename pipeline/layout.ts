/**
 * Where the pipeline reads and writes. Public outputs and sources live in the data folder (`data/`:
 * the public repository and the CDN). Keyed outputs — the files the published-data contract keys —
 * and the curated sources only keyed files are made from live in the keyed data folder
 * (`KEYED_DATA_DIR`, `--keyed-dir`): in a real deployment a private store that neither the
 * repository nor the CDN ever holds, shared by the pipeline (which writes it) and the API (which
 * reads it). Their hashes stay in the signed public manifests, so a keyed downloader can verify what
 * it got. In the embedded default the keyed folder is the data folder itself, with SAMPLE keyed
 * files (README "Keyed data").
 */
import { join } from "node:path";
import { AREA_DECLARATIONS } from "../core/areas/index.ts";
import { areaFile, isKeyed, type Area } from "../core/datapackage/contract.ts";

export interface DataLayout {
  dataDir: string;
  /** Default: dataDir. */
  keyedDataDir?: string;
}

/** Curated sources only keyed files are made from (each area's declared `keyedSources`), by path under data/sources/. */
export const KEYED_SOURCES: ReadonlySet<string> = new Set(
  AREA_DECLARATIONS.flatMap((d) => (d.keyedSources ?? []).map((path) => `${d.name}/${path}`)),
);

/** The file of an output: `<folder>/areas/<area>/<path>`, in the keyed folder when the contract keys it. */
export function outputFile(layout: DataLayout, area: Area, path: string): string {
  const file = areaFile(area, path);
  return join(file && isKeyed(file) ? (layout.keyedDataDir ?? layout.dataDir) : layout.dataDir, "areas", area, path);
}

/** The file of a curated source: `<folder>/sources/<path>`, in the keyed folder for a keyed source. */
export function sourceFile(layout: DataLayout, path: string): string {
  return join(KEYED_SOURCES.has(path) ? (layout.keyedDataDir ?? layout.dataDir) : layout.dataDir, "sources", path);
}
