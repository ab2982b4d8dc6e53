/**
 * Billing of background work (docs/architecture.md#a-work-debits-life): a work debit taken under the
 * work's own id before the work runs (so work retried after a crash is charged once), then ended by
 * the one settle-and-refund path (debit-ends.ts): settled once the work is done, refunded when it
 * failed for good, and voided by billing at its deadline when nobody did either.
 */
import type { DebitEnd, Result, WorkDebitReply, WorkDebitRequest } from "@rda/contracts";
import { ok } from "@rda/contracts";
import type { DebitEnds, Deferred } from "./debit-ends.ts";
import type { BillingCaller } from "./nats.ts";

export interface WorkBilling {
  /** Undefined when billing did not answer: nothing was decided, ask again later. */
  debit(keyId: string, workId: string): Promise<WorkDebitReply | undefined>;
  settle(keyId: string, workId: string): Promise<Result<DebitEnd, Deferred>>;
  refund(keyId: string, workId: string, reason: string): Promise<Result<DebitEnd, Deferred>>;
}

export interface WorkBillingOptions {
  readonly operation: WorkDebitRequest["operation"];
  readonly credits: number;
  /** The debit's deadline: long enough for the work (several lease or ack-wait periods). */
  readonly pendingMs: number;
}

export function workBilling(
  billing: BillingCaller,
  ends: DebitEnds,
  options: WorkBillingOptions,
): WorkBilling {
  return {
    async debit(keyId, workId) {
      const reply = await billing.call("debitWork", {
        key_id: keyId,
        work_id: workId,
        operation: options.operation,
        credits: options.credits,
        pending_ms: options.pendingMs,
      });
      return reply.ok ? reply.value : undefined;
    },
    async settle(keyId, workId) {
      const settled = await ends.settle([{ key_id: keyId, request_id: workId }]);
      return settled.ok ? ok(settled.value[0] ?? "expired") : settled;
    },
    async refund(keyId, workId, reason) {
      const refunded = await ends.refund({ key_id: keyId, request_id: workId, reason });
      return refunded.ok ? ok(refunded.value.outcome) : refunded;
    },
  };
}
