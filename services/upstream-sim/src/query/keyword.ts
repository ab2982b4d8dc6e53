/**
 * A small take on Postgres `websearch_to_tsquery`, which the upstream documents
 * for its keyword parameters: words are ANDed, "quoted words" must be adjacent,
 * `a OR b` takes either, `-word` excludes. Matching is on whole words, ignoring
 * case; there is no stemming.
 */
export type KeywordMatcher = (text: string) => boolean;

interface Term {
  readonly words: readonly string[];
  readonly negate: boolean;
}

const TOKEN = /(-?)"([^"]*)"|(\S+)/g;

function tokenize(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

export function parseKeywords(input: string): KeywordMatcher | undefined {
  const clauses: Term[][] = [];
  let joinNext = false;
  for (const match of input.matchAll(TOKEN)) {
    if (match[3] === "OR") {
      joinNext = clauses.length > 0;
      continue;
    }
    const term = toTerm(match);
    if (term.words.length === 0) continue;
    if (joinNext) clauses[clauses.length - 1]?.push(term);
    else clauses.push([term]);
    joinNext = false;
  }
  return clauses.length === 0 ? undefined : (text) => matches(clauses, tokenize(text));
}

function toTerm(match: RegExpMatchArray): Term {
  if (match[2] !== undefined) return { words: tokenize(match[2]), negate: match[1] === "-" };
  const raw = match[3] ?? "";
  const negate = raw.startsWith("-") && raw.length > 1;
  return { words: tokenize(negate ? raw.slice(1) : raw), negate };
}

function matches(clauses: readonly Term[][], words: readonly string[]): boolean {
  return clauses.every((clause) => clause.some((term) => containsPhrase(words, term.words) !== term.negate));
}

function containsPhrase(words: readonly string[], phrase: readonly string[]): boolean {
  for (let i = 0; i + phrase.length <= words.length; i++) {
    if (phrase.every((word, k) => words[i + k] === word)) return true;
  }
  return false;
}
