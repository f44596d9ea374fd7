import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { publishedSchemas } from "../../../core/schemas/index.ts";
import { SourceError } from "../../source-reader.ts";
import type { DocumentStep, SourceReader, Step } from "../../step.ts";
import {
  makeFacts,
  patchedSources,
  publishedSchemaErrors,
  repoSources,
} from "../../../test/support/pipeline/areas/helpers.ts";
import { PROTOCOLS_SOURCE, STANDARDS_SOURCE, TREATY_SOURCE } from "./documents.ts";
import { steps } from "./index.ts";

const byId = new Map<string, Step>(steps.map((s) => [s.id, s]));
function documentStep(id: string): DocumentStep {
  const step = byId.get(id);
  if (!step || step.kind !== "document") throw new Error(`no document step ${id}`);
  return step;
}
/** The diplomacy documents depend on their source only: an empty ledger and no pulse are fine. */
function generate(id: string, sources: SourceReader = repoSources()): string {
  const out = documentStep(id).generate({ facts: makeFacts(), pulse: [], sources }, new Map());
  if (typeof out !== "string") throw new Error("expected text");
  return out;
}
type Item = Record<string, unknown>;
/** A source file's JSON, its lists typed loosely so tests can break them. */
type Src = Item & { principles: Item[]; articles: Item[]; signatories: Item[]; standards: Item[]; protocols: Item[] };
const real = (path: string) => JSON.parse(repoSources().text(path)) as Src;
const patched = (path: string, value: unknown) => patchedSources({ [path]: JSON.stringify(value) });

const SOURCE_OF: Record<string, string> = {
  "diplomacy/treaty-framework.json": TREATY_SOURCE,
  "diplomacy/standards.json": STANDARDS_SOURCE,
  "diplomacy/protocols.json": PROTOCOLS_SOURCE,
};

describe("diplomacy steps", () => {
  it("publish the three curated documents, public, declaring only their source", () => {
    expect(steps.map((s) => s.path)).toEqual(["treaty-framework.json", "standards.json", "protocols.json"]);
    for (const s of steps) {
      expect([s.kind, s.area, s.id, s.access, s.version, s.mediatype]).toEqual([
        "document",
        "diplomacy",
        `diplomacy/${s.path}`,
        "public",
        1,
        "application/json",
      ]);
      expect(s.name).toMatch(/^[a-z0-9._-]+$/);
      expect(s.schema).toBe(`diplomacy/${s.path.replace(/\.json$/, "")}`);
      expect(s.inputs).toEqual([`sources/${SOURCE_OF[s.id]}`]);
    }
  });

  it("validate against zod and the published JSON Schema, carry cycle C-156, and are deterministic", () => {
    for (const s of steps) {
      const text = generate(s.id);
      expect(text).toBe(generate(s.id));
      expect(text).toBe(JSON.stringify(JSON.parse(text), null, 2) + "\n");
      const doc: unknown = JSON.parse(text);
      const name = s.schema as keyof typeof publishedSchemas;
      expect(publishedSchemas[name].safeParse(doc).success, s.id).toBe(true);
      expect(publishedSchemaErrors(name, doc), s.id).toEqual([]);
      expect((doc as { cycle: string }).cycle).toBe("C-156");
    }
  });

  it("read only the declared source", () => {
    for (const s of steps) {
      const read: string[] = [];
      const base = repoSources();
      const sources = {
        json: <T>(path: string, schema: z.ZodType<T>) => (read.push(path), base.json(path, schema)),
        text: (path: string) => (read.push(path), base.text(path)),
      };
      s.kind === "document" && s.generate({ facts: makeFacts(), pulse: [], sources }, new Map());
      expect(read).toEqual([SOURCE_OF[s.id]]);
    }
  });
});

