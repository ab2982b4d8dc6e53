/** The archive's search parameters as the gateway reads them from a query string. */
import { describe, expect, it } from "vitest";
import { activityBucketStart, OPERATIONS, parseHttpParams, upstreamListingFilters } from "../src/index.ts";

const parse = (operation: keyof typeof OPERATIONS, query: Record<string, string>) =>
  parseHttpParams<Record<string, unknown>>(OPERATIONS[operation], query);

describe("boolean filters", () => {
  it("take the upstream's forms in any case, and nothing else", () => {
    for (const [form, value] of [
      ["true", true],
      ["1", true],
      ["YES", true],
      ["y", true],
      ["false", false],
      ["0", false],
      ["No", false],
      ["n", false],
    ] as const) {
      expect(parse("listPosts", { subreddit: "abc", over_18: form })).toMatchObject({
        ok: true,
        value: { over_18: value },
      });
    }
    for (const form of ["", "maybe", "2", "truee", "on"]) {
      expect(parse("listPosts", { subreddit: "abc", spoiler: form })).toMatchObject({
        ok: false,
        error: /parameter 'spoiler' must be one of true, false, 1, 0, yes, no, y, n/,
      });
    }
  });

  it("are ignored with the other listing parameters in batch mode", () => {
    expect(parse("listPosts", { ids: "abc", over_18: "maybe", url_exact: "?" })).toMatchObject({ ok: true });
  });
});

describe("comment filters", () => {
  it("normalise link_id to a bare post id and parent_id to a fullname, empty meaning top level", () => {
    expect(parse("listComments", { link_id: "T3_AbC", parent_id: "" })).toMatchObject({
      ok: true,
      value: { link_id: "abc", parent_id: "" },
    });
    expect(parse("listComments", { parent_id: "def" })).toMatchObject({
      ok: true,
      value: { parent_id: "t1_def" },
    });
    expect(parse("listComments", { parent_id: "" })).toMatchObject({
      ok: false,
      error: /give at least one of/,
    });
    expect(parse("listComments", { link_id: "t1_abc" })).toMatchObject({ ok: false, error: /'link_id'/ });
  });

  it("send a post's top level in the upstream's documented form", () => {
    expect(upstreamListingFilters({ parent_id: "t3_abc" })).toEqual({ link_id: "abc", parent_id: "" });
    expect(upstreamListingFilters({ parent_id: "t1_def", over_18: false })).toEqual({
      parent_id: "t1_def",
      over_18: "false",
    });
  });
});

describe("user search and activity", () => {
  it("keeps a user page within the first 1,000 ranked users", () => {
    expect(parse("searchUsers", { offset: "975", limit: "25" })).toMatchObject({ ok: true });
    expect(parse("searchUsers", { offset: "976", limit: "25" })).toMatchObject({
      ok: false,
      error: /'offset'/,
    });
  });

  it("limits an activity window to 1,000 buckets", () => {
    const after = 1_790_002_800; // on the hour
    const hours = (n: number) => String(after + n * 3600);
    expect(
      parse("getActivity", { subreddit: "abc", interval: "hour", after: String(after), before: hours(1000) }),
    ).toMatchObject({ ok: true });
    expect(
      parse("getActivity", { subreddit: "abc", interval: "hour", after: String(after), before: hours(1001) }),
    ).toMatchObject({ ok: false, error: /at most 1000/ });
  });

  it("starts buckets on UTC hours, days and Mondays", () => {
    const wednesdayNoon = Date.UTC(2026, 10, 25, 12, 30) / 1000;
    expect(activityBucketStart(wednesdayNoon, "hour")).toBe(Date.UTC(2026, 10, 25, 12) / 1000);
    expect(activityBucketStart(wednesdayNoon, "day")).toBe(Date.UTC(2026, 10, 25) / 1000);
    expect(activityBucketStart(wednesdayNoon, "week")).toBe(Date.UTC(2026, 10, 23) / 1000);
  });
});
