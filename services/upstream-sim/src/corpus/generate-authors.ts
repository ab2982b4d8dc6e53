import { AUTHOR } from "./constants.ts";
import type { Rng } from "./prng.ts";
import { chance, cumulative, intBetween, pick } from "./prng.ts";
import type { Author } from "./types.ts";
import { FLAIR_TEXTS, USERNAME_PARTS } from "./words.ts";

/** docs/upstream.md#response-shapes: 15–20% of active commenters were missing from the user index. */
const MISSING_FROM_INDEX = 0.15;
/** Share of indexed users whose id is null ("inactive in recent years"). */
const NULL_INDEX_ID = 0.06;

export interface AuthorPool {
  readonly authors: Author[];
  /** Cumulative activity weights for picking a random author (0 for the placeholders). */
  readonly weights: Float64Array;
}

export function generateAuthors(rng: Rng, count: number): AuthorPool {
  const authors: Author[] = [placeholder("[deleted]"), bot("AutoModerator")];
  const taken = new Set(authors.map((author) => author.name.toLowerCase()));
  while (authors.length < count) authors.push(randomAuthor(rng, taken));
  const weights = authors.map((_, i) => (i <= AUTHOR.automoderator ? 0 : 1 / i ** 0.9));
  return { authors, weights: cumulative(weights) };
}

function placeholder(name: string): Author {
  return { name, accountId: null, indexed: false, indexId: null, flair: null, premium: false };
}

function bot(name: string): Author {
  return { name, accountId: "6l4z3", indexed: true, indexId: "6l4z3", flair: null, premium: false };
}

function randomAuthor(rng: Rng, taken: Set<string>): Author {
  const name = uniqueName(rng, taken);
  const accountId = intBetween(rng, 36 ** 5, 36 ** 8 - 1).toString(36);
  const indexed = !chance(rng, MISSING_FROM_INDEX);
  return {
    name,
    accountId,
    indexed,
    indexId: indexed && !chance(rng, NULL_INDEX_ID) ? accountId : null,
    flair: chance(rng, 0.15) ? pick(rng, FLAIR_TEXTS) : null,
    premium: chance(rng, 0.05),
  };
}

function uniqueName(rng: Rng, taken: Set<string>): string {
  for (;;) {
    const name = usernameCandidate(rng);
    const key = name.toLowerCase();
    if (name.length >= 3 && name.length <= 20 && !taken.has(key)) {
      taken.add(key);
      return name;
    }
  }
}

const cap = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1);

/** A mix of the styles seen on Reddit, including its auto-generated Word_Word_1234 names. */
function usernameCandidate(rng: Rng): string {
  const a = pick(rng, USERNAME_PARTS);
  const b = pick(rng, USERNAME_PARTS);
  const n = intBetween(rng, 1, 9999);
  switch (intBetween(rng, 0, 6)) {
    case 0:
      return `${cap(a)}${cap(b)}${n}`;
    case 1:
      return `${a}_${b}`;
    case 2:
      return `${cap(a)}-${cap(b)}-${n}`;
    case 3:
      return `throwaway${intBetween(rng, 100, 999_999)}`;
    case 4:
      return `${cap(a)}_${cap(b)}_${n}`;
    case 5:
      return `${a}${b}`;
    default:
      return `the_${a}_${b}`;
  }
}
