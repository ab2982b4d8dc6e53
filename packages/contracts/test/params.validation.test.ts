import { describe, expect, it } from "vitest";
import { OPERATIONS, parseHttpParams } from "../src/index.ts";

const parsePosts = (query: Record<string, string | string[]>) => parseHttpParams(OPERATIONS.listPosts, query);
const parseComments = (query: Record<string, string>) => parseHttpParams(OPERATIONS.listComments, query);

describe("listPosts parameters", () => {
  it("applies the spec's defaults: limit 25, sort desc", () => {
    expect(parsePosts({ subreddit: "AskHistorians" })).toEqual({
      ok: true,
      value: { subreddit: "AskHistorians", limit: 25, sort: "desc" },
    });
  });

  it("rejects a request with none of subreddit, author or ids", () => {
    expect(parsePosts({ limit: "5" })).toEqual({
      ok: false,
      error: "give at least one of subreddit, author or ids",
    });
  });

  it.each([["0"], ["101"], ["1.5"], ["ten"], ["-3"], [""]])(
    "rejects limit=%s naming the parameter",
    (limit) => {
      expect(parsePosts({ subreddit: "abc", limit })).toEqual({
        ok: false,
        error: "parameter 'limit' must be an integer from 1 to 100",
      });
    },
  );

  it("rejects an unknown sort and an unknown parameter", () => {
    expect(parsePosts({ subreddit: "abc", sort: "top" })).toMatchObject({
      ok: false,
      error: /'sort' must be asc or desc/,
    });
    expect(parsePosts({ subreddit: "abc", subredit: "x" })).toEqual({
      ok: false,
      error: "unknown parameter 'subredit'",
    });
  });

  // Names that are properties of every JavaScript object: each is as unknown as a typo, including
  // `__proto__`, which a plain object would swallow as its prototype instead of keeping as a key.
  it.each([
    ["__proto__"],
    ["constructor"],
    ["prototype"],
    ["hasOwnProperty"],
    ["toString"],
    ["__defineGetter__"],
  ])("rejects %s as an unknown parameter", (name) => {
    // JSON.parse keeps `__proto__` as an own key, as the HTTP query parser does.
    const query = JSON.parse(`{"subreddit": "abc", "${name}": "1"}`) as Record<string, string>;
    expect(parsePosts(query)).toEqual({ ok: false, error: `unknown parameter '${name}'` });
  });

  it("rejects a parameter given twice", () => {
    expect(parsePosts({ subreddit: ["a1", "b2"] })).toEqual({
      ok: false,
      error: "parameter 'subreddit' must be given once",
    });
  });

  it("strips r/ and u/ prefixes and refuses names with other characters", () => {
    expect(parsePosts({ subreddit: "r/rust", author: "u/spez" })).toMatchObject({
      ok: true,
      value: { subreddit: "rust", author: "spez" },
    });
    expect(parsePosts({ subreddit: "no spaces" })).toMatchObject({
      ok: false,
      error: /parameter 'subreddit'/,
    });
    expect(parsePosts({ author: "bad/name" })).toMatchObject({ ok: false, error: /parameter 'author'/ });
  });

  it("normalises ids: drops t3_, lowercases, keeps only the first 100", () => {
    const ids = Array.from({ length: 120 }, (_, i) => `t3_${(i + 1000).toString(36).toUpperCase()}`).join(
      ",",
    );
    const parsed = parsePosts({ ids });
    expect(parsed.ok).toBe(true);
    const kept = (parsed as { value: { ids: string } }).value.ids.split(",");
    expect(kept).toHaveLength(100);
    expect(kept[0]).toBe((1000).toString(36));
  });

  it("fails the whole batch on one invalid id, and on a comment id given to posts", () => {
    expect(parsePosts({ ids: "abc,d-e,fgh" })).toMatchObject({ ok: false, error: /'ids' contains 'd-e'/ });
    expect(parsePosts({ ids: "abc,t1_def" })).toMatchObject({
      ok: false,
      error: /'t1_def', which is not a post id/,
    });
    expect(parseComments({ ids: "t1_def,ghi" })).toMatchObject({ ok: true, value: { ids: "def,ghi" } });
  });

  it("ignores, and so does not validate, the listing parameters in batch mode (docs/api.md#endpoints)", () => {
    expect(
      parsePosts({ ids: "abc", subreddit: "x", sort: "sideways", q: "", after: "soon", limit: "3" }),
    ).toEqual({
      ok: true,
      value: { ids: "abc", limit: 3, sort: "desc" },
    });
    expect(parsePosts({ ids: "abc", limit: "0" })).toMatchObject({ ok: false, error: /'limit'/ });
    expect(parsePosts({ subreddit: "x" })).toMatchObject({ ok: false, error: /'subreddit'/ });
  });

  it("accepts fields the objects have, including ones the upstream cannot project, and refuses typos", () => {
    expect(parsePosts({ subreddit: "abc", fields: "id, title,permalink,id" })).toMatchObject({
      ok: true,
      value: { fields: "id,title,permalink" },
    });
    expect(parsePosts({ subreddit: "abc", fields: "id,titel" })).toMatchObject({
      ok: false,
      error: /'titel' is not a post field/,
    });
    expect(parseComments({ subreddit: "abc", fields: "title" })).toMatchObject({
      ok: false,
      error: /not a comment field/,
    });
  });

  it("refuses an empty q and a q that is only spaces", () => {
    expect(parsePosts({ subreddit: "abc", q: "" })).toMatchObject({
      ok: false,
      error: "parameter 'q' must not be empty",
    });
    expect(parsePosts({ subreddit: "abc", q: "   " })).toMatchObject({
      ok: false,
      error: "parameter 'q' must not be empty",
    });
  });

  it("refuses after later than before in listing mode", () => {
    expect(parsePosts({ subreddit: "abc", after: "1700000100", before: "1700000000" })).toMatchObject({
      ok: false,
      error: "parameter 'after' must be earlier than before",
    });
  });

  it("is idempotent: the normalised output parses to itself, so adapters can re-validate it", () => {
    const first = parsePosts({
      subreddit: "r/abc",
      after: "7d",
      ids: "T3_abc",
      fields: "title",
      q: " cats ",
    });
    expect(first.ok).toBe(true);
    const params = (first as { value: unknown }).value;
    expect(OPERATIONS.listPosts.params.parse(params)).toEqual(params);
  });
});

