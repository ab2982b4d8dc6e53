/** Upstream faults reach the gateway as the right reply outcome (architecture.md: 400/429/502, refunded). */
import { simControl } from "@rda/upstream-client/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type Harness, type Row, startHarness } from "./harness.ts";

let harness: Harness;
let control: ReturnType<typeof simControl>;
let subreddit: string;

beforeAll(async () => {
  harness = await startHarness(8, 0.05, { deadlineMs: 1_500, maxRetries: 2, busyWaitMs: 20 });
  control = simControl(harness.sim.url);
  subreddit = harness.sim.probe
    .subredditNames()
    .find((name) => harness.sim.probe.posts({ subreddit: name }, 50).length >= 50)!;
});
afterAll(() => harness.close());
afterEach(() => control.clearFaults());

describe("adapter-posts under upstream faults", () => {
  it("judges has_more against the halved limit after a busy answer, so the walk goes on", async () => {
    await control.addFault({ mode: "busy", count: 1, path: "/api/posts/search" });
    // The full page of 100 is asked for; the busy retry halves it to 50, fewer than the 80 asked.
    const answer = await harness.posts({ subreddit, limit: 80 });
    expect(answer.meta).toMatchObject({ outcome: "ok", has_more: true });
    expect((answer.data as Row[]).length).toBeLessThanOrEqual(50);
  });

  it("answers unavailable when the upstream sends garbage past the retries", async () => {
    await control.addFault({ mode: "garbage", path: "/api/posts/search" });
    expect((await harness.posts({ subreddit })).meta.outcome).toBe("unavailable");
  });

  it("answers unavailable for a batch when the upstream errors past the retries", async () => {
    await control.addFault({ mode: "error", path: "/api/comments/ids" });
    expect((await harness.comments({ ids: "abc,def" })).meta.outcome).toBe("unavailable");
  });

  it("answers rate_limited with retry-after seconds when the upstream's 429 outlasts the deadline", async () => {
    await control.addFault({ mode: "ratelimit", path: "/api/posts/search" });
    const answer = await harness.posts({ subreddit });
    expect(answer.meta).toMatchObject({ outcome: "rate_limited", retry_after_seconds: expect.any(Number) });
  });

  it("answers unavailable when the upstream never answers within the deadline", async () => {
    await control.addFault({ mode: "timeout", path: "/api/posts/search" });
    expect((await harness.posts({ subreddit })).meta.outcome).toBe("unavailable");
  });
});
