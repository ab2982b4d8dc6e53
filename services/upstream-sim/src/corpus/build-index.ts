import type { Author, CommentTable, CorpusIndex, Groups, PostTable, Subreddit } from "./types.ts";

/**
 * Groups items 0..count-1 by key (CSR layout). Items are visited in time order,
 * so every group comes out time-ordered and can be binary-searched by created_utc.
 * A negative key leaves the item out.
 */
function groupBy(count: number, groupCount: number, keyOf: (item: number) => number): Groups {
  const offsets = new Int32Array(groupCount + 1);
  for (let i = 0; i < count; i++) {
    const key = keyOf(i);
    if (key >= 0) offsets[key + 1] = (offsets[key + 1] as number) + 1;
  }
  for (let g = 0; g < groupCount; g++) offsets[g + 1] = (offsets[g + 1] as number) + (offsets[g] as number);
  const cursor = offsets.slice(0, groupCount);
  const items = new Int32Array(offsets[groupCount] as number);
  for (let i = 0; i < count; i++) {
    const key = keyOf(i);
    if (key < 0) continue;
    items[cursor[key] as number] = i;
    cursor[key] = (cursor[key] as number) + 1;
  }
  return { offsets, items };
}

function identity(count: number): Int32Array {
  const out = new Int32Array(count);
  for (let i = 0; i < count; i++) out[i] = i;
  return out;
}

export function buildIndex(
  subs: readonly Subreddit[],
  authors: readonly Author[],
  posts: PostTable,
  comments: CommentTable,
): CorpusIndex {
  const commentSub = (c: number) => posts.sub[comments.post[c] as number] as number;
  const topLevelByPost = groupBy(comments.count, posts.count, (c) =>
    (comments.parent[c] as number) < 0 ? (comments.post[c] as number) : -1,
  );
  return {
    subByName: new Map(subs.map((sub) => [sub.name.toLowerCase(), sub.index])),
    authorByName: new Map(authors.map((author, i) => [author.name.toLowerCase(), i])),
    allPosts: identity(posts.count),
    allComments: identity(comments.count),
    topLevelComments: groupBy(comments.count, 1, (c) => ((comments.parent[c] as number) < 0 ? 0 : -1)).items,
    postsBySub: groupBy(posts.count, subs.length, (p) => posts.sub[p] as number),
    postsByAuthor: groupBy(posts.count, authors.length, (p) => posts.author[p] as number),
    commentsBySub: groupBy(comments.count, subs.length, commentSub),
    commentsByAuthor: groupBy(comments.count, authors.length, (c) => comments.author[c] as number),
    commentsByPost: groupBy(comments.count, posts.count, (c) => comments.post[c] as number),
    topLevelByPost,
    childrenByComment: groupBy(comments.count, comments.count, (c) => comments.parent[c] as number),
  };
}
