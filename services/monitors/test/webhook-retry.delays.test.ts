/**
 * The pause between a webhook batch's attempts: doubling per failed attempt from the first pause,
 * capped, and jittered between half and all of it, so receivers failing together spread out.
 */
import { describe, expect, it } from "vitest";
import { retryDelayMs } from "../src/webhooks/delivery-record.ts";

const settings = { firstRetryMs: 10_000, maxRetryDelayMs: 3_600_000 };

describe("retryDelayMs", () => {
  it("doubles per failed attempt and never exceeds the cap", () => {
    const full = (failed: number) => retryDelayMs(failed, settings, () => 1);
    expect([1, 2, 3, 4].map(full)).toEqual([10_000, 20_000, 40_000, 80_000]);
    expect(full(20)).toBe(3_600_000);
    expect(full(10_000)).toBe(3_600_000);
  });

  it("jitters between half and all of the pause", () => {
    expect(retryDelayMs(3, settings, () => 0)).toBe(20_000);
    expect(retryDelayMs(3, settings, () => 0.5)).toBe(30_000);
    for (let n = 0; n < 100; n += 1) {
      const delay = retryDelayMs(2, settings);
      expect(delay).toBeGreaterThanOrEqual(10_000);
      expect(delay).toBeLessThanOrEqual(20_000);
    }
  });
});
