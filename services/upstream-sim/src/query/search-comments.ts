import type { Corpus } from "../corpus/types.ts";
import { Messages } from "../errors.ts";
import { bodyOf } from "../render/item-text.ts";
import type { OutputOptions } from "../render/renderer.ts";
import type { Filter } from "./candidates.ts";
import { groupFilter, namedFilter, pickCandidate } from "./candidates.ts";
import { SELECTABLE } from "./fields.ts";
import type { KeywordMatcher } from "./keyword.ts";
import { parseKeywords } from "./keyword.ts";
import { findComment, findPost, parseId } from "./lookup.ts";
import type { ParamReader } from "./params.ts";
import type { Sort } from "./slices.ts";
import { collect, narrow, SORTS, wholeSlice } from "./slices.ts";

/** `parent_id`: "" (top level), a post (t3_, its top level) or a comment. */
type ParentFilter = { kind: "top" } | { kind: "post" | "comment"; idNum: number };

/** Parameters of /api/comments/search (docs/upstream.md#post-and-comment-search). */
export interface CommentSearch {
  readonly author?: string | undefined;
  readonly subreddit?: string | undefined;
  readonly linkId?: number | undefined;
  readonly parent?: ParentFilter | undefined;
  readonly after?: number | undefined;
  readonly before?: number | undefined;
  readonly limit: number;
  readonly sort: Sort;
  readonly body?: KeywordMatcher | undefined;
  readonly authorFlair?: KeywordMatcher | undefined;
  readonly output: OutputOptions;
}

/** Default sort `desc`, as for posts (see readPostSearch). */
export function readCommentSearch(reader: ParamReader): CommentSearch {
  const search: CommentSearch = {
    author: reader.name("author", "u"),
    subreddit: reader.name("subreddit", "r"),
    linkId: readLinkId(reader),
    parent: readParent(reader),
    after: reader.date("after"),
    before: reader.date("before"),
    limit: reader.limit(100, 25, true),
    sort: reader.choice("sort", SORTS, "desc"),
    body: keyword(reader, "body"),
    authorFlair: keyword(reader, "author_flair_text"),
    output: { fields: reader.fields(SELECTABLE.comments), md2html: reader.bool("md2html") ?? false },
  };
  reader.choice("sort_type", ["default", "created_utc"], "default");
  const keywordParam = search.body ? "body" : search.authorFlair ? "author_flair_text" : undefined;
  if (keywordParam && !isScoped(search)) {
    reader.fail(Messages.needsFilter(keywordParam, "'author', 'subreddit', 'link_id' or 'parent_id'"));
  }
  return search;
}

/** Keyword search needs a narrowing filter; `parent_id=` alone (all top-level comments) is not one. */
function isScoped(search: CommentSearch): boolean {
  if (search.author || search.subreddit || search.linkId !== undefined) return true;
  return search.parent !== undefined && search.parent.kind !== "top";
}

function keyword(reader: ParamReader, name: string): KeywordMatcher | undefined {
  const text = reader.word(name);
  return text === undefined ? undefined : parseKeywords(text);
}

function readLinkId(reader: ParamReader): number | undefined {
  const text = reader.word("link_id");
  if (text === undefined) return undefined;
  return parseId(text, "t3") ?? reader.fail(Messages.invalidParam("link_id", "must be a base36 post id"));
}

function readParent(reader: ParamReader): ParentFilter | undefined {
  const text = reader.text("parent_id")?.trim();
  if (text === undefined) return undefined;
  if (text === "") return { kind: "top" };
  const kind = /^t3_/i.test(text) ? "post" : "comment";
  const idNum = parseId(text, kind === "post" ? "t3" : "t1");
  if (idNum === undefined)
    return reader.fail(Messages.invalidParam("parent_id", "must be a base36 id or empty"));
  return { kind, idNum };
}

/** Matching comment indexes, in the requested order; `notYet`: comments the archive has not ingested yet. */
export function searchComments(
  corpus: Corpus,
  search: CommentSearch,
  now: number,
  notYet?: (comment: number) => boolean,
): number[] {
  const filters = commentFilters(corpus, search, now);
  if (notYet) filters.push((c) => !notYet(c));
  const candidate = pickCandidate(filters, wholeSlice(corpus.index.allComments));
  if (candidate === undefined) return [];
  const slice = narrow(candidate.slice, corpus.comments.created, corpus.anchor, search, now);
  return collect(slice, search.sort, search.limit, candidate.accept);
}

function commentFilters(corpus: Corpus, search: CommentSearch, now: number): Filter[] {
  const { comments, index, posts } = corpus;
  const filters: Filter[] = [];
  const authorOf = (c: number) => comments.author[c] as number;
  const subOf = (c: number) => posts.sub[comments.post[c] as number] as number;
  if (search.author !== undefined) {
    filters.push(namedFilter(index.authorByName, search.author, index.commentsByAuthor, authorOf));
  }
  if (search.subreddit !== undefined) {
    filters.push(namedFilter(index.subByName, search.subreddit, index.commentsBySub, subOf));
  }
  if (search.linkId !== undefined) filters.push(linkFilter(corpus, search.linkId, now));
  if (search.parent !== undefined) filters.push(parentFilter(corpus, search.parent, now));
  if (search.body) filters.push(textFilter(search.body, (c) => bodyOf(corpus, c)));
  if (search.authorFlair) {
    filters.push(textFilter(search.authorFlair, (c) => corpus.authors[authorOf(c)]?.flair ?? ""));
  }
  return filters;
}

function linkFilter(corpus: Corpus, linkId: number, now: number): Filter {
  const post = findPost(corpus, linkId, now);
  return post < 0
    ? "none"
    : groupFilter(corpus.index.commentsByPost, post, (c) => corpus.comments.post[c] as number);
}

/** `parent_id`: "" is every top-level comment; t3_ one post's top level; else a comment's replies. */
function parentFilter(corpus: Corpus, parent: ParentFilter, now: number): Filter {
  const { comments, index } = corpus;
  const parentOf = (c: number) => comments.parent[c] as number;
  if (parent.kind === "top") {
    return { slice: wholeSlice(index.topLevelComments), accept: (c) => parentOf(c) < 0 };
  }
  if (parent.kind === "post") {
    const post = findPost(corpus, parent.idNum, now);
    const topLevelOf = (c: number) => (parentOf(c) < 0 ? (comments.post[c] as number) : -1);
    return post < 0 ? "none" : groupFilter(index.topLevelByPost, post, topLevelOf);
  }
  const comment = findComment(corpus, parent.idNum, now);
  return comment < 0 ? "none" : groupFilter(index.childrenByComment, comment, parentOf);
}

function textFilter(matcher: KeywordMatcher, text: (c: number) => string): Filter {
  return (c) => matcher(text(c));
}
