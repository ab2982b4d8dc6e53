/**
 * What an amount typed on the billing page buys, from the ladder in contracts (the one billing
 * prices payments with): the amount read from text into cents, refused with a sentence that says
 * what to type, and the quote shown live beside it.
 */
import {
  creditsForCents,
  err,
  MINIMUM_TOP_UP_CENTS,
  ok,
  parseUsdToCents,
  type Result,
  TOP_UP_LADDER,
  TOP_UP_LIMITS,
  tierFor,
} from "@rda/contracts";

export const usd = (cents: number) =>
  `$${(cents / 100).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

/** "25", "25.5", "$1,000.00": whole cents, no float arithmetic. */
export function readAmount(text: string | undefined): Result<number, string> {
  const cleaned = (text ?? "").trim().replace(/^\$\s*/, "");
  const grouped = /^\d{1,3}(,\d{3})+(\.\d{1,2})?$/.test(cleaned) ? cleaned.replace(/,/g, "") : cleaned;
  const cents = parseUsdToCents(grouped);
  if (cleaned === "" || cents === undefined)
    return err("Enter an amount in US dollars, such as 25 or 12.50.");
  if (cents < MINIMUM_TOP_UP_CENTS) return err(`The smallest top-up is ${usd(MINIMUM_TOP_UP_CENTS)}.`);
  if (cents > TOP_UP_LIMITS.maxUsdCents)
    return err(
      `The largest top-up is ${usd(TOP_UP_LIMITS.maxUsdCents)} at a time; pay in several top-ups for more.`,
    );
  return ok(cents);
}

export interface Quote {
  readonly cents: number;
  readonly credits: number;
  /** "$0.0013" */
  readonly perCredit: string;
  /** "$1.30" */
  readonly perThousand: string;
  /** The next cheaper tier, to say what a larger amount would cost. */
  readonly next?: { readonly from: string; readonly perCredit: string };
}

const perCredit = (hundredthsOfCent: number) => `$${(hundredthsOfCent / 10_000).toFixed(4)}`;

export function quote(cents: number): Quote {
  const tier = tierFor(cents)!;
  const next = TOP_UP_LADDER.find((candidate) => candidate.fromCents > cents);
  return {
    cents,
    credits: creditsForCents(cents)!,
    perCredit: perCredit(tier.hundredthsOfCentPerCredit),
    perThousand: `$${(tier.hundredthsOfCentPerCredit / 10).toFixed(2)}`,
    next: next && { from: usd(next.fromCents), perCredit: perCredit(next.hundredthsOfCentPerCredit) },
  };
}

/** The ladder as rows for the page's price table. */
export function ladderRows() {
  return TOP_UP_LADDER.map((tier, index) => {
    const upper = TOP_UP_LADDER[index + 1]?.fromCents;
    return {
      range: upper ? `${usd(tier.fromCents)} to ${usd(upper - 1)}` : `${usd(tier.fromCents)} and more`,
      perCredit: perCredit(tier.hundredthsOfCentPerCredit),
      perThousand: `$${(tier.hundredthsOfCentPerCredit / 10).toFixed(2)}`,
      example: `${usd(tier.fromCents)} buys ${creditsForCents(tier.fromCents)!.toLocaleString("en-US")} credits`,
    };
  });
}