describe("normalization", () => {
  it("orders keys as the schema does and items stably, whatever the file's order", () => {
    const reverse = <T>(xs: T[]) => [...xs].reverse();
    const reorderKeys = (o: Record<string, unknown>) => Object.fromEntries(reverse(Object.entries(o)));
    const treaty = real(TREATY_SOURCE);
    const shuffledTreaty = reorderKeys({
      ...treaty,
      principles: reverse(treaty.principles).map(reorderKeys),
      articles: reverse(treaty.articles).map(reorderKeys),
      signatories: reverse(treaty.signatories).map(reorderKeys),
    });
    expect(generate("diplomacy/treaty-framework.json", patched(TREATY_SOURCE, shuffledTreaty))).toBe(
      generate("diplomacy/treaty-framework.json"),
    );
    const standards = real(STANDARDS_SOURCE);
    expect(
      generate(
        "diplomacy/standards.json",
        patched(STANDARDS_SOURCE, { ...standards, standards: reverse(standards.standards) }),
      ),
    ).toBe(generate("diplomacy/standards.json"));
    const protocols = real(PROTOCOLS_SOURCE);
    expect(
      generate(
        "diplomacy/protocols.json",
        patched(PROTOCOLS_SOURCE, { ...protocols, protocols: reverse(protocols.protocols) }),
      ),
    ).toBe(generate("diplomacy/protocols.json"));

    const doc = JSON.parse(generate("diplomacy/treaty-framework.json")) as {
      principles: { id: string }[];
      articles: { number: number }[];
    };
    expect(Object.keys(doc)).toEqual([
      "cycle",
      "title",
      "version",
      "effective_date",
      "principles",
      "articles",
      "signatories",
    ]);
    expect(doc.articles.map((a) => a.number)).toEqual(doc.articles.map((_, i) => i + 1));
    const ids = doc.principles.map((p) => p.id);
    expect(ids).toEqual([...ids].sort());
  });

  it("keeps the order of a protocol's steps", () => {
    const protocols = real(PROTOCOLS_SOURCE);
    const out = JSON.parse(generate("diplomacy/protocols.json")) as { protocols: { id: string; steps: string[] }[] };
    for (const p of protocols.protocols) {
      expect(out.protocols.find((q) => q.id === p["id"])?.steps).toEqual(p["steps"]);
    }
  });
});

describe("a curated source with a bad field", () => {
  it("fails naming the file and the field", () => {
    const standards = real(STANDARDS_SOURCE);
    const http = structuredClone(standards);
    (http.standards[2] as Record<string, unknown>)["reference_url"] = "http://example.org/insecure";
    const err = (() => {
      try {
        generate("diplomacy/standards.json", patched(STANDARDS_SOURCE, http));
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(err).toBeInstanceOf(SourceError);
    expect((err as SourceError).message).toMatch(
      /^data\/sources\/diplomacy\/standards\.json: standards\[2\]\.reference_url: /,
    );

    const alignment = structuredClone(standards);
    (alignment.standards[0] as Record<string, unknown>)["alignment"] = "fully compliant";
    expect(() => generate("diplomacy/standards.json", patched(STANDARDS_SOURCE, alignment))).toThrow(
      /standards\.json: standards\[0\]\.alignment/,
    );

    const protocols = real(PROTOCOLS_SOURCE);
    const noSteps = structuredClone(protocols);
    (noSteps.protocols[1] as Record<string, unknown>)["steps"] = [];
    expect(() => generate("diplomacy/protocols.json", patched(PROTOCOLS_SOURCE, noSteps))).toThrow(
      /protocols\.json: protocols\[1\]\.steps/,
    );

    const treaty = real(TREATY_SOURCE);
    expect(() =>
      generate("diplomacy/treaty-framework.json", patched(TREATY_SOURCE, { ...treaty, cycle: "C-0156" })),
    ).toThrow(/treaty-framework\.json: cycle/);
    expect(() =>
      generate("diplomacy/treaty-framework.json", patched(TREATY_SOURCE, { ...treaty, ratified: true })),
    ).toThrow(/treaty-framework\.json: \(root\): Unrecognized key/);
  });

  it("fails on duplicate ids and gaps in the article numbering", () => {
    const standards = real(STANDARDS_SOURCE);
    const dup = { ...standards, standards: [...standards.standards, standards.standards[0]] };
    expect(() => generate("diplomacy/standards.json", patched(STANDARDS_SOURCE, dup))).toThrow(
      new RegExp(`standards\\.json: standards\\[${standards.standards.length}\\]\\.id: duplicate`),
    );
    const treaty = real(TREATY_SOURCE);
    const gap = structuredClone(treaty);
    (gap.articles[4] as Record<string, unknown>)["number"] = 99;
    expect(() => generate("diplomacy/treaty-framework.json", patched(TREATY_SOURCE, gap))).toThrow(
      /treaty-framework\.json: articles\[4\]\.number: 99 is out of range: the \d+ articles must be numbered 1 to \d+ without gaps/,
    );
  });
});
