/**
 * Admission decides the key's bucket, the balance, the shared reserve and the debit in one step, in
 * that order, and a refused request spends nothing shared: the key's own bucket counts every
 * authenticated request, refused or not, but only a request that will go upstream takes a place in
 * the reserve and a credit.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, startHarness, TEST_SETTINGS } from "./harness.ts";
import { admit, balanceOf, createKey, verify } from "./ops.ts";

let h: Harness;
beforeAll(async () => {
  // A reserve that refills slowly enough that a test sees what it spent.
  h = await startHarness("admission", { ...TEST_SETTINGS, reserve: { qps: 1, burst: 5 } });
});
afterAll(() => h.close());

/** The reserve bucket as stored: it changes only when a request takes a place in it. */
async function reserveState(): Promise<string[]> {
  return (await h.redis.hmget(h.keys.globalReserveBucket, "tokens", "at")).map(String);
}

describe("admission", () => {
  it("admits a paying request: one token of the key's bucket, one place in the reserve, one credit", async () => {
    const key = await createKey(h, { credits: 3, rate_limit: { qps: 1, burst: 4 } });
    const before = await reserveState();
    const reply = await admit(h, key, { reserve: true });
    expect(reply).toMatchObject({
      outcome: "admitted",
      balance: 2,
      bucket: { qps: 1, burst: 4, remaining: 3, reset_seconds: 1 },
    });
    expect(await reserveState()).not.toEqual(before);
    // Whatever it had refilled to, one whole token less was stored: never more than burst - 1.
    expect(Number((await reserveState())[0])).toBeLessThanOrEqual(4);
  });

  it("refuses a key with no credit with insufficient: its own token spent, no credit and no reserve", async () => {
    const key = await createKey(h, { credits: 0, rate_limit: { qps: 1, burst: 3 } });
    const before = await reserveState();
    const replies = [];
    for (let i = 0; i < 5; i++) replies.push(await admit(h, key, { reserve: true }));
    // 402 within the key's limit, 429 beyond it.
    expect(replies.map((reply) => reply.outcome)).toEqual([
      "insufficient",
      "insufficient",
      "insufficient",
      "rate_limited",
      "rate_limited",
    ]);
    expect(await reserveState()).toEqual(before);
    expect(await balanceOf(h, key)).toBe(0);
  });

  it("refuses a request past the key's limit with the wait until its next token, spending nothing else", async () => {
    const key = await createKey(h, { credits: 10, rate_limit: { qps: 1, burst: 1 } });
    expect((await admit(h, key)).outcome).toBe("admitted");
    const refused = await admit(h, key, { reserve: true });
    expect(refused).toMatchObject({ outcome: "rate_limited", bucket: { remaining: 0 } });
    expect(refused.outcome === "rate_limited" && refused.retry_after_ms).toBeGreaterThan(0);
    expect(await balanceOf(h, key)).toBe(9);
  });

  it("refuses with reserve_exhausted when the reserve is empty: the key's token spent, no credit", async () => {
    const key = await createKey(h, { credits: 100, rate_limit: { qps: 1_000, burst: 1_000 } });
    let reply = await admit(h, key, { reserve: true });
    let admitted = 0;
    while (reply.outcome === "admitted") {
      admitted += 1;
      reply = await admit(h, key, { reserve: true });
    }
    expect(reply.outcome).toBe("reserve_exhausted");
    expect(reply.outcome === "reserve_exhausted" && reply.retry_after_ms).toBeGreaterThan(0);
    expect(await balanceOf(h, key)).toBe(100 - admitted);
    // The account endpoint's admission takes no place in the reserve, so it still answers.
    expect(await admit(h, key, { credits: 0, reserve: false })).toMatchObject({
      outcome: "admitted",
      balance: 100 - admitted,
    });
  });

  it("spends several tokens at once for a batch, and refuses the batch whole when they are not there", async () => {
    const key = await createKey(h, { credits: 5, rate_limit: { qps: 1, burst: 10 } });
    expect(await admit(h, key, { credits: 0, tokens: 8 })).toMatchObject({
      outcome: "admitted",
      bucket: { remaining: 2 },
    });
    expect(await admit(h, key, { credits: 0, tokens: 8 })).toMatchObject({
      outcome: "rate_limited",
      bucket: { remaining: 2 },
    });
  });

  it("refuses a rotated-away or unknown secret and a revoked key, spending nothing", async () => {
    const key = await createKey(h, { credits: 5 });
    expect(await admit(h, { id: key.id, key: `rdk_${"y".repeat(43)}` })).toEqual({ outcome: "unknown_key" });
    expect(await admit(h, { id: "key_00000000000000zz", key: key.key })).toEqual({ outcome: "unknown_key" });
    expect(await balanceOf(h, key)).toBe(5);
    expect((await verify(h)).ok).toBe(true);
  });

  it("refuses a data request while the upstream's window is spent, with the wait until it turns, taking nothing", async () => {
    const key = await createKey(h, { credits: 5, rate_limit: { qps: 100, burst: 100 } });
    const [seconds = 0, micros = 0] = (await h.redis.time()).map(Number);
    const now = seconds * 1000 + Math.floor(micros / 1000);
    const before = await reserveState();
    // As the adapters' pacer records it: the upstream said 0 requests remain until its window ends.
    await h.redis.hset(h.keys.upstreamPacer.state, "reset_at", now + 7_000, "remaining", 0);
    try {
      const refused = await admit(h, key, { reserve: true });
      expect(refused).toMatchObject({ outcome: "reserve_exhausted" });
      const waitMs = refused.outcome === "reserve_exhausted" ? refused.retry_after_ms : 0;
      expect(waitMs).toBeGreaterThan(5_000);
      expect(waitMs).toBeLessThanOrEqual(7_000);
      expect(await balanceOf(h, key)).toBe(5);
      expect(await reserveState()).toEqual(before);
      // The account endpoint does not go upstream: it is admitted all the same.
      expect((await admit(h, key, { reserve: false, credits: 0 })).outcome).toBe("admitted");
    } finally {
      await h.redis.del(h.keys.upstreamPacer.state);
    }
    // The window turned: only the reserve (1 a second here, drained by the tests before) can refuse now.
    const after = await admit(h, key, { reserve: true });
    if (after.outcome !== "admitted") {
      expect(after).toMatchObject({ outcome: "reserve_exhausted" });
      expect(after.outcome === "reserve_exhausted" && after.retry_after_ms).toBeLessThanOrEqual(1_000);
    }
  });
});
