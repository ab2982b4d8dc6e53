import { compareNames } from "../corpus/aggregate-stats.ts";
import type { Corpus, UserRecord } from "../corpus/types.ts";
import type { ParamReader } from "./params.ts";
import type { Sort } from "./slices.ts";
import { SORTS } from "./slices.ts";

const SORT_TYPES = ["total_karma", "author"] as const;
type UserSortType = (typeof SORT_TYPES)[number];

/** Parameters of /api/users/search; defaults from the upstream README. */
export interface UserSearch {
  readonly author?: string | undefined;
  readonly prefix?: string | undefined;
  readonly minPosts?: number | undefined;
  readonly minComments?: number | undefined;
  readonly minKarma?: number | undefined;
  readonly activeSince?: number | undefined;
  readonly limit: number;
  readonly sort: Sort;
  readonly sortType: UserSortType;
}

export function readUserSearch(reader: ParamReader): UserSearch {
  return {
    author: reader.name("author", "u")?.toLowerCase(),
    prefix: reader.name("author_prefix", "u")?.toLowerCase(),
    minPosts: reader.int("min_num_posts", 0),
    minComments: reader.int("min_num_comments", 0),
    minKarma: reader.int("min_karma", Number.MIN_SAFE_INTEGER),
    activeSince: reader.date("active_since"),
    limit: reader.limit(1000, 25, false),
    sort: reader.choice("sort", SORTS, "desc"),
    sortType: reader.choice("sort_type", SORT_TYPES, "total_karma"),
  };
}

export function searchUsers(corpus: Corpus, search: UserSearch): UserRecord[] {
  if (search.author !== undefined) {
    const user = corpus.userByName.get(search.author);
    return user !== undefined && matches(user, search) ? [user] : [];
  }
  const direction = search.sort === "asc" ? 1 : -1;
  const byKarma = (a: UserRecord, b: UserRecord) =>
    a._meta.total_karma - b._meta.total_karma || -direction * compareNames(a.author, b.author);
  const order =
    search.sortType === "author"
      ? (a: UserRecord, b: UserRecord) => compareNames(a.author, b.author)
      : byKarma;
  return corpus.users
    .filter((user) => matches(user, search))
    .sort((a, b) => direction * order(a, b))
    .slice(0, search.limit);
}

/** `active_since`: the user's latest post or comment is at or after that date. */
function matches(user: UserRecord, search: UserSearch): boolean {
  const meta = user._meta;
  if (search.prefix !== undefined && !user.author.toLowerCase().startsWith(search.prefix)) return false;
  if (search.minPosts !== undefined && meta.num_posts < search.minPosts) return false;
  if (search.minComments !== undefined && meta.num_comments < search.minComments) return false;
  if (search.minKarma !== undefined && meta.total_karma < search.minKarma) return false;
  if (search.activeSince === undefined) return true;
  return Math.max(meta.last_post_at ?? 0, meta.last_comment_at ?? 0) >= search.activeSince;
}
