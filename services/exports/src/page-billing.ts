/**
 * The export worker's side of billing: 1 credit per upstream page, through billing (the only writer
 * of the ledger). The debit comes before the page is asked, with the page's own id; the page is
 * then settled once written, or refunded through `billing.refund` (the same path as a failed
 * request's refund) when it failed or the job ended before it.
 */
import type { ExportPageDebitReply, Subjects } from "@rda/contracts";
import { billingCaller, type NatsConnection } from "@rda/service-kit";

export interface PageBilling {
  /** Undefined when billing could not be asked or did not answer: try the page again later. */
  debit(keyId: string, debitId: string): Promise<ExportPageDebitReply | undefined>;
  settle(keyId: string, debitId: string): Promise<boolean>;
  refund(keyId: string, debitId: string, reason: string): Promise<boolean>;
}

export function natsPageBilling(nats: NatsConnection, subjects: Subjects, timeoutMs: number): PageBilling {
  const billing = billingCaller(nats, subjects, timeoutMs);
  return {
    async debit(keyId, debitId) {
      const reply = await billing.call("debitExportPage", { key_id: keyId, debit_id: debitId });
      return reply.ok ? reply.value : undefined;
    },
    async settle(keyId, debitId) {
      return (await billing.call("settle", { debits: [{ key_id: keyId, request_id: debitId }] })).ok;
    },
    async refund(keyId, debitId, reason) {
      return (await billing.call("refund", { key_id: keyId, request_id: debitId, reason })).ok;
    },
  };
}
