/** Epoch fields answered as integers whatever form the upstream sends them in (docs/upstream.md#assumptions). */
import { describe, expect, it } from "vitest";
import { epochSeconds, withIntegerEpochs } from "../src/start-adapter.ts";

describe("integer epochs", () => {
  it("reads integers, fractions and numeric strings as whole seconds, and nothing else", () => {
    expect(epochSeconds(1_400_000_000)).toBe(1_400_000_000);
    expect(epochSeconds("1400000000")).toBe(1_400_000_000);
    expect(epochSeconds("1400000000.0")).toBe(1_400_000_000);
    expect(epochSeconds(1_400_000_000.7)).toBe(1_400_000_000);
    expect(epochSeconds(false)).toBeUndefined();
    expect(epochSeconds("yesterday")).toBeUndefined();
    expect(epochSeconds(null)).toBeUndefined();
  });

  it("fixes the epoch fields of an old item and its _meta, in a copy, leaving other fields alone", () => {
    const item = Object.freeze({
      id: "abc",
      created_utc: "1400000000",
      created: "1400000000.0",
      retrieved_on: 1_500_000_000,
      edited: false,
      score: "12",
      _meta: Object.freeze({
        retrieved_2nd_on: "1400129600",
        was_deleted_later: true,
        removal_type: "deleted",
      }),
    });
    const fixed = withIntegerEpochs(item);
    expect(fixed).toEqual({
      id: "abc",
      created_utc: 1_400_000_000,
      created: 1_400_000_000,
      retrieved_on: 1_500_000_000,
      edited: false,
      score: "12",
      _meta: { retrieved_2nd_on: 1_400_129_600, was_deleted_later: true, removal_type: "deleted" },
    });
    expect(item.created_utc).toBe("1400000000");
  });

  it("returns the very same object when every epoch is already an integer (the lean path)", () => {
    const item = {
      id: "abc",
      created_utc: 1_700_000_000,
      edited: 1_700_000_100,
      _meta: { earliest_post_at: null },
    };
    expect(withIntegerEpochs(item)).toBe(item);
  });

  it("fixes a user profile's _meta times", () => {
    const user = {
      author: "Someone",
      _meta: { earliest_post_at: "1300000000", num_posts: 4, last_comment_at: 1.7e9 },
    };
    expect(withIntegerEpochs(user)._meta).toEqual({
      earliest_post_at: 1_300_000_000,
      num_posts: 4,
      last_comment_at: 1.7e9,
    });
  });
});
