/**
 * The platform's words, defined once: the portal's /glossary/ page lists them, and every portal
 * page marks each term's first use with a link to its definition (site/src/lib/first-use.ts), so
 * pages, the glossary and any other generated text read from this one source.
 *
 * `match` is the pattern of the term's use in running text (whole words, case as written);
 * `abbr` is set for abbreviations (marked `<abbr title="…">`), others are marked `<dfn>`-style links.
 */
export interface GlossaryTerm {
  /** The anchor on /glossary/. */
  id: string;
  /** The term as headed on the glossary page. */
  term: string;
  /** The expansion of an abbreviation (the `<abbr>` title). */
  abbr?: string;
  /** What it is, in one or two plain sentences. */
  definition: string;
  /** Its use in running text. */
  match: RegExp;
}

export const GLOSSARY: readonly GlossaryTerm[] = [
  {
    id: "gi",
    term: "GI",
    abbr: "global integrity",
    definition:
      "The platform's global integrity, from 0 to 1: the integrity pulse's weighted mean of the signals it measured — the ledger, checkpoint and pulse-history checks, dataset validity, CI results, sentinel heartbeats and open security alerts — with weights in a versioned scoring file. A signal that could not be measured is left out of the mean and the pulse records which; never typed in. Not a sentinel's own score: that is its office integrity.",
    match: /\bGI\b/,
  },
  {
    id: "office-integrity",
    term: "office integrity",
    definition:
      "How sound one consensus office (a sentinel) is, from 0 to 1, as its own latest heartbeat measures it. An office needs at least 0.95 to vote or validate; the cycle records the offices' mean. Not GI, the platform's global integrity. In the API and the datasets it is the field gi (gi_score in a sentinel's performance and a proof, gi_delta for its change), names the interface specification fixes.",
    match: /\b[Oo]ffice integrity\b/,
  },
  {
    id: "mii",
    term: "MII",
    abbr: "integrity index",
    definition:
      "How well changes follow the integrity rules, from 0 to 1: the share of recent changes with CI green before merge, generated files untouched by hand and history only appended. MIC is minted only while the MII is at or above its threshold.",
    match: /\bMII\b/,
  },
  {
    id: "mic",
    term: "MIC",
    abbr: "the platform's unit of account",
    definition:
      "The unit balances, stakes and rewards are counted in. One MIC is 1,000,000 shards; amounts are exact integers of shards, written as decimal strings.",
    match: /\bMIC\b/,
  },
  {
    id: "shard",
    term: "shard",
    definition:
      "The smallest amount of MIC: one millionth of a MIC. Balances are whole numbers of shards, so no amount is ever rounded.",
    match: /\bshards?\b/,
  },
  {
    id: "sentinel",
    term: "sentinel",
    definition:
      "An agent that watches the platform and reports a heartbeat: its uptime, its office integrity and its coordination with the others. Sentinels are the offices that vote in consensus sessions.",
    match: /\b[Ss]entinels?\b/,
  },
  {
    id: "cathedral",
    term: "cathedral",
    definition:
      "The name of an audience's data area as written in the data (FOR-ECONOMISTS, DIPLOMACY, …): each area, and each sentinel, belongs to one cathedral.",
    match: /\b[Cc]athedrals?\b/,
  },
  {
    id: "cycle",
    term: "cycle",
    definition:
      "A day of the platform, numbered C-<n> from a configured genesis (2025-12-01 is C-151). Pulses, sessions and rewards are dated by cycle.",
    match: /\bC-[1-9][0-9]*\b/,
  },
  {
    id: "avm",
    term: "AVM",
    abbr: "authority verification",
    definition:
      "The check that decides whether a requester holds verified, scoped, time-bounded authority: identity on the ledger, wallet signature, companion attestation, scope and duration, stake and drift. A refusal names its stage with a code AVM_001 to AVM_008.",
    match: /\bAVM\b/,
  },
  {
    id: "pulse",
    term: "pulse",
    definition:
      "One signed measurement of GI and MII with the inputs that produced it, appended to the pulse history; the timeline and the badge are drawn from it.",
    match: /\b[Pp]ulses?\b/,
  },
  {
    id: "ledger",
    term: "ledger",
    definition:
      "The append-only, tamper-evident record under everything: a hash-chained RFC 9162 Merkle log with signed checkpoints, so anyone can check a download offline.",
    match: /\b[Ll]edger\b/,
  },
];

/** A term by its id; throws for an unknown id (a page asking for a term that is not defined). */
export function glossaryTerm(id: string): GlossaryTerm {
  const term = GLOSSARY.find((t) => t.id === id);
  if (!term) throw new Error(`no glossary term ${id}`);
  return term;
}
