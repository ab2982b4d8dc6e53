/** The aggregate's buckets in every form the upstream is seen to send, folded into ours by their start. */
import { describe, expect, it } from "vitest";
import { readAggregateBuckets } from "../src/aggregate-buckets.ts";

const MONDAY = Date.UTC(2026, 10, 23) / 1000; // 2026-11-23, a Monday

describe("readAggregateBuckets", () => {
  it("reads ISO dates, epoch seconds and milliseconds, as numbers or text, and counts as numbers or text", () => {
    const data = [
      { created_utc: "2026-11-23T00:00:00.000Z", count: "5" },
      { created_utc: "2026-11-24 00:00:00", count: 2 },
      { created_utc: MONDAY + 2 * 86_400, count: 7 },
      { created_utc: String((MONDAY + 3 * 86_400) * 1000), count: "1" },
    ];
    const days = readAggregateBuckets(data, "day")!;
    expect([...days]).toEqual([
      [MONDAY, 5],
      [MONDAY + 86_400, 2],
      [MONDAY + 2 * 86_400, 7],
      [MONDAY + 3 * 86_400, 1],
    ]);
    // The same days as weeks: all in the week starting on that Monday.
    expect([...readAggregateBuckets(data, "week")!]).toEqual([[MONDAY, 15]]);
  });

  it("folds buckets finer than ours into ours by their start", () => {
    const hours = [0, 1, 23, 24].map((hour) => ({ created_utc: MONDAY + hour * 3600, count: 1 }));
    expect([...readAggregateBuckets(hours, "day")!]).toEqual([
      [MONDAY, 3],
      [MONDAY + 86_400, 1],
    ]);
  });

  it("refuses anything that is not a list of buckets with a time and a whole count", () => {
    for (const data of [
      null,
      { created_utc: MONDAY, count: 1 },
      [{ created_utc: "yesterday", count: 1 }],
      [{ created_utc: MONDAY, count: -1 }],
      [{ created_utc: MONDAY, count: "1.5" }],
      [{ created_utc: MONDAY }],
      ["2026-11-23"],
    ]) {
      expect(readAggregateBuckets(data, "day")).toBeUndefined();
    }
  });
});
