/**
 * search_users and get_activity results cut for the budget: at a whole user or bucket, with `next`
 * continuing right after the last one shown, so nothing is skipped or repeated.
 */
import { describe, expect, it } from "vitest";
import { presentActivity, presentUsers } from "../src/results/archive-results.ts";

type Content = {
  data: unknown;
  _service: Record<string, unknown>;
  next?: Record<string, unknown>;
  truncated?: string;
};

const SERVICE = { credits_used: 1, credits_remaining: 9 };
const DAY = 86_400;

function user(index: number) {
  const meta = { num_posts: 1, num_comments: 2, post_karma: 3, comment_karma: 4, total_karma: 7 };
  return { author: `user_${index}_${"x".repeat(40)}`, id: `u${index}`, _meta: meta };
}

describe("cutting search_users", () => {
  it("shows whole users within the budget and moves offset on by the number shown", () => {
    const users = Array.from({ length: 20 }, (_unused, index) => user(index));
    const args = { author_prefix: "user", limit: 20, offset: 40 };
    const service = { ...SERVICE, cursor: 60, has_more: true };
    const result = presentUsers("search_users", { data: users, _service: service }, args, 1_500);
    const content = result.structuredContent as Content;
    const shown = (content.data as unknown[]).length;
    expect(shown).toBeGreaterThan(0);
    expect(shown).toBeLessThan(20);
    expect(Buffer.byteLength(JSON.stringify(result))).toBeLessThanOrEqual(1_500);
    expect(content.next).toEqual({ ...args, offset: 40 + shown });
    expect(content._service).toMatchObject({ cursor: 40 + shown, has_more: true });
    expect(content.truncated).toMatch(/of 20 users/);
  });

  it("gives no next on the last page", () => {
    const service = { ...SERVICE, cursor: null, has_more: false };
    const result = presentUsers("search_users", { data: [user(1)], _service: service }, {}, 10_000);
    expect((result.structuredContent as Content).next).toBeUndefined();
  });
});

describe("cutting get_activity", () => {
  const start = Date.UTC(2026, 0, 1) / 1000;
  const buckets = Array.from({ length: 200 }, (_unused, index) => ({
    start: start + index * DAY,
    count: index % 7,
    settled: index < 198,
  }));
  const activity = {
    kind: "posts",
    interval: "day",
    after: start - 1,
    before: start + 200 * DAY,
    source: "aggregate",
    total: buckets.reduce((sum, bucket) => sum + bucket.count, 0),
    buckets,
  };

  it("shows whole buckets, totals what it shows, and continues one second before the next bucket", () => {
    const args = { subreddit: "abc", interval: "day", after: start - 1 };
    const result = presentActivity("get_activity", { data: activity, _service: SERVICE }, args, 3_000);
    const content = result.structuredContent as Content;
    const shown = (content.data as { buckets: { start: number; count: number }[]; total: number }).buckets;
    expect(shown.length).toBeGreaterThan(0);
    expect(shown.length).toBeLessThan(200);
    expect(Buffer.byteLength(JSON.stringify(result))).toBeLessThanOrEqual(3_000);
    expect((content.data as { total: number }).total).toBe(
      shown.reduce((sum, bucket) => sum + bucket.count, 0),
    );
    const nextStart = start + shown.length * DAY;
    expect(content.next).toEqual({ ...args, after: nextStart - 1, before: activity.before });
  });

  it("says how many buckets are not settled yet", () => {
    const result = presentActivity("get_activity", { data: activity, _service: SERVICE }, {}, 100_000);
    const text = (result.content[0] as { text: string }).text;
    expect(text).toMatch(/2 buckets less than 36 h old are marked settled: false/);
    expect((result.structuredContent as Content).next).toBeUndefined();
  });
});
