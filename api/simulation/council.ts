/**
 * The simulation's council, formed from the published files the API already serves:
 * philosophy/deliberations.json, philosophy/virtues.json and government/sentinel-status.json.
 * Nothing unverified is used: each file must match the sha256 its area's datapackage.json lists
 * (as for serving it), and must parse against its zod schema. The council is formed once per
 * version of the three files (keyed by their manifest hashes) and shared by every simulation;
 * a changed file is picked up at the next simulation. An unchanged version costs five `stat`s: a
 * manifest is parsed again only when its size, inode, mtime or ctime changes, and
 * store/digest-cache.ts remembers each file's digest the same way. A new version is read once, and
 * the bytes parsed are the bytes hashed.
 */
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { z } from "zod";
import { declaredOutput } from "../../core/areas/declaration.ts";
import { government } from "../../core/areas/government.ts";
import { philosophy } from "../../core/areas/philosophy.ts";
import { sha256Hex } from "../../core/digest.ts";
import { formCouncil, type Council, type CouncilInputs } from "../../core/philosophy/council.ts";
import { Deliberations, SentinelStatus, Virtues } from "../../core/schemas/index.ts";
import { DigestCache } from "../../store/digest-cache.ts";

const INPUTS = {
  deliberations: { ...declaredOutput(philosophy, "deliberations.json"), schema: Deliberations },
  virtues: { ...declaredOutput(philosophy, "virtues.json"), schema: Virtues },
  sentinel_status: { ...declaredOutput(government, "sentinel-status.json"), schema: SentinelStatus },
} as const;
type InputName = keyof typeof INPUTS;

export type CouncilResult = { ok: true; council: Council } | { ok: false; reason: string };

export class PhilosophyCouncilSource {
  readonly #dataDir: string;
  readonly #digests = new DigestCache();
  /** Each manifest's public resource hashes, remembered with what stat said of the file. */
  readonly #manifests = new Map<string, { stat: string; hashes: Map<string, string> }>();
  #cached: { key: string; council: Council } | undefined;

  constructor(dataDir: string) {
    this.#dataDir = dataDir;
  }

  /** The council of the current published files, or why there is none. Never throws. */
  current(): CouncilResult {
    try {
      const hashes = {} as CouncilInputs;
      for (const name of Object.keys(INPUTS) as InputName[]) {
        const { area, path } = INPUTS[name];
        const hash = this.#manifestHash(area, path);
        if (hash === null) return { ok: false, reason: `${area}/${path} is not listed in a published manifest` };
        if (this.#digests.digest(join(this.#dataDir, "areas", area, path))?.hash !== hash) {
          return { ok: false, reason: `${area}/${path} does not match its manifest hash` };
        }
        hashes[name] = hash;
      }
      const key = `${hashes.deliberations} ${hashes.virtues} ${hashes.sentinel_status}`;
      if (this.#cached?.key === key) return { ok: true, council: this.#cached.council };
      // A new version: the bytes parsed are the bytes hashed (a file replaced in between is refused).
      const read = <S extends z.ZodType>(name: InputName, schema: S): z.infer<S> => {
        const { area, path } = INPUTS[name];
        const bytes = readFileSync(join(this.#dataDir, "areas", area, path));
        if (`sha256:${sha256Hex(bytes)}` !== hashes[name]) throw new Error(`${area}/${path} changed while it was read`);
        return schema.parse(JSON.parse(bytes.toString("utf8")));
      };
      const council = formCouncil({
        deliberations: read("deliberations", INPUTS.deliberations.schema),
        virtues: read("virtues", INPUTS.virtues.schema),
        sentinelStatus: read("sentinel_status", INPUTS.sentinel_status.schema),
        inputs: hashes,
      });
      this.#cached = { key, council };
      return { ok: true, council };
    } catch (error) {
      return {
        ok: false,
        reason: `the published philosophy inputs could not be read: ${(error as Error).message.slice(0, 200)}`,
      };
    }
  }

  #manifestHash(area: string, path: string): string | null {
    const manifest = join(this.#dataDir, "areas", area, "datapackage.json");
    const stats = statSync(manifest, { bigint: true, throwIfNoEntry: false });
    if (!stats) return null;
    const stat = `${stats.size}:${stats.ino}:${stats.mtimeNs}:${stats.ctimeNs}`;
    let known = this.#manifests.get(area);
    if (known?.stat !== stat) {
      const parsed = JSON.parse(readFileSync(manifest, "utf8")) as {
        resources?: { path?: unknown; hash?: unknown; access?: unknown }[];
      };
      const hashes = new Map<string, string>();
      for (const r of parsed.resources ?? [])
        if (r.access === "public" && typeof r.path === "string" && typeof r.hash === "string")
          hashes.set(r.path, r.hash);
      known = { stat, hashes };
      this.#manifests.set(area, known);
    }
    return known.hashes.get(path) ?? null;
  }
}
