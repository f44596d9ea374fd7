/**
 * The four official Frictionless Data Package v2 profiles (JSON Schema draft-07), read from a
 * folder: what a manifest must conform to besides the published-data contract.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv, type SchemaObject, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import { ajvProblem } from "./json-schemas.ts";

export const PROFILE_NAMES = ["datapackage", "dataresource", "tableschema", "tabledialect"] as const;
export const PROFILE_BASE = "https://datapackage.org/profiles/2.0/";

/** Where the profiles are by default: `FRICTIONLESS_PROFILES`, else the verbatim copy in vendor/vectors/frictionless. */
export function defaultProfilesDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.FRICTIONLESS_PROFILES ?? new URL("../../vendor/vectors/frictionless/", import.meta.url).pathname;
}

/**
 * The four official Data Package v2 profiles (JSON Schema draft-07), each registered under its
 * official URL so that any `$ref` between them resolves by id.
 */
export class ProfileValidator {
  readonly #ajv: Ajv;
  readonly #compiled = new Map<string, ValidateFunction>();

  constructor(dir: string = defaultProfilesDir()) {
    this.#ajv = new Ajv({ strict: false, allErrors: false });
    addFormats.default(this.#ajv);
    this.#ajv.addFormat("textarea", true); // an editor hint in the profiles, not a constraint
    for (const name of PROFILE_NAMES) {
      const path = join(dir, `${name}.json`);
      if (!existsSync(path)) {
        throw new Error(
          `${path}: Frictionless profile not found; download it from ${PROFILE_BASE}${name}.json (or set FRICTIONLESS_PROFILES / --profiles)`,
        );
      }
      this.#ajv.addSchema(JSON.parse(readFileSync(path, "utf8")) as SchemaObject, `${PROFILE_BASE}${name}.json`);
    }
  }

  /** Compiled on first use: the profiles are large and a conforming package needs only the first. */
  #validator(name: (typeof PROFILE_NAMES)[number]): ValidateFunction {
    let v = this.#compiled.get(name);
    if (!v) {
      v = this.#ajv.getSchema(`${PROFILE_BASE}${name}.json`)!;
      this.#compiled.set(name, v);
    }
    return v;
  }

  /**
   * Problems of a datapackage descriptor; empty when it conforms. The package profile inlines the
   * resource, Table Schema and dialect profiles; when it fails, each resource is checked against
   * those too, so the message says which part is wrong.
   */
  check(descriptor: unknown): string[] {
    const problems: string[] = [];
    const run = (name: (typeof PROFILE_NAMES)[number], value: unknown, where: string) => {
      const v = this.#validator(name);
      if (!v(value)) problems.push(`${where} does not conform to the ${name} profile: ${ajvProblem(v.errors)}`);
    };
    run("datapackage", descriptor, "package");
    if (problems.length === 0) return problems;
    const resources = (descriptor as { resources?: unknown })?.resources;
    if (Array.isArray(resources)) {
      resources.forEach((r: Record<string, unknown>, i) => {
        const where = `resource ${i} (${String(r?.name)})`;
        run("dataresource", r, where);
        if (r && typeof r.schema === "object") run("tableschema", r.schema, `${where} schema`);
        if (r && typeof r.dialect === "object") run("tabledialect", r.dialect, `${where} dialect`);
      });
    }
    return problems;
  }
}
