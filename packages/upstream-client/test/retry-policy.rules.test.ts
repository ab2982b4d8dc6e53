import { describe, expect, it } from "vitest";
import { decide, halveLimit } from "../src/retry-policy.ts";
import { resolveSettings } from "../src/settings.ts";

const settings = resolveSettings({ baseUrl: "http://x", maxRetries: 2, deadlineMs: 5_000 });
const state = (attempts: number, extra: object = {}) => ({
  attempts,
  query: { limit: 100 },
  busyRetried: false,
  remainingMs: 4_000,
  ...extra,
});

describe("decide", () => {
  it("retries a transient failure while retries are left, then ends unavailable with the count", () => {
    const verdict = { kind: "transient", reason: "HTTP 502" } as const;
    expect("waitMs" in decide(verdict, state(1), settings)).toBe(true);
    expect("waitMs" in decide(verdict, state(2), settings)).toBe(true);
    expect(decide(verdict, state(3), settings)).toMatchObject({
      stop: { outcome: "unavailable", attempts: 3, retries: 2 },
    });
  });

  it("retries a busy answer once with the limit halved, and a second busy answer ends the call", () => {
    const verdict = { kind: "busy", reason: "slow down" } as const;
    expect(decide(verdict, state(1), settings)).toMatchObject({ query: { limit: 50 }, busyRetried: true });
    // The upstream asked us to slow down: seconds, with jitter, before the one retry.
    const waits = Array.from(
      { length: 20 },
      () => (decide(verdict, state(1), settings) as { waitMs: number }).waitMs,
    );
    expect(Math.min(...waits)).toBeGreaterThanOrEqual(2_000);
    expect(Math.max(...waits)).toBeLessThan(4_000);
    expect(new Set(waits).size).toBeGreaterThan(1);
    expect(decide(verdict, state(2, { busyRetried: true }), settings)).toMatchObject({
      stop: { outcome: "unavailable", retries: 1 },
    });
  });

  it("waits out a 429 whose reset fits in the deadline", () => {
    expect(decide({ kind: "rate_limited", resetSeconds: 1 }, state(1), settings)).toMatchObject({
      waitMs: 1000,
    });
  });

  it("answers rate_limited with retry-after seconds when the reset does not fit in the deadline", () => {
    expect(decide({ kind: "rate_limited", resetSeconds: 30 }, state(1), settings)).toMatchObject({
      stop: { outcome: "rate_limited", retry_after_seconds: 30 },
    });
    expect(decide({ kind: "rate_limited", resetSeconds: 0.2 }, state(3), settings)).toMatchObject({
      stop: { outcome: "rate_limited", retry_after_seconds: 1 },
    });
  });

  it("ends the call as its last failure classifies when the next wait would pass the deadline", () => {
    const almostOut = state(1, { remainingMs: 1 });
    expect(decide({ kind: "busy", reason: "slow down" }, almostOut, settings)).toMatchObject({
      stop: { outcome: "unavailable", message: "upstream: slow down (no time left to retry)", attempts: 1 },
    });
    expect(decide({ kind: "rate_limited", resetSeconds: undefined }, almostOut, settings)).toMatchObject({
      stop: { outcome: "rate_limited", retry_after_seconds: 60 },
    });
  });

  it("never retries a bad request", () => {
    expect(decide({ kind: "bad_request", reason: "HTTP 400" }, state(1), settings)).toMatchObject({
      stop: { outcome: "bad_request", attempts: 1, retries: 0 },
    });
  });
});

describe("halveLimit", () => {
  it("halves an integer limit and leaves a limit of 1 or none alone", () => {
    expect(halveLimit({ limit: 25 })).toEqual({ limit: 12 });
    expect(halveLimit({ limit: 1 })).toEqual({ limit: 1 });
    expect(halveLimit({ ids: "a" })).toEqual({ ids: "a" });
  });
});
