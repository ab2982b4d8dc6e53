/**
 * The export worker's side of billing: one work debit per upstream page (service-kit
 * work-billing.ts), taken before the page is asked, under the page's own id (job, page, try); then
 * settled once written, or refunded when it failed or the job ended before it, through the one
 * settle-and-refund path; voided by billing at its deadline when the worker died first.
 */
import { EXPORT_PAGE_CREDITS, WORK_OPERATIONS, workDebitDeadlineMs } from "@rda/contracts";
import { type BillingCaller, type DebitEnds, type WorkBilling, workBilling } from "@rda/service-kit";

export type PageBilling = WorkBilling;

/**
 * A page's debit lives through its fetch and write (within one ack wait) and the ack waits that hand
 * a dead worker's job to another replica, which settles it under the same id.
 */
export function natsPageBilling(billing: BillingCaller, ends: DebitEnds, ackWaitMs: number): PageBilling {
  return workBilling(billing, ends, {
    operation: WORK_OPERATIONS.exportPage,
    credits: EXPORT_PAGE_CREDITS,
    pendingMs: workDebitDeadlineMs(ackWaitMs, ackWaitMs),
  });
}
