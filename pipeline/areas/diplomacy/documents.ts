/**
 * The diplomacy area's three documents, each published from its curated source in
 * data/sources/diplomacy/ (treaty-framework.json, standards.json, protocols.json). The source is
 * the whole document, cycle included (the diplomacy area carries its own cycle, C-156 in the
 * published set); it is not dated by the ledger or the pulse, so the steps read nothing else.
 *
 * Each source is validated by the document's strict zod schema (an error names the file and the
 * field), then normalized: keys in the schema's order (zod's parse output), and a stable item order
 * that does not depend on how the file was edited —
 * - treaty principles sorted by id; articles by number, which must run 1, 2, … without gaps;
 *   signatories by signing date, then party;
 * - standards sorted by id;
 * - protocols sorted by id (their steps keep their order: it is the order of the protocol).
 * Ids (and signatory parties) must be unique.
 */
import { DiplomaticProtocols, InternationalStandards, TreatyFramework } from "../../../core/schemas/diplomacy.ts";
import { publishJson } from "../../lib/json.ts";
import { SourceError } from "../../source-reader.ts";
import type { DocumentStep, SourceReader } from "../../step.ts";
import { diplomacy } from "../../../core/areas/diplomacy.ts";
import { declaredOutput } from "../../../core/areas/declaration.ts";

export const TREATY_SOURCE = "diplomacy/treaty-framework.json";
export const STANDARDS_SOURCE = "diplomacy/standards.json";
export const PROTOCOLS_SOURCE = "diplomacy/protocols.json";

const byString = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Throws naming the file and the item when `key` repeats within `items`. */
function requireUnique<T>(
  source: string,
  list: string,
  items: readonly T[],
  key: (item: T) => string,
  field: string,
): void {
  const seen = new Map<string, number>();
  items.forEach((item, i) => {
    const k = key(item);
    const first = seen.get(k);
    if (first !== undefined) {
      throw new SourceError(
        `data/sources/${source}`,
        `${list}[${i}].${field}: duplicate ${JSON.stringify(k)} (also ${list}[${first}])`,
      );
    }
    seen.set(k, i);
  });
}

export function readTreatyFramework(sources: SourceReader): TreatyFramework {
  const doc = sources.json(TREATY_SOURCE, TreatyFramework);
  requireUnique(TREATY_SOURCE, "principles", doc.principles, (p) => p.id, "id");
  requireUnique(TREATY_SOURCE, "articles", doc.articles, (a) => String(a.number), "number");
  requireUnique(TREATY_SOURCE, "signatories", doc.signatories, (s) => s.party, "party");
  // Unique numbers from 1, none above the count: exactly 1, 2, …, n.
  doc.articles.forEach((a, i) => {
    if (a.number > doc.articles.length) {
      throw new SourceError(
        `data/sources/${TREATY_SOURCE}`,
        `articles[${i}].number: ${a.number} is out of range: the ${doc.articles.length} articles must be numbered 1 to ${doc.articles.length} without gaps`,
      );
    }
  });
  const articles = [...doc.articles].sort((a, b) => a.number - b.number);
  return {
    ...doc,
    principles: [...doc.principles].sort((a, b) => byString(a.id, b.id)),
    articles,
    signatories: [...doc.signatories].sort((a, b) => byString(a.signed_on, b.signed_on) || byString(a.party, b.party)),
  };
}

export function readStandards(sources: SourceReader): InternationalStandards {
  const doc = sources.json(STANDARDS_SOURCE, InternationalStandards);
  requireUnique(STANDARDS_SOURCE, "standards", doc.standards, (s) => s.id, "id");
  return { ...doc, standards: [...doc.standards].sort((a, b) => byString(a.id, b.id)) };
}

export function readProtocols(sources: SourceReader): DiplomaticProtocols {
  const doc = sources.json(PROTOCOLS_SOURCE, DiplomaticProtocols);
  requireUnique(PROTOCOLS_SOURCE, "protocols", doc.protocols, (p) => p.id, "id");
  return { ...doc, protocols: [...doc.protocols].sort((a, b) => byString(a.id, b.id)) };
}

export const treatyFrameworkStep: DocumentStep = {
  kind: "document",
  ...declaredOutput(diplomacy, "treaty-framework.json"),
  name: "treaty-framework",
  title: "Treaty framework",
  description:
    "Framework for the cross-border exchange of integrity data: its principles, numbered articles and signatories (curated, data/sources/diplomacy/treaty-framework.json).",
  schema: "diplomacy/treaty-framework",
  inputs: [`sources/${TREATY_SOURCE}`],
  version: 1,
  generate({ sources }) {
    return publishJson("diplomacy/treaty-framework.json", TreatyFramework, readTreatyFramework(sources));
  },
};

export const standardsStep: DocumentStep = {
  kind: "document",
  ...declaredOutput(diplomacy, "standards.json"),
  name: "standards",
  title: "International standards alignment",
  description:
    "International standards the platform maps itself to, each with its issuer, the platform's alignment (aligned, partial, planned, not applicable), how it is met or why not, and a reference (curated, data/sources/diplomacy/standards.json).",
  schema: "diplomacy/standards",
  inputs: [`sources/${STANDARDS_SOURCE}`],
  version: 1,
  generate({ sources }) {
    return publishJson("diplomacy/standards.json", InternationalStandards, readStandards(sources));
  },
};

export const protocolsStep: DocumentStep = {
  kind: "document",
  ...declaredOutput(diplomacy, "protocols.json"),
  name: "protocols",
  title: "Diplomatic protocols",
  description:
    "Protocols between parties: incident notification, key rotation and compromise, inconsistent checkpoints, data requests, revocation and dispute resolution — each with its trigger, ordered steps and escalation (curated, data/sources/diplomacy/protocols.json).",
  schema: "diplomacy/protocols",
  inputs: [`sources/${PROTOCOLS_SOURCE}`],
  version: 1,
  generate({ sources }) {
    return publishJson("diplomacy/protocols.json", DiplomaticProtocols, readProtocols(sources));
  },
};
