/**
 * The export worker's side of billing: 1 credit per upstream page, through billing (the only writer
 * of the ledger). The debit comes before the page is asked, with the page's own id; the page is
 * then settled once written, or refunded through `billing.refund` (the same path as a failed
 * request's refund) when it failed or the job ended before it.
 */
import {
  type ExportPageDebitReply,
  exportPageDebitReplySchema,
  refundReplySchema,
  type Subjects,
  settleReplySchema,
} from "@rda/contracts";
import { type NatsConnection, requestJson } from "@rda/service-kit";

export interface PageBilling {
  /** Undefined when billing could not be asked or did not answer: try the page again later. */
  debit(keyId: string, debitId: string): Promise<ExportPageDebitReply | undefined>;
  settle(keyId: string, debitId: string): Promise<boolean>;
  refund(keyId: string, debitId: string, reason: string): Promise<boolean>;
}

export function natsPageBilling(nats: NatsConnection, subjects: Subjects, timeoutMs: number): PageBilling {
  return {
    async debit(keyId, debitId) {
      const request = { key_id: keyId, debit_id: debitId };
      const reply = await requestJson(
        nats,
        subjects.billing.debitExportPage,
        request,
        exportPageDebitReplySchema,
        timeoutMs,
      );
      return reply.ok ? reply.value : undefined;
    },
    async settle(keyId, debitId) {
      const request = { debits: [{ key_id: keyId, request_id: debitId }] };
      const reply = await requestJson(nats, subjects.billing.settle, request, settleReplySchema, timeoutMs);
      return reply.ok;
    },
    async refund(keyId, debitId, reason) {
      const request = { key_id: keyId, request_id: debitId, reason };
      const reply = await requestJson(nats, subjects.billing.refund, request, refundReplySchema, timeoutMs);
      return reply.ok;
    },
  };
}
