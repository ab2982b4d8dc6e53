/** The portal's numbers in words: one plural rule and one way to say a duration, for every page. */
import { describe, expect, it } from "vitest";
import { count, duration } from "../src/http/words.ts";

describe("the portal's words for numbers", () => {
  it("says one without a plural and every other count with one", () => {
    expect(count(1, "upstream page")).toBe("1 upstream page");
    expect(count(1, "credit")).toBe("1 credit");
    expect(count(0, "credit")).toBe("0 credits");
    expect(count(4_500, "item")).toBe("4,500 items");
    expect(count(2, "entry", "entries")).toBe("2 entries");
  });

  it("says a duration as the API's seconds give it, not rounded up to a minute", () => {
    expect(duration(2)).toBe("2 seconds");
    expect(duration(1)).toBe("1 second");
    expect(duration(0)).toBe("1 second");
    expect(duration(89)).toBe("89 seconds");
    expect(duration(600)).toBe("10 minutes");
    expect(duration(60 * 60 * 3)).toBe("3 hours");
  });
});
