/**
 * The caller's bound on an answer's age, read from its Cache-Control header (docs/api.md#freshness),
 * and the Age the answer then carries.
 */
import { describe, expect, it } from "vitest";
import { ageSeconds, requestedMaxAge } from "../src/routes/data.ts";

describe("Cache-Control on a data request", () => {
  it("asks for a fresh fetch with no-cache or no-store, and for at most N seconds with max-age=N", () => {
    expect(requestedMaxAge("no-cache")).toBe(0);
    expect(requestedMaxAge("No-Store")).toBe(0);
    expect(requestedMaxAge("max-age=10")).toBe(10);
    expect(requestedMaxAge('max-age="45"')).toBe(45);
  });

  it("keeps the strictest of several directives, across repeated headers too", () => {
    expect(requestedMaxAge("max-age=60, max-age=5")).toBe(5);
    expect(requestedMaxAge(["max-age=60", "no-cache"])).toBe(0);
  });

  it("ignores what it does not know and malformed values, leaving the data's own bound", () => {
    expect(requestedMaxAge(undefined)).toBeUndefined();
    expect(requestedMaxAge("private, must-revalidate")).toBeUndefined();
    expect(requestedMaxAge("max-age=-1")).toBeUndefined();
    expect(requestedMaxAge("max-age=ten")).toBeUndefined();
    expect(requestedMaxAge("max-age")).toBeUndefined();
  });

  it("says the age in whole seconds, never negative when a replica's clock runs ahead", () => {
    expect(ageSeconds(10_000, 12_999)).toBe(2);
    expect(ageSeconds(10_000, 9_000)).toBe(0);
  });
});
