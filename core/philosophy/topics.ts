/**
 * How close a scenario is to a past deliberation's topic: both are reduced to sets of content words
 * (lower case, letters and digits, at least three characters, common function words dropped, a
 * plural `s` removed), and compared by Jaccard similarity |A ∩ B| / |A ∪ B| in [0, 1].
 * Deterministic and locale-independent (`toLowerCase`, not `toLocaleLowerCase`).
 */

const STOPWORDS = new Set([
  "about",
  "after",
  "against",
  "all",
  "also",
  "and",
  "any",
  "are",
  "before",
  "but",
  "can",
  "could",
  "does",
  "each",
  "for",
  "from",
  "had",
  "has",
  "have",
  "how",
  "into",
  "its",
  "may",
  "more",
  "most",
  "must",
  "not",
  "now",
  "off",
  "once",
  "only",
  "our",
  "out",
  "over",
  "own",
  "per",
  "same",
  "shall",
  "should",
  "such",
  "than",
  "that",
  "the",
  "their",
  "them",
  "then",
  "there",
  "these",
  "they",
  "this",
  "those",
  "too",
  "under",
  "until",
  "upon",
  "very",
  "was",
  "were",
  "what",
  "when",
  "where",
  "which",
  "while",
  "who",
  "why",
  "will",
  "with",
  "would",
  "yet",
  "you",
  "your",
]);

const WORD = /[\p{L}\p{N}]+/gu;

function stem(word: string): string {
  if (word.length > 4 && word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (word.length > 3 && word.endsWith("s") && !word.endsWith("ss")) return word.slice(0, -1);
  return word;
}

/** The content words of a text, as a set. */
export function topicTokens(text: string): Set<string> {
  const tokens = new Set<string>();
  for (const match of text.toLowerCase().matchAll(WORD)) {
    const word = match[0];
    if (word.length < 3 || STOPWORDS.has(word)) continue;
    tokens.add(stem(word));
  }
  return tokens;
}

/** Jaccard similarity of two token sets; 0 when either is empty. */
export function relevance(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let shared = 0;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  for (const token of small) if (large.has(token)) shared += 1;
  return shared / (a.size + b.size - shared);
}
