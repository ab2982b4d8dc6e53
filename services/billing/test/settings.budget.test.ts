/**
 * The upstream budget has one setting, the adapters' (docs/upstream.md#rate-limits): billing refuses
 * to start with the second one it once held, rather than ignore it.
 */
import { describe, expect, it } from "vitest";
import { loadBillingConfig } from "../src/settings.ts";

describe("billing's settings and the upstream budget", () => {
  it("refuses to start with UPSTREAM_RESERVE_QPS set, in one sentence naming the one budget setting", () => {
    expect(() => loadBillingConfig({ UPSTREAM_RESERVE_QPS: "200" })).toThrow(
      /^UPSTREAM_RESERVE_QPS no longer exists: the one upstream budget is the adapters' UPSTREAM_REQUESTS_PER_SECOND and UPSTREAM_CONCURRENCY .*; remove it\.$/,
    );
  });

  it("starts without it", () => {
    expect(() => loadBillingConfig({})).not.toThrow();
  });
});
