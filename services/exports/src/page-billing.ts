/**
 * The export worker's side of billing: 1 credit per upstream page, through billing (the only writer
 * of the ledger). The debit comes before the page is asked, with the page's own id; the page is
 * then settled once written, or refunded through `billing.refund` (the same path as a failed
 * request's refund) when it failed or the job ended before it.
 */
import type { Subjects } from "@rda/contracts";
import {
  billingCaller,
  type NatsConnection,
  type PrepaidWorkBilling,
  prepaidWorkBilling,
} from "@rda/service-kit";

export type PageBilling = PrepaidWorkBilling;

export function natsPageBilling(nats: NatsConnection, subjects: Subjects, timeoutMs: number): PageBilling {
  return prepaidWorkBilling(billingCaller(nats, subjects, timeoutMs), "debitExportPage");
}
