import { fromBase36 } from "../corpus/base36.ts";
import { PostFlag } from "../corpus/constants.ts";
import { Messages } from "../errors.ts";
import { selftextOf } from "../render/item-text.ts";
import { linkFlairOf, postUrl } from "../render/post.ts";
import type { OutputOptions, Renderer } from "../render/renderer.ts";
import { type Filter, namedFilter, pickCandidate } from "./candidates.ts";
import { SELECTABLE } from "./fields.ts";
import type { KeywordMatcher } from "./keyword.ts";
import { parseKeywords } from "./keyword.ts";
import type { ParamReader } from "./params.ts";
import type { Sort } from "./slices.ts";
import { collect, narrow, SORTS, wholeSlice } from "./slices.ts";

/** Parameters of /api/posts/search (docs/upstream.md#post-and-comment-search). */
export interface PostSearch {
  readonly author?: string | undefined;
  readonly subreddit?: string | undefined;
  readonly after?: number | undefined;
  readonly before?: number | undefined;
  readonly limit: number;
  readonly sort: Sort;
  readonly over18?: boolean | undefined;
  readonly spoiler?: boolean | undefined;
  readonly crosspostParent?: string | undefined;
  readonly url?: string | undefined;
  readonly urlExact: boolean;
  readonly keywords: readonly PostKeyword[];
  readonly output: OutputOptions;
}

type PostTextField = "title" | "selftext" | "query" | "link_flair_text" | "author_flair_text";

interface PostKeyword {
  readonly field: PostTextField;
  readonly matcher: KeywordMatcher;
}

const KEYWORD_PARAMS: readonly PostTextField[] = [
  "title",
  "selftext",
  "query",
  "link_flair_text",
  "author_flair_text",
];

/**
 * The default sort is `desc` (newest first): upstream does not document it, and
 * newest-first is what its subreddit/user searches default to.
 */
export function readPostSearch(reader: ParamReader): PostSearch {
  const search: PostSearch = {
    author: reader.name("author", "u"),
    subreddit: reader.name("subreddit", "r"),
    after: reader.date("after"),
    before: reader.date("before"),
    limit: reader.limit(100, 25, true),
    sort: reader.choice("sort", SORTS, "desc"),
    over18: reader.bool("over_18"),
    spoiler: reader.bool("spoiler"),
    crosspostParent: reader.word("crosspost_parent_id")?.replace(/^t3_/i, ""),
    url: reader.word("url"),
    urlExact: reader.bool("url_exact") ?? false,
    keywords: readKeywords(reader),
    output: { fields: reader.fields(SELECTABLE.posts), md2html: reader.bool("md2html") ?? false },
  };
  reader.choice("sort_type", ["default", "created_utc"], "default");
  if (search.keywords.length > 0 && !search.author && !search.subreddit) {
    reader.fail(Messages.needsFilter(search.keywords[0]?.field ?? "query", "'author' or 'subreddit'"));
  }
  return search;
}

function readKeywords(reader: ParamReader): PostKeyword[] {
  const keywords: PostKeyword[] = [];
  for (const field of KEYWORD_PARAMS) {
    const text = reader.word(field);
    const matcher = text === undefined ? undefined : parseKeywords(text);
    if (matcher) keywords.push({ field, matcher });
  }
  return keywords;
}

/** Matching post indexes, in the requested order; `notYet`: posts the archive has not ingested yet. */
export function searchPosts(
  renderer: Renderer,
  search: PostSearch,
  now: number,
  notYet?: (post: number) => boolean,
): number[] {
  const { corpus } = renderer.ctx;
  const filters = postFilters(renderer, search);
  if (notYet) filters.push((p) => !notYet(p));
  const candidate = pickCandidate(filters, wholeSlice(corpus.index.allPosts));
  if (candidate === undefined) return [];
  const slice = narrow(candidate.slice, corpus.posts.created, corpus.anchor, search, now);
  return collect(slice, search.sort, search.limit, candidate.accept);
}

function postFilters(renderer: Renderer, search: PostSearch): Filter[] {
  const { posts, index } = renderer.ctx.corpus;
  const filters: Filter[] = [];
  if (search.author !== undefined) {
    filters.push(
      namedFilter(index.authorByName, search.author, index.postsByAuthor, (p) => posts.author[p] as number),
    );
  }
  if (search.subreddit !== undefined) {
    filters.push(
      namedFilter(index.subByName, search.subreddit, index.postsBySub, (p) => posts.sub[p] as number),
    );
  }
  filters.push(...attributeFilters(renderer, search));
  return filters;
}

function attributeFilters(renderer: Renderer, search: PostSearch): Filter[] {
  const { posts } = renderer.ctx.corpus;
  const flag = (p: number, bit: number) => ((posts.flags[p] as number) & bit) !== 0;
  const filters: Filter[] = [];
  const { over18, spoiler } = search;
  if (over18 !== undefined) filters.push((p) => flag(p, PostFlag.over18) === over18);
  if (spoiler !== undefined) filters.push((p) => flag(p, PostFlag.spoiler) === spoiler);
  if (search.crosspostParent !== undefined) filters.push(crosspostFilter(renderer, search.crosspostParent));
  if (search.url !== undefined) filters.push(urlFilter(renderer, search.url, search.urlExact));
  for (const keyword of search.keywords) filters.push(keywordFilter(renderer, keyword));
  return filters;
}

function crosspostFilter(renderer: Renderer, id: string): Filter {
  const { posts } = renderer.ctx.corpus;
  const idNum = fromBase36(id);
  return (p) => {
    const parent = posts.crosspost[p] as number;
    return parent >= 0 && posts.idNum[parent] === idNum;
  };
}

/** `url` is a prefix match unless `url_exact` (docs/upstream.md#post-and-comment-search). */
function urlFilter(renderer: Renderer, url: string, exact: boolean): Filter {
  return (p) => {
    const value = postUrl(renderer.ctx, p);
    return exact ? value === url : value.startsWith(url);
  };
}

function keywordFilter(renderer: Renderer, keyword: PostKeyword): Filter {
  const { ctx } = renderer;
  const text = (p: number): string => {
    switch (keyword.field) {
      case "title":
        return ctx.titles.title(p);
      case "selftext":
        return selftextOf(ctx.corpus, p);
      case "query":
        return `${ctx.titles.title(p)}\n${selftextOf(ctx.corpus, p)}`;
      case "link_flair_text":
        return linkFlairOf(ctx, p) ?? "";
      default:
        return ctx.corpus.authors[ctx.corpus.posts.author[p] as number]?.flair ?? "";
    }
  };
  return (p) => keyword.matcher(text(p));
}
