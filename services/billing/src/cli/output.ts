/** Human-readable output of the CLI, and the one place that writes to stdout and stderr. */
import {
  type KeyDetails,
  type ListKeysReply,
  type MonthSpend,
  monthResetsAt,
  type Payment,
  type UsageDay,
  type verifyLedgerReplySchema,
} from "@rda/contracts";
import type { z } from "zod";
import type { CommandResult } from "./exit-codes.ts";

export function describeKey(key: KeyDetails, payments: readonly Payment[] = []): string {
  const lines = [
    `id:          ${key.id}`,
    `label:       ${key.label || "(none)"}`,
    `balance:     ${key.credits_balance} credits`,
    `revoked:     ${key.revoked ? "yes" : "no"}`,
    `rate limit:  ${key.rate_limit.qps} req/s, burst ${key.rate_limit.burst}`,
    `created at:  ${key.created_at}`,
    `last used:   ${key.last_used_at ?? "never"}`,
    `account:     ${key.account_id ?? "(none: made by an operator)"}`,
    `spend:       ${describeMonthSpend(key.month_spend)}`,
  ];
  if (payments.length === 0) return [...lines, "payments:    none"].join("\n");
  return [...lines, "payments:", ...payments.map(describePayment)].join("\n");
}

/** The month's spend against the monthly cap, e.g. "12 of 50 credits in 2026-11 (cap resets 2026-12-01T00:00:00.000Z)". */
export function describeMonthSpend(spend: MonthSpend): string {
  if (spend.cap === null) return `${spend.spent} credits in ${spend.month}, no monthly cap`;
  return `${spend.spent} of ${spend.cap} credits in ${spend.month} (the monthly cap resets ${monthResetsAt(spend.month)})`;
}

/** One card payment: when, how much, what it bought, what went back, its id. */
function describePayment(payment: Payment): string {
  const usd = (cents: number) => `${(cents / 100).toFixed(2)} USD`;
  const back =
    payment.refunded_cents + payment.disputed_cents > 0
      ? `, ${usd(payment.refunded_cents)} refunded, ${usd(payment.disputed_cents)} disputed, ${payment.credits_removed} credits taken back`
      : "";
  return `  ${payment.paid_at ?? "(pending)"}  ${usd(payment.amount_cents)}  ${payment.credits} credits  ${payment.status}${back}  ${payment.payment_id}`;
}

export function describeKeyList(reply: ListKeysReply): string {
  const rows = reply.keys.map(
    (key) =>
      `${key.id}  ${key.revoked ? "revoked" : "active "}  ${String(key.credits_balance).padStart(9)} credits  ${key.created_at}  ${key.label}`,
  );
  const limits = reply.limits;
  const footer = limits
    ? [
        `active keys ${limits.active} of ${limits.max_active}; created ${limits.created} of ${limits.max_created}`,
      ]
    : [];
  return [...(rows.length > 0 ? rows : ["no keys"]), ...footer].join("\n");
}

export function describeUsage(days: readonly UsageDay[]): string {
  const total = (counts: Record<string, number>) => Object.values(counts).reduce((sum, n) => sum + n, 0);
  const lines = days
    .filter((day) => total(day.charged) + total(day.refunded) + day.credits_bought + day.credits_granted > 0)
    .map((day) => {
      const charged = Object.entries(day.charged)
        .map(([operation, n]) => `${operation} ${n}`)
        .join(", ");
      return `${day.date}  charged ${total(day.charged)}${charged ? ` (${charged})` : ""}, refunded ${total(day.refunded)}, bought ${day.credits_bought}, granted ${day.credits_granted}`;
    });
  return lines.length > 0 ? lines.join("\n") : `no usage in the last ${days.length} days`;
}

export function describeVerify(report: z.infer<typeof verifyLedgerReplySchema>): string {
  const head = `${report.keys_checked} keys, ${report.journal_entries} journal entries: ${
    report.ok
      ? "every balance and monthly spend agrees with its journal"
      : `${report.mismatches.length} mismatch(es)`
  }`;
  const lines = report.mismatches.map(
    (m) => `  ${m.key_id}: balance ${m.balance}, journal sum ${m.journal_sum} (${m.problem})`,
  );
  return [head, ...lines].join("\n");
}

/** `--json`: exactly one JSON object on stdout (or nothing on failure); errors always go to stderr. */
export function printResult(result: CommandResult, json: boolean): void {
  if (json && result.json !== undefined) process.stdout.write(`${JSON.stringify(result.json)}\n`);
  if (!json && result.text !== undefined) process.stdout.write(`${result.text}\n`);
  if (result.error !== undefined) process.stderr.write(`admin: ${result.error}\n`);
}