describe("path and single-purpose parameters", () => {
  it("checks the community name pattern of the rules path", () => {
    expect(parseHttpParams(OPERATIONS.getSubredditRules, {}, { name: "ab" })).toMatchObject({ ok: false });
    expect(parseHttpParams(OPERATIONS.getSubredditRules, {}, { name: "a".repeat(22) })).toMatchObject({
      ok: false,
    });
    expect(parseHttpParams(OPERATIONS.getSubredditRules, {}, { name: "Ask_Science1" })).toMatchObject({
      ok: true,
    });
  });

  it("accepts a rules name written r/AskReddit, as the listing filters do, and strips the prefix", () => {
    const parsed = parseHttpParams(OPERATIONS.getSubredditRules, {}, { name: "r/AskReddit" });
    expect(parsed).toEqual({ ok: true, value: { name: "AskReddit" } });
    expect(OPERATIONS.getSubredditRules.params.parse({ name: "AskReddit" })).toEqual({ name: "AskReddit" });
    expect(parseHttpParams(OPERATIONS.getSubredditRules, {}, { name: "r/ab" })).toMatchObject({ ok: false });
  });

  it("checks the username pattern of the user path, hyphens allowed", () => {
    expect(parseHttpParams(OPERATIONS.getUserProfile, {}, { name: "some-user_1" })).toMatchObject({
      ok: true,
    });
    expect(parseHttpParams(OPERATIONS.getUserProfile, {}, { name: "x".repeat(65) })).toMatchObject({
      ok: false,
    });
    expect(parseHttpParams(OPERATIONS.getUserProfile, {}, { name: "bad.name" })).toMatchObject({
      ok: false,
      error: "parameter 'name' must be 3 to 64 letters, digits, underscores or hyphens",
    });
  });

  it("requires post_id on the tree, accepts t3_, bounds limit to 1..500 with default 50", () => {
    expect(parseHttpParams(OPERATIONS.getCommentTree, {})).toMatchObject({
      ok: false,
      error: /'post_id' is required/,
    });
    expect(parseHttpParams(OPERATIONS.getCommentTree, { post_id: "t3_1abc" })).toEqual({
      ok: true,
      value: { post_id: "1abc", limit: 50 },
    });
    expect(parseHttpParams(OPERATIONS.getCommentTree, { post_id: "1abc", limit: "501" })).toMatchObject({
      ok: false,
    });
    expect(parseHttpParams(OPERATIONS.getCommentTree, { post_id: "t1_1abc" })).toMatchObject({ ok: false });
  });

  it("requires q on community search and refuses a q that cannot be a name prefix", () => {
    expect(parseHttpParams(OPERATIONS.searchSubreddits, {})).toMatchObject({
      ok: false,
      error: /'q' is required/,
    });
    expect(parseHttpParams(OPERATIONS.searchSubreddits, { q: "ask science" })).toMatchObject({ ok: false });
    expect(parseHttpParams(OPERATIONS.searchSubreddits, { q: "r/ask" })).toEqual({
      ok: true,
      value: { q: "ask", limit: 10, sort: "desc", sort_type: "subscribers" },
    });
  });

  it("takes no parameters on the account endpoint", () => {
    expect(parseHttpParams(OPERATIONS.getAccount, {})).toEqual({ ok: true, value: {} });
    expect(parseHttpParams(OPERATIONS.getAccount, { limit: "5" })).toMatchObject({ ok: false });
  });
});
