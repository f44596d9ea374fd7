/**
 * The papers index (/academics/papers.json) and its citations (/academics/citations.bib), both from
 * the curated `data/sources/academics/papers.json`.
 *
 * BibTeX entry type by status:
 *   published, accepted → @article (venue_kind "journal", journal = first venue) or
 *                          @inproceedings (venue_kind "conference", booktitle = first venue);
 *   draft, preprint → @misc (howpublished = the venues, if any);
 *   submitted, under_review → @misc, the venue named in the note ("Under review at <venue>").
 * Key = the paper id. Fields, in this order when present: author ("A and B"), title (case-protected,
 * pipeline/lib/bibtex.ts), journal/booktitle/howpublished, year, doi, url (https://doi.org/<doi>,
 * else the source's url), note (the status in words). The output is checked by parsing it back.
 */
import { z } from "zod";
import { Identifier, NonEmptyString, PaperStatus, PapersIndex } from "../../../core/schemas/index.ts";
import { bibtexEntry, bibtexTitle, checkBibtex, escapeBibtex, type BibtexField } from "../../lib/bibtex.ts";
import { documentInstant } from "../../lib/dating.ts";
import { publishJson } from "../../lib/json.ts";
import type { DocumentStep } from "../../step.ts";
import { academics } from "../../../core/areas/academics.ts";
import { declaredOutput } from "../../../core/areas/declaration.ts";

export const PAPERS_SOURCE = "academics/papers.json";

/** Crossref's recommended DOI pattern. */
const DOI = /^10\.\d{4,9}\/[-._;()/:A-Za-z0-9]+$/;

export const PaperSource = z
  .strictObject({
    id: Identifier,
    title: NonEmptyString,
    /** "Family, Given" per author; " and " would split a name in BibTeX. */
    authors: z
      .array(NonEmptyString.refine((a) => !/\sand\s/i.test(a), 'an author name must not contain " and "'))
      .min(1),
    year: z.int().min(1900).max(2100),
    status: PaperStatus,
    /** Required for accepted and published papers: decides @article or @inproceedings. */
    venue_kind: z.enum(["journal", "conference"]).optional(),
    venues: z.array(NonEmptyString),
    key_result: NonEmptyString,
    /** Path of the paper file, relative to the area. */
    path: NonEmptyString,
    doi: z.string().regex(DOI).optional(),
    url: z
      .url({ protocol: /^https$/ })
      .regex(/^[^\s{}\\"%]+$/)
      .optional(),
  })
  .superRefine((paper, ctx) => {
    if (paper.status === "accepted" || paper.status === "published") {
      if (!paper.venue_kind)
        ctx.addIssue({ code: "custom", path: ["venue_kind"], message: `required when status is ${paper.status}` });
      if (paper.venues.length === 0)
        ctx.addIssue({
          code: "custom",
          path: ["venues"],
          message: `at least one venue when status is ${paper.status}`,
        });
    }
  });
export type PaperSource = z.infer<typeof PaperSource>;

export const PapersSource = z.strictObject({ papers: z.array(PaperSource).min(1) }).superRefine((source, ctx) => {
  const seen = new Set<string>();
  source.papers.forEach((paper, i) => {
    if (seen.has(paper.id))
      ctx.addIssue({ code: "custom", path: ["papers", i, "id"], message: `duplicate id ${paper.id}` });
    seen.add(paper.id);
  });
});
export type PapersSource = z.infer<typeof PapersSource>;

export const papersStep: DocumentStep = {
  kind: "document",
  ...declaredOutput(academics, "papers.json"),
  name: "papers",
  title: "Papers index",
  description: "Papers about the platform's methods: title, status, venues, key result and path.",
  schema: "academics/papers",
  inputs: ["ledger", "pulse", `sources/${PAPERS_SOURCE}`],
  version: 1,
  generate({ facts, pulse, sources }) {
    const source = sources.json(PAPERS_SOURCE, PapersSource);
    const doc: PapersIndex = {
      cycle: documentInstant(facts, pulse).cycle,
      papers: source.papers.map((p) => ({
        id: p.id,
        title: p.title,
        status: p.status,
        venues: p.venues,
        key_result: p.key_result,
        path: p.path,
      })),
    };
    return publishJson("academics/papers.json", PapersIndex, doc);
  },
};

const STATUS_NOTE: Record<PaperStatus, (venue: string | undefined) => string | null> = {
  draft: () => "Draft",
  preprint: () => "Preprint",
  submitted: (venue) => (venue ? `Submitted to ${venue}` : "Submitted"),
  under_review: (venue) => (venue ? `Under review at ${venue}` : "Under review"),
  accepted: () => "Accepted for publication",
  published: () => null,
};

/** One paper's BibTeX entry (see the module comment). */
export function paperEntry(paper: PaperSource): string {
  const venue = paper.venues[0];
  const fields: BibtexField[] = [
    { name: "author", value: paper.authors.map(escapeBibtex).join(" and ") },
    { name: "title", value: bibtexTitle(paper.title) },
  ];
  let type: string;
  const formal = paper.status === "accepted" || paper.status === "published";
  if (formal && paper.venue_kind === "journal" && venue) {
    type = "article";
    fields.push({ name: "journal", value: escapeBibtex(venue) });
  } else if (formal && paper.venue_kind === "conference" && venue) {
    type = "inproceedings";
    fields.push({ name: "booktitle", value: escapeBibtex(venue) });
  } else {
    type = "misc";
    // A draft or preprint is published where its venues say; a submitted one is not yet (see note).
    const pending = paper.status === "submitted" || paper.status === "under_review";
    if (!pending && paper.venues.length > 0)
      fields.push({ name: "howpublished", value: paper.venues.map(escapeBibtex).join("; ") });
  }
  fields.push({ name: "year", value: String(paper.year) });
  if (paper.doi) fields.push({ name: "doi", value: paper.doi, raw: true });
  const url = paper.doi ? `https://doi.org/${paper.doi}` : paper.url;
  if (url) fields.push({ name: "url", value: url, raw: true });
  const note = STATUS_NOTE[paper.status](formal ? undefined : venue);
  if (note) fields.push({ name: "note", value: escapeBibtex(note) });
  return bibtexEntry(type, paper.id, fields);
}

export function citations(source: PapersSource): string {
  const text = source.papers.map(paperEntry).join("\n");
  checkBibtex(text);
  return text;
}

export const citationsStep: DocumentStep = {
  kind: "document",
  ...declaredOutput(academics, "citations.bib"),
  name: "citations",
  title: "Citations (BibTeX)",
  description: "BibTeX entries of the papers index: @article, @inproceedings or @misc by publication status.",
  inputs: [`sources/${PAPERS_SOURCE}`],
  version: 1,
  generate({ sources }) {
    return citations(sources.json(PAPERS_SOURCE, PapersSource));
  },
};
