/**
 * Failures after the debit through the whole chain: the real adapter, the upstream client's retries
 * and classification, and the simulator's faults, each answered with the catalog's error and the
 * credit refunded. The gateway's own mapping of each adapter outcome is tested with scripted
 * adapters in services/gateway/test/gateway.error.test.ts.
 */
import { waitFor } from "@rda/service-kit/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { balanceOf, expectErrorBody, getJson, withKey } from "../support/http.ts";
import { type Stack, startStack } from "../support/stack.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ upstreamDeadlineMs: 1_000 });
});
afterEach(async () => stack.clearFaults());
afterAll(async () => stack.stop());

describe("failures after the debit", () => {
  it("answers 502 when the upstream keeps failing and refunds the credit", async () => {
    const own = (await stack.createKey({ credits: 10 })).key;
    await stack.fault({ mode: "error", rate: 1, path: "/api/users" });
    const result = await getJson(`${stack.gatewayUrl}/v1/users/anyone_at_all`, withKey(own));
    expect(result.status).toBe(502);
    expectErrorBody(result.body);
    await waitFor(async () => (await balanceOf(stack.gatewayUrl, own)) === 10, "the refund to land");
  });

  it("answers 429 with x-ratelimit-scope global when the upstream rate limit cannot be waited out, refunded", async () => {
    const own = (await stack.createKey({ credits: 10 })).key;
    await stack.fault({ mode: "ratelimit", rate: 1, path: "/api/subreddits" });
    const result = await getJson(`${stack.gatewayUrl}/v1/subreddits/search?q=ab`, withKey(own));
    expect(result.status).toBe(429);
    expect(result.headers.get("x-ratelimit-scope")).toBe("global");
    expect(result.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
    await waitFor(async () => (await balanceOf(stack.gatewayUrl, own)) === 10, "the refund to land");
  });
});
