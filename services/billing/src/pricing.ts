/**
 * The top-up ladder of spec §1, in integers only: amounts in US cents, prices in hundredths of a cent
 * per credit (0.0015 USD = 0.15 cents = 15 hundredths). Credits are rounded down.
 */

export const MINIMUM_TOP_UP_CENTS = 500;

/** Highest tier first; a top-up is priced by the tier of its whole amount. */
const LADDER = [
  { fromCents: 10_000, hundredthsOfCentPerCredit: 10 },
  { fromCents: 5_000, hundredthsOfCentPerCredit: 12 },
  { fromCents: 2_500, hundredthsOfCentPerCredit: 13 },
  { fromCents: MINIMUM_TOP_UP_CENTS, hundredthsOfCentPerCredit: 15 },
] as const;

/** Price per credit of a top-up of `cents`, or undefined below the 5 USD minimum. */
export function pricePerCredit(cents: number): number | undefined {
  return LADDER.find((tier) => cents >= tier.fromCents)?.hundredthsOfCentPerCredit;
}

/** Credits bought with `cents` (5 USD → 3,333; 100 USD → 100,000), or undefined below the minimum. */
export function creditsForCents(cents: number): number | undefined {
  const price = pricePerCredit(cents);
  if (price === undefined) return undefined;
  const hundredths = cents * 100;
  // Exact integer division: subtracting the remainder first leaves nothing for floats to round.
  return (hundredths - (hundredths % price)) / price;
}

/** Parses a USD amount written as text ("12", "12.3", "12.34") into cents; no float arithmetic. */
export function parseUsdToCents(text: string): number | undefined {
  const match = /^(\d{1,9})(?:\.(\d{1,2}))?$/.exec(text.trim());
  if (!match) return undefined;
  return Number(match[1]) * 100 + Number((match[2] ?? "").padEnd(2, "0"));
}
