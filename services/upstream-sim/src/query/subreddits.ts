import type { Corpus, Rule, Subreddit } from "../corpus/types.ts";
import { Messages } from "../errors.ts";
import { SELECTABLE } from "./fields.ts";
import type { ParamReader } from "./params.ts";
import type { Sort } from "./slices.ts";
import { SORTS } from "./slices.ts";

const SORT_TYPES = ["subscribers", "created_utc", "subreddit"] as const;
type SubredditSortType = (typeof SORT_TYPES)[number];

/** Parameters of /api/subreddits/search; defaults from the upstream README. */
export interface SubredditSearch {
  readonly subreddit?: string | undefined;
  readonly prefix?: string | undefined;
  readonly after?: number | undefined;
  readonly before?: number | undefined;
  readonly minSubscribers?: number | undefined;
  readonly maxSubscribers?: number | undefined;
  readonly over18?: boolean | undefined;
  readonly limit: number;
  readonly sort: Sort;
  readonly sortType: SubredditSortType;
  readonly fields?: string[] | undefined;
}

export function readSubredditSearch(reader: ParamReader): SubredditSearch {
  return {
    subreddit: reader.name("subreddit", "r")?.toLowerCase(),
    prefix: reader.name("subreddit_prefix", "r")?.toLowerCase(),
    after: reader.date("after"),
    before: reader.date("before"),
    minSubscribers: reader.int("min_subscribers", 0),
    maxSubscribers: reader.int("max_subscribers", 0),
    over18: reader.bool("over18"),
    limit: reader.limit(1000, 25, false),
    sort: reader.choice("sort", SORTS, "desc"),
    sortType: reader.choice("sort_type", SORT_TYPES, "subscribers"),
    fields: reader.fields(SELECTABLE.subreddits),
  };
}

export function searchSubreddits(corpus: Corpus, search: SubredditSearch): Subreddit[] {
  const direction = search.sort === "asc" ? 1 : -1;
  return corpus.subreddits
    .filter((sub) => matches(sub, search))
    .sort((a, b) => direction * compare(a, b, search.sortType))
    .slice(0, search.limit);
}

function matches(sub: Subreddit, search: SubredditSearch): boolean {
  const name = sub.name.toLowerCase();
  if (search.subreddit !== undefined && name !== search.subreddit) return false;
  if (search.prefix !== undefined && !name.startsWith(search.prefix)) return false;
  if (search.after !== undefined && !(sub.createdUtc > search.after)) return false;
  if (search.before !== undefined && !(sub.createdUtc < search.before)) return false;
  if (search.minSubscribers !== undefined && sub.subscribers < search.minSubscribers) return false;
  if (search.maxSubscribers !== undefined && sub.subscribers > search.maxSubscribers) return false;
  return search.over18 === undefined || sub.over18 === search.over18;
}

function compare(a: Subreddit, b: Subreddit, sortType: SubredditSortType): number {
  if (sortType === "subscribers") return a.subscribers - b.subscribers;
  if (sortType === "created_utc") return a.createdUtc - b.createdUtc;
  const x = a.name.toLowerCase();
  const y = b.name.toLowerCase();
  return x < y ? -1 : x > y ? 1 : 0;
}

export interface RulesEntry {
  readonly subreddit: string;
  readonly rules: readonly Rule[];
}

/** /api/subreddits/rules: `subreddits` is required, at most 1000 names. */
export function readRulesRequest(reader: ParamReader): string[] | undefined {
  const names = reader.list("subreddits", 1000);
  if (names === undefined || names.length === 0) return reader.fail(Messages.missingParam("subreddits"));
  return names.map((name) => name.replace(/^\/?r\//i, "").toLowerCase());
}

/** One entry per known subreddit, in request order; unknown names are left out. */
export function rulesFor(corpus: Corpus, names: readonly string[]): RulesEntry[] {
  const seen = new Set<number>();
  const entries: RulesEntry[] = [];
  for (const name of names) {
    const index = corpus.index.subByName.get(name);
    const sub = index === undefined ? undefined : corpus.subreddits[index];
    if (sub === undefined || seen.has(sub.index)) continue;
    seen.add(sub.index);
    entries.push({ subreddit: sub.name, rules: sub.rules });
  }
  return entries;
}
