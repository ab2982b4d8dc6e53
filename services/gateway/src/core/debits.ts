/**
 * How the gateway ends its requests' debits, both through the one settle-and-refund path
 * (service-kit debit-ends.ts).
 *
 * Settling: once a response has been written to the client's socket its pending debit becomes
 * final. Settling is batched (one `billing.settle` per flush of up to MAX_BATCH debits, at most every
 * FLUSH_MS) so it costs a small fraction of a request; debit-ends retries a batch billing did not
 * answer for as long as its debits can still be settled. After that billing has voided them, which
 * refunds requests that were answered — the one error a crash or a long outage may make, never the
 * other way round.
 *
 * Refunding (docs/api.md#refunds): a debited request that will not be answered with data gets its
 * credit back at once when billing answers, so the failure's answer can carry the true balance;
 * otherwise the refund is queued durably in billing's refund stream; and, if even that fails, billing
 * voids the debit at its deadline.
 */
import type { RefundMessage } from "@rda/contracts";
import type { DebitEnds, Logger } from "@rda/service-kit";

const FLUSH_MS = 25;
const MAX_BATCH = 500;

export interface Settlement {
  settle(keyId: string, requestId: string): void;
  /** Sends everything waiting, for a graceful shutdown. */
  stop(): Promise<void>;
}

export function createSettlement(deps: { ends: DebitEnds; logger: Logger }): Settlement {
  let batch: { key_id: string; request_id: string }[] = [];
  let timer: NodeJS.Timeout | undefined;
  const sending = new Set<Promise<void>>();

  const send = async (debits: { key_id: string; request_id: string }[]) => {
    const settled = await deps.ends.settle(debits);
    // Deferred: retried in the background. Ended otherwise (voided first): the answer was free.
    const free = settled.ok
      ? settled.value.filter((end) => end !== "settled" && end !== "already_settled")
      : [];
    if (free.length > 0)
      deps.logger.warn({ debits: free.length, ends: free }, "answered requests not charged");
  };
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (batch.length === 0) return;
    const work = send(batch).finally(() => sending.delete(work));
    sending.add(work);
    batch = [];
  };

  return {
    settle(keyId, requestId) {
      batch.push({ key_id: keyId, request_id: requestId });
      if (batch.length >= MAX_BATCH) flush();
      else timer ??= setTimeout(flush, FLUSH_MS);
    },
    async stop() {
      flush();
      await Promise.allSettled([...sending]);
      await deps.ends.stop();
    },
  };
}

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
