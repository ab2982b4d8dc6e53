import { describe, expect, it } from "vitest";
import { createMonitorSchema, DEFAULT_MONITOR_LIMITS, TIME_BOUND_HINT } from "../src/index.ts";

const schema = createMonitorSchema(DEFAULT_MONITOR_LIMITS);

function backfillIssues(backfill_from: string | number): string[] {
  const parsed = schema.safeParse({ kind: "post", subreddit: "AskHistorians", backfill_from });
  return parsed.success ? [] : parsed.error.issues.map((issue) => `${issue.path.join(".")} ${issue.message}`);
}

describe("a monitor's backfill_from", () => {
  it.each([["1000y"], ["400d"], ["2005-01-02"], ["1"]])(
    "refuses %s by the 365-day rule, not by the archive's wider range",
    (form) => {
      expect(backfillIssues(form)).toEqual(["backfill_from must be within the last 365 days"]);
    },
  );

  it("refuses a time after now as in the future, even past the archive's end", () => {
    expect(backfillIssues("2200-01-01")).toEqual(["backfill_from must not be in the future"]);
  });

  it("refuses an unknown form with the forms it accepts", () => {
    expect(backfillIssues("soon")).toEqual([`backfill_from must be ${TIME_BOUND_HINT}`]);
  });

  it("accepts a form within the last 365 days", () => {
    expect(backfillIssues("364d")).toEqual([]);
  });
});
