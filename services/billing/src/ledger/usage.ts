/**
 * A key's usage by day, read from the per-day counters the ledger scripts write in the same step as
 * each balance change (scripts.ts), so reading it never scans the journal.
 */
import type { UsageDay } from "@rda/contracts";
import { type LedgerContext, utcDay } from "./context.ts";

const DAY_MS = 86_400_000;

/** The last `days` UTC days, oldest first, today included; days without activity read 0. */
export async function readUsage(context: LedgerContext, keyId: string, days: number): Promise<UsageDay[]> {
  const today = context.now();
  const dates = Array.from({ length: days }, (_, index) => utcDay(today - (days - 1 - index) * DAY_MS));
  const pipeline = context.redis.pipeline();
  for (const date of dates) pipeline.hgetall(context.keys.usageDay(keyId, date));
  const replies = (await pipeline.exec()) ?? [];
  return dates.map((date, index) => {
    const [error, counters] = replies[index] ?? [];
    if (error) throw error;
    return usageDay(date, counters as Record<string, string>);
  });
}

function usageDay(date: string, counters: Record<string, string>): UsageDay {
  const day: UsageDay = {
    date,
    charged: {},
    refunded: {},
    credits_bought: 0,
    credits_granted: 0,
    paid_cents: 0,
  };
  for (const [field, text] of Object.entries(counters)) {
    const value = Number(text);
    const [kind, operation] = field.split(":");
    if ((kind === "charged" || kind === "refunded") && operation) day[kind][operation] = value;
    else if (kind === "credits_bought" || kind === "credits_granted" || kind === "paid_cents")
      day[kind] = value;
  }
  return day;
}
