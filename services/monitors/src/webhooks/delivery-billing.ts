/**
 * Webhook delivery's side of billing (the only writer of the ledger): 1 credit per batch round,
 * debited under the round's id before its first attempt (`billing.monitors.debit_batch`, so a round
 * resent after a crash is charged once), settled once the receiver accepted it, and refunded through
 * `billing.refund` (exactly once, keyed by the same id) when the round fails for good. Also who owns
 * a key, for the email that says a monitor paused.
 */
import type { MonthSpend, Subjects } from "@rda/contracts";
import {
  billingCaller,
  type NatsConnection,
  type PrepaidWorkBilling,
  prepaidWorkBilling,
} from "@rda/service-kit";

export interface DeliveryBilling extends PrepaidWorkBilling {
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
  nats: NatsConnection,
  subjects: Subjects,
  timeoutMs: number,
): DeliveryBilling {
  const billing = billingCaller(nats, subjects, timeoutMs);
  return {
    ...prepaidWorkBilling(billing, "debitMonitorBatch"),
    async owner(keyId) {
      const reply = await billing.call("showKey", { id: keyId });
      if (!reply.ok || !reply.value.found) return undefined;
      const { account_id, credits_balance, month_spend } = reply.value.key;
      return { account_id, balance: credits_balance, month_spend };
    },
  };
}
