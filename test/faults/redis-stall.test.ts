/**
 * The ledger's Redis stalls (CLIENT PAUSE … ALL on the stack's own Redis) for 5 s and for 20 s under a
 * steady trickle of data requests. Callers get fast answers throughout (200, or 503 with Retry-After
 * while Redis is stalled; never 500, never slower than 3 s), readiness says Redis is not ready while
 * it is stalled and ready after, and every key is charged exactly its 200s: the admissions Redis ran
 * late were refused, the answers written before the stall were settled once it ended.
 */
import { openRedis } from "@rda/service-kit";
import { silentLogger, waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FaultStack, startFaultStack, summary, underTrickle } from "./fault-stack.ts";

let stack: FaultStack;
beforeAll(async () => {
  stack = await startFaultStack();
}, 120_000);
afterAll(async () => stack?.stop(), 30_000);

async function pauseRedis(seconds: number): Promise<void> {
  const operator = await openRedis(stack.redis.url, "operator", silentLogger());
  const resumesAt = Date.now() + seconds * 1000;
  await operator.call("CLIENT", "PAUSE", String(seconds * 1000), "ALL");
  operator.disconnect();
  // The gateway and billing both say so while it lasts (an adapter fetches without its cache and
  // pacer's Redis: it stays ready, and answers 503 when it cannot ask the pacer for a turn).
  await waitFor(
    async () => {
      const ready = await stack.readiness();
      return !ready.gateway && !ready.billing && ready["adapter-posts"];
    },
    "the gateway and billing reported unready",
    seconds * 1000,
  );
  await waitFor(() => Date.now() >= resumesAt, "the end of the pause", seconds * 1000 + 1_000);
}

describe.each([5, 20])("a Redis stalled for %i s", (seconds) => {
  it("answers every request within 3 s with 200 or 503, and charges exactly the 200s", {
    timeout: 90_000,
  }, async () => {
    const { results, oks, charged } = await underTrickle(stack, "gateway", () => pauseRedis(seconds));
    const report = summary(results);
    expect(
      results.every((result) => [200, 503].includes(result.status)),
      report,
    ).toBe(true);
    expect(Math.max(...results.map((result) => result.ms)), report).toBeLessThan(3_000);
    expect(results.filter((result) => result.status === 503).length, report).toBeGreaterThan(0);
    expect(charged, report).toEqual({ balanceDrop: oks, journal: oks });
    expect(await stack.verifyLedger()).toMatchObject({ ok: true });
  });
});
