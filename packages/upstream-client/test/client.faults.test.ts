/**
 * Each simulator fault mode (docs/operations.md#fault-control) ends in the right classification, with
 * the retries counted. Faults are count-based (rate 1), so no outcome depends on luck.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type RunningSimulator, startSimulator } from "../../../services/upstream-sim/src/index.ts";
import { createUpstreamClient, type UpstreamClient } from "../src/index.ts";
import { simControl } from "../src/testing/index.ts";

const MINUTE_MS = 60_000;
let sim: RunningSimulator;
let control: ReturnType<typeof simControl>;
let client: UpstreamClient;
let subreddit: string;

beforeAll(async () => {
  // A clock frozen 0.5 s before a minute boundary: the simulator's 429 says x-ratelimit-reset: 1.
  const frozen = (Math.floor(Date.now() / MINUTE_MS) + 1) * MINUTE_MS - 500;
  sim = await startSimulator({ seed: 11, scale: 0.05, clock: () => frozen });
  control = simControl(sim.url);
  client = createUpstreamClient({
    baseUrl: sim.url,
    deadlineMs: 3_000,
    attemptTimeoutMs: 400,
    maxRetries: 3,
    backoffBaseMs: 5,
    backoffCapMs: 20,
    busyWaitMs: 5,
  });
  subreddit = sim.probe.subredditNames()[0]!;
});
afterAll(async () => {
  await client.close();
  await sim.close();
});
afterEach(() => control.clearFaults());

const search = () => client.get("/api/posts/search", { subreddit, limit: 10, sort: "desc" });

describe("upstream client against the simulator's faults", () => {
  it.each(["error", "garbage"] as const)(
    "recovers from two %s answers, counting two retries",
    async (mode) => {
      await control.addFault({ mode, count: 2 });
      expect(await search()).toMatchObject({ outcome: "ok", attempts: 3, retries: 2 });
    },
  );

  it.each(["error", "garbage"] as const)(
    "ends unavailable after the retries when %s persists",
    async (mode) => {
      await control.addFault({ mode });
      expect(await search()).toMatchObject({ outcome: "unavailable", attempts: 4, retries: 3 });
    },
  );

  it("retries one busy answer with the limit halved", async () => {
    await control.addFault({ mode: "busy", count: 1 });
    expect(await search()).toMatchObject({ outcome: "ok", retries: 1, query: { limit: 5 } });
  });

  it("ends unavailable when the upstream stays busy after the halved retry", async () => {
    await control.addFault({ mode: "busy" });
    expect(await search()).toMatchObject({ outcome: "unavailable", attempts: 2, retries: 1 });
  });

  it("waits out a 429 whose reset fits in the deadline", async () => {
    await control.addFault({ mode: "ratelimit", count: 1 });
    expect(await search()).toMatchObject({ outcome: "ok", attempts: 2, retries: 1 });
  });

  it("answers rate_limited with retry-after when the 429s outlast the retries", async () => {
    await control.addFault({ mode: "ratelimit" });
    // A deadline long enough that only maxRetries ends the call.
    const patient = createUpstreamClient({ baseUrl: sim.url, deadlineMs: 20_000, maxRetries: 1 });
    const result = await patient.get("/api/posts/search", { subreddit, limit: 10, sort: "desc" });
    await patient.close();
    expect(result).toMatchObject({
      outcome: "rate_limited",
      retry_after_seconds: 1,
      attempts: 2,
      retries: 1,
    });
  });

  it("answers rate_limited at once when the reset cannot be waited out inside the deadline", async () => {
    await control.addFault({ mode: "ratelimit" });
    const hurried = createUpstreamClient({ baseUrl: sim.url, deadlineMs: 900 });
    const result = await hurried.get("/api/posts/search", { subreddit, limit: 10, sort: "desc" });
    await hurried.close();
    expect(result).toMatchObject({
      outcome: "rate_limited",
      retry_after_seconds: 1,
      attempts: 1,
      retries: 0,
    });
  });

  it("retries an attempt that gets no answer and succeeds on the next", async () => {
    await control.addFault({ mode: "timeout", count: 1 });
    expect(await search()).toMatchObject({ outcome: "ok", attempts: 2, retries: 1 });
  });

  it("ends unavailable when no attempt is answered within the deadline", async () => {
    await control.addFault({ mode: "timeout" });
    const result = await search();
    expect(result.outcome).toBe("unavailable");
    expect(result.retries).toBeGreaterThanOrEqual(1);
  });

  it("classifies an upstream 400 (a non-selectable field) as bad_request without retrying", async () => {
    const result = await client.get("/api/posts/search", {
      subreddit,
      limit: 1,
      sort: "desc",
      fields: "permalink",
    });
    expect(result).toMatchObject({ outcome: "bad_request", attempts: 1, retries: 0 });
  });
});
