/**
 * The top-up ladder of docs/api.md#top-ups, the one source of its tiers: billing prices every top-up
 * with it, the operator CLI checks amounts against it, and the developer portal shows what an amount
 * buys. Integers only: amounts in US cents, prices in hundredths of a cent per credit (0.0015 USD =
 * 0.15 cents = 15 hundredths). Credits are rounded down.
 */
import { TOP_UP_LIMITS } from "./limits.ts";

export const MINIMUM_TOP_UP_CENTS = TOP_UP_LIMITS.minUsdCents;

export interface PriceTier {
  /** The smallest amount, in cents, priced by this tier. */
  readonly fromCents: number;
  readonly hundredthsOfCentPerCredit: number;
}

/** Lowest amount first, as people read it; a top-up is priced by the tier of its whole amount. */
export const TOP_UP_LADDER: readonly PriceTier[] = [
  { fromCents: MINIMUM_TOP_UP_CENTS, hundredthsOfCentPerCredit: 15 },
  { fromCents: 2_500, hundredthsOfCentPerCredit: 13 },
  { fromCents: 5_000, hundredthsOfCentPerCredit: 12 },
  { fromCents: 10_000, hundredthsOfCentPerCredit: 10 },
];

/** The tier pricing `cents`, or undefined below the 5 USD minimum. */
export function tierFor(cents: number): PriceTier | undefined {
  return TOP_UP_LADDER.findLast((tier) => cents >= tier.fromCents);
}

/** Price per credit of a top-up of `cents`, or undefined below the 5 USD minimum. */
export function pricePerCredit(cents: number): number | undefined {
  return tierFor(cents)?.hundredthsOfCentPerCredit;
}

/** Credits bought with `cents` at `price` hundredths of a cent each, rounded down. */
export function creditsAtPrice(cents: number, price: number): number {
  const hundredths = cents * 100;
  // Exact integer division: subtracting the remainder first leaves nothing for floats to round.
  return (hundredths - (hundredths % price)) / price;
}

/** Credits bought with `cents` (5 USD → 3,333; 100 USD → 100,000), or undefined below the minimum. */
export function creditsForCents(cents: number): number | undefined {
  const price = pricePerCredit(cents);
  return price === undefined ? undefined : creditsAtPrice(cents, price);
}

/**
 * Credits for money actually received. A card payment is always credited, even an amount the
 * ladder would refuse (only possible if it was changed at the payment provider): below the minimum
 * it buys at the first tier's price.
 */
export function creditsForPaidCents(cents: number): number {
  return creditsAtPrice(cents, pricePerCredit(cents) ?? TOP_UP_LADDER[0]!.hundredthsOfCentPerCredit);
}

/** Parses a USD amount written as text ("12", "12.3", "12.34") into cents; no float arithmetic. */
export function parseUsdToCents(text: string): number | undefined {
  const match = /^(\d{1,9})(?:\.(\d{1,2}))?$/.exec(text.trim());
  if (!match) return undefined;
  return Number(match[1]) * 100 + Number((match[2] ?? "").padEnd(2, "0"));
}
