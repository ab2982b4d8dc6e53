/**
 * Webhook delivery's side of billing: one work debit per batch round (service-kit work-billing.ts),
 * taken under the round's id before its first attempt (so a round resent after a crash is charged
 * once), settled once the receiver accepted it, refunded when the round fails for good or its
 * webhook is removed, through the one settle-and-refund path; voided by billing at its deadline
 * (the retry window and a few leases) when nobody did. Also who owns a key, for the notice that
 * says a monitor is failing.
 */
import {
  MONITOR_DELIVERY_CREDITS,
  type MonthSpend,
  WORK_OPERATIONS,
  workDebitDeadlineMs,
} from "@rda/contracts";
import { type BillingCaller, type DebitEnds, type WorkBilling, workBilling } from "@rda/service-kit";
import type { WebhookSettings } from "./webhook-settings.ts";

export interface DeliveryBilling extends WorkBilling {
  /** The key's portal account and balance; undefined when unknown or billing did not answer. */
  owner(keyId: string): Promise<KeyOwner | undefined>;
}

/** Whose key it is, and what it has left to spend (for a notice). */
export interface KeyOwner {
  readonly account_id: string | null;
  readonly balance: number;
  readonly month_spend?: MonthSpend | undefined;
}

export function natsDeliveryBilling(
  billing: BillingCaller,
  ends: DebitEnds,
  settings: Pick<WebhookSettings, "retryWindowMs" | "leaseMs">,
): DeliveryBilling {
  return {
    ...workBilling(billing, ends, {
      operation: WORK_OPERATIONS.monitorWebhookBatch,
      credits: MONITOR_DELIVERY_CREDITS,
      pendingMs: workDebitDeadlineMs(settings.retryWindowMs, settings.leaseMs),
    }),
    async owner(keyId) {
      const reply = await billing.call("showKey", { id: keyId });
      if (!reply.ok || !reply.value.found) return undefined;
      const { account_id, credits_balance, month_spend } = reply.value.key;
      return { account_id, balance: credits_balance, month_spend };
    },
  };
}
