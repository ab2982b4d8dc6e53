import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { creditsForCents, MINIMUM_TOP_UP_CENTS, parseUsdToCents, pricePerCredit } from "../src/pricing.ts";

describe("the top-up ladder", () => {
  it.each([
    ["4.99", undefined],
    ["5", 3_333],
    ["24.99", 16_660],
    ["25", 19_230],
    ["49.99", 38_453],
    ["50", 41_666],
    ["99.99", 83_325],
    ["100", 100_000],
    ["1000", 1_000_000],
  ])("gives %s USD %s credits", (usd, credits) => {
    expect(creditsForCents(parseUsdToCents(usd)!)).toBe(credits);
  });

  it("refuses every amount below 5 USD", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MINIMUM_TOP_UP_CENTS - 1 }), (cents) => {
        expect(creditsForCents(cents)).toBeUndefined();
      }),
    );
  });

  it("gives exact integers, never more than the amount buys at its tier's price, and less than one credit short", () => {
    fc.assert(
      fc.property(fc.integer({ min: MINIMUM_TOP_UP_CENTS, max: 100_000_000 }), (cents) => {
        const credits = creditsForCents(cents)!;
        const price = pricePerCredit(cents)!;
        expect(Number.isSafeInteger(credits)).toBe(true);
        expect(credits * price).toBeLessThanOrEqual(cents * 100);
        expect((credits + 1) * price).toBeGreaterThan(cents * 100);
      }),
    );
  });

  it("never gives fewer credits for a larger amount", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: MINIMUM_TOP_UP_CENTS, max: 10_000_000 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        (cents, more) => {
          expect(creditsForCents(cents + more)!).toBeGreaterThanOrEqual(creditsForCents(cents)!);
        },
      ),
    );
  });
});

describe("parsing USD amounts", () => {
  it.each([
    ["5", 500],
    ["5.5", 550],
    ["5.05", 505],
    ["0.99", 99],
    ["1000", 100_000],
    [" 12.34 ", 1_234],
  ])("reads %s as %i cents", (text, cents) => {
    expect(parseUsdToCents(text)).toBe(cents);
  });

  it.each(["", "abc", "-5", "5.999", "1e3", "5,00", "0x10", "5.", ".5", "Infinity"])(
    "refuses '%s'",
    (text) => {
      expect(parseUsdToCents(text)).toBeUndefined();
    },
  );

  it("round-trips every cent amount written with two decimals", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 99_999_999_999 }), (cents) => {
        const text = `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, "0")}`;
        expect(parseUsdToCents(text)).toBe(cents);
      }),
    );
  });
});
