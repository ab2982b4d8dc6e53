import { describe, expect, it } from "vitest";
import { parseTimeBound } from "../src/index.ts";

const NOW = 1_763_800_000;

describe("parseTimeBound", () => {
  it("passes epoch seconds through", () => {
    expect(parseTimeBound("1700000000", NOW)).toEqual({ ok: true, value: 1_700_000_000 });
  });

  it.each([
    ["7d", NOW - 7 * 86_400],
    ["12h", NOW - 12 * 3_600],
    ["30min", NOW - 30 * 60],
    ["10s", NOW - 10],
    ["2w", NOW - 14 * 86_400],
    ["3mo", NOW - 3 * 2_592_000],
    ["1year", NOW - 31_536_000],
    ["1Y", NOW - 31_536_000],
  ])("anchors the relative form %s to now", (form, expected) => {
    expect(parseTimeBound(form, NOW)).toEqual({ ok: true, value: expected });
  });

  it("reads ISO 8601 dates as UTC", () => {
    expect(parseTimeBound("2024-01-31", NOW)).toEqual({ ok: true, value: 1_706_659_200 });
    expect(parseTimeBound("2024-01-31T12:00:00Z", NOW)).toEqual({ ok: true, value: 1_706_702_400 });
  });

  it.each([["3m"], ["yesterday"], ["7 fortnights"], ["-5"], ["2024-13-45"], ["1700000000000"]])(
    "refuses %s with a hint of the accepted forms",
    (form) => {
      expect(parseTimeBound(form, NOW)).toMatchObject({ ok: false });
    },
  );

  it("refuses instants before the archive begins", () => {
    expect(parseTimeBound("5", NOW)).toEqual({
      ok: false,
      error: "is outside the archive's range (2005 to 2100)",
    });
  });
});
