import { describe, expect, it } from "vitest";
import { parseDate } from "../src/query/dates.ts";

const NOW = 1_790_000_000;
const DAY = 86_400;

describe("parseDate", () => {
  it("reads plain digits as epoch seconds", () => {
    expect(parseDate("1700000000", NOW)).toBe(1_700_000_000);
  });

  it("reads 13-digit epochs as milliseconds, keeping the fraction", () => {
    expect(parseDate("1700000000123", NOW)).toBeCloseTo(1_700_000_000.123, 6);
  });

  it.each([
    ["2020-01-01", 1_577_836_800],
    ["2020-01", 1_577_836_800],
    ["2020-01-01 00:00:00", 1_577_836_800],
    ["2020-01-01T00:00:00.000Z", 1_577_836_800],
    ["2020-01-01T06:30", 1_577_860_200],
    ["2020-01-01T01:00:00+01:00", 1_577_836_800],
  ])("reads the partial ISO date %s as UTC", (text, expected) => {
    expect(parseDate(text, NOW)).toBe(expected);
  });

  it.each([
    ["10s", 10],
    ["30min", 30 * 60],
    ["5mins", 5 * 60],
    ["12h", 12 * 3600],
    ["2hour", 2 * 3600],
    ["7d", 7 * DAY],
    ["30d", 30 * DAY],
    ["3m", 90 * DAY],
    ["3month", 90 * DAY],
    ["1y", 365 * DAY],
    ["1year", 365 * DAY],
  ])("reads the offset %s as that long before now", (text, seconds) => {
    expect(parseDate(text, NOW)).toBe(NOW - seconds);
  });

  it.each(["1w", "2weeks", "yesterday", "2020-02-30", "2020-13-01", "12:00", "", "-5", "7 days ago"])(
    "rejects %j",
    (text) => {
      expect(parseDate(text, NOW)).toBeUndefined();
    },
  );
});
