/**
 * The monthly spend cap's calendar: a key's spend is counted per calendar month in UTC, and starts
 * again from 0 at the next month's first instant. Billing, the gateway and the portal all reckon
 * months with these, so the month a debit is counted in and the reset a refusal names agree.
 */
import type { MonthSpend } from "./billing-messages.ts";

/** The calendar month (UTC) an instant falls in, as YYYY-MM. */
export function calendarMonthOf(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 7);
}

/** The first instant (UTC) after a YYYY-MM month, as an ISO time: when its spend resets. */
export function monthResetsAt(month: string): string {
  const [year, monthNumber] = month.split("-").map(Number) as [number, number];
  return new Date(Date.UTC(year, monthNumber, 1)).toISOString();
}

/** What a cap refusal says after the catalog's message: how much of which cap, and when it resets. */
export function spendCapDetail(keyId: string, spend: MonthSpend): string {
  const reset = monthResetsAt(spend.month).replace(".000Z", "Z");
  return `${keyId} spent ${spend.spent} of its ${spend.cap ?? 0} credits for ${spend.month} (UTC); the cap resets at ${reset}`;
}
