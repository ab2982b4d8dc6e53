/**
 * Refunds of a debited request that will not be answered with data (docs/api.md#refunds), through
 * the one settle-and-refund path (service-kit debit-ends.ts): applied at once when billing answers,
 * so the failure's answer can carry the true balance; otherwise queued durably in billing's refund
 * stream; and, if even that fails, voided by billing at the debit's deadline.
 */
import type { RefundMessage } from "@rda/contracts";
import type { DebitEnds } from "@rda/service-kit";

export interface Refunds {
  /** Applies the refund now when billing answers; returns the balance after it, or null if unknown. */
  refundNow(message: RefundMessage): Promise<number | null>;
  /** Queues the refund durably; delivery is debit-ends' job. */
  refundLater(message: RefundMessage): void;
}

export function createRefunds(ends: DebitEnds): Refunds {
  return {
    async refundNow(message) {
      const refunded = await ends.refund(message);
      return refunded.ok ? refunded.value.balance : null;
    },
    refundLater: (message) => ends.refundLater(message),
  };
}
