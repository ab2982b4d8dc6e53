/**
 * Admission decides the key's bucket, the balance and the debit in one step, in that order, and a
 * refused request spends nothing else: the key's own bucket counts every authenticated request,
 * refused or not. The upstream budget is not admission's (the adapters' pacer owns it), so the
 * pacer's state never refuses an admission.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, startHarness, TEST_SETTINGS } from "./harness.ts";
import { admit, balanceOf, createKey, verify } from "./ops.ts";

let h: Harness;
beforeAll(async () => {
  h = await startHarness("admission", TEST_SETTINGS);
});
afterAll(() => h.close());

describe("admission", () => {
  it("admits a paying request: one token of the key's bucket, one credit", async () => {
    const key = await createKey(h, { credits: 3, rate_limit: { qps: 1, burst: 4 } });
    const reply = await admit(h, key);
    expect(reply).toMatchObject({
      outcome: "admitted",
      balance: 2,
      bucket: { qps: 1, burst: 4, remaining: 3, reset_seconds: 1 },
    });
  });

  it("refuses a key with no credit with insufficient: its own token spent, no credit", async () => {
    const key = await createKey(h, { credits: 0, rate_limit: { qps: 1, burst: 3 } });
    const replies = [];
    for (let i = 0; i < 5; i++) replies.push(await admit(h, key));
    // 402 within the key's limit, 429 beyond it.
    expect(replies.map((reply) => reply.outcome)).toEqual([
      "insufficient",
      "insufficient",
      "insufficient",
      "rate_limited",
      "rate_limited",
    ]);
    expect(await balanceOf(h, key)).toBe(0);
  });

  it("refuses a request past the key's limit with the wait until its next token, spending nothing else", async () => {
    const key = await createKey(h, { credits: 10, rate_limit: { qps: 1, burst: 1 } });
    expect((await admit(h, key)).outcome).toBe("admitted");
    const refused = await admit(h, key);
    expect(refused).toMatchObject({ outcome: "rate_limited", bucket: { remaining: 0 } });
    expect(refused.outcome === "rate_limited" && refused.retry_after_ms).toBeGreaterThan(0);
    expect(await balanceOf(h, key)).toBe(9);
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
});

describe("admission and the upstream budget", () => {
  it("admits a data request even while the adapters' pacer records the upstream's window as spent", async () => {
    const key = await createKey(h, { credits: 5, rate_limit: { qps: 100, burst: 100 } });
    const [seconds = 0] = (await h.redis.time()).map(Number);
    // As the adapters' pacer records it: the upstream said 0 requests remain for a while. Refusing
    // is the pacer's answer (429 global, refunded), not admission's.
    await h.redis.hset(h.keys.upstreamPacer.state, "reset_at", seconds * 1000 + 60_000, "remaining", 0);
    try {
      expect(await admit(h, key)).toMatchObject({ outcome: "admitted", balance: 4 });
    } finally {
      await h.redis.del(h.keys.upstreamPacer.state);
    }
  });
});
