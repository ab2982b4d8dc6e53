import { describe, expect, it } from "vitest";
import { readWindowHeaders, resetMoment } from "../src/client.ts";

const now = Date.UTC(2026, 8, 14, 12, 0, 17, 250);
const minuteEnd = Date.UTC(2026, 8, 14, 12, 1, 0, 0);

describe("the upstream's reset, in every form it comes", () => {
  it("reads seconds left in the window", () => {
    expect(resetMoment("43", now)).toBe(now + 43_000);
    expect(resetMoment(["2.5"], now)).toBe(now + 2_500);
  });

  it("reads a moment as epoch milliseconds and as epoch seconds", () => {
    expect(resetMoment(String(minuteEnd), now)).toBe(minuteEnd);
    expect(resetMoment(String(minuteEnd / 1000), now)).toBe(minuteEnd);
  });

  it("takes a moment just past as 'the window has turned', and ignores nonsense", () => {
    expect(resetMoment(String(now - 2_000), now)).toBe(now);
    expect(resetMoment("soon", now)).toBeUndefined();
    expect(resetMoment("-1", now)).toBeUndefined();
    expect(resetMoment(String(now + 2 * 3600_000), now)).toBeUndefined();
    expect(resetMoment("1", now - 10 * 3600_000)).toBe(now - 10 * 3600_000 + 1000);
  });

  it("prefers x-ratelimit-reset (immune to clock skew), falls back to -reset-at, reads remaining", () => {
    expect(readWindowHeaders({ "x-ratelimit-reset-at": String(minuteEnd) }, 200, now)).toEqual({
      rateLimited: false,
      resetAtMs: minuteEnd,
    });
    const headers = {
      "x-ratelimit-reset": "43",
      "x-ratelimit-reset-at": String(minuteEnd + 5_000),
      "x-ratelimit-remaining": "7",
    };
    expect(readWindowHeaders(headers, 200, now)).toEqual({
      rateLimited: false,
      resetAtMs: now + 43_000,
      remaining: 7,
    });
    expect(readWindowHeaders({ "x-ratelimit-reset": "43" }, 429, now)).toEqual({
      rateLimited: true,
      resetAtMs: now + 43_000,
    });
    expect(readWindowHeaders({}, 429, now)).toEqual({ rateLimited: true });
    expect(readWindowHeaders({}, 200, now)).toBeUndefined();
  });
});
