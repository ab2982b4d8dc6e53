/**
 * Crashes and restarts under a steady trickle of data requests, on a stack with its own Redis and
 * NATS: NATS restarted, billing killed and started again, the adapter killed and started again, and
 * a gateway killed with SIGKILL while debited requests wait on the upstream. In each: no 500, no
 * answer slower than 3 s, readiness true again after, `ledger verify` clean, and credits charged
 * equal to the 200s received, except where requests were in flight at a crash: there they never
 * exceed them (billing voids the debits nobody settled).
 */
import { waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type FaultStack,
  startFaultStack,
  summary,
  type TrickleResult,
  underTrickle,
} from "./fault-stack.ts";

let stack: FaultStack;
beforeAll(async () => {
  stack = await startFaultStack({ crashGateway: true });
}, 120_000);
afterAll(async () => stack?.stop(), 30_000);

/**
 * Each test restarts a process and waits on bounds for a hang, not for speed: the restart's ready
 * line (60 s), readiness (30 s), answers before and after (15 s each), nothing left pending (30 s).
 * A restart on a busy machine can take tens of seconds; vitest's default would cut the test off
 * before the wait that would have said what was missing.
 */
const RESTART_TEST_MS = 180_000;

function expectFastHonestAnswers(results: readonly TrickleResult[], allowed: number[]) {
  const report = summary(results);
  expect(
    results.every((result) => allowed.includes(result.status)),
    report,
  ).toBe(true);
  expect(Math.max(...results.map((result) => result.ms)), report).toBeLessThan(3_000);
}

describe("crashes and restarts under load", () => {
  it(
    "rides out a NATS restart: 503 while it is down, readiness false meanwhile, every 200 charged once",
    async () => {
      const { results, oks, charged } = await underTrickle(stack, "gateway", async () => {
        await stack.nats!.stop();
        await waitFor(
          async () => Object.values(await stack.readiness()).every((ready) => !ready),
          "every process reporting NATS down",
        );
        await stack.nats!.start();
      });
      // A request whose adapter answer was lost with the connection gets 502, refunded.
      expectFastHonestAnswers(results, [200, 502, 503]);
      expect(results.some((result) => result.status === 503)).toBe(true);
      expect(charged).toEqual({ balanceDrop: oks, journal: oks });
      expect(await stack.verifyLedger()).toMatchObject({ ok: true });
    },
    RESTART_TEST_MS,
  );

  it(
    "rides out billing killed and restarted: 503 while it is gone, every 200 charged once",
    async () => {
      const { results, oks, charged } = await underTrickle(stack, "gateway", async () => {
        await stack.kill("billing");
        await stack.restart("billing");
      });
      expectFastHonestAnswers(results, [200, 503]);
      expect(charged).toEqual({ balanceDrop: oks, journal: oks });
      expect(await stack.verifyLedger()).toMatchObject({ ok: true });
    },
    RESTART_TEST_MS,
  );

  it(
    "rides out the adapter killed and restarted: 502 refunded while it is gone, every 200 charged once",
    async () => {
      const { results, oks, charged } = await underTrickle(stack, "gateway", async () => {
        await stack.kill("adapter-posts");
        await stack.restart("adapter-posts");
      });
      expectFastHonestAnswers(results, [200, 502]);
      expect(charged).toEqual({ balanceDrop: oks, journal: oks });
      expect(await stack.verifyLedger()).toMatchObject({ ok: true });
    },
    RESTART_TEST_MS,
  );

  it(
    "keeps no credit of the requests a gateway killed with SIGKILL had debited and not answered",
    async () => {
      const hung = 4;
      const faults = `${stack.simUrl}/__sim/faults`;
      const { results, oks, charged } = await underTrickle(stack, "gateway-crash", async (trickle) => {
        // Upstream calls hang from now on: requests are debited, then wait at the adapter.
        await fetch(faults, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ mode: "timeout", path: "/api/posts" }),
        });
        await waitFor(() => trickle.waiting() >= hung, `${hung} debited requests waiting`);
        await stack.kill("gateway-crash");
        await fetch(faults, { method: "DELETE" });
        await stack.restart("gateway-crash");
      });
      // Cut by the crash, or refused until the gateway was back: connections, not answers.
      expect(results.filter((result) => result.failed).length).toBeGreaterThanOrEqual(hung);
      // A request that joined an upstream call still hanging after the restart gets 502, refunded.
      expectFastHonestAnswers(
        results.filter((result) => !result.failed),
        [200, 502],
      );
      expect(charged.balanceDrop).toBe(charged.journal);
      expect(charged.balanceDrop).toBeLessThanOrEqual(oks);
      expect(await stack.verifyLedger()).toMatchObject({ ok: true });
    },
    RESTART_TEST_MS,
  );
});
