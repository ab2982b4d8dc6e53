/**
 * Settles the debits of answered requests: once a response has been written to the client's socket
 * its pending debit becomes final. Settling is batched (one `billing.settle` per flush of up to
 * MAX_BATCH debits, at most every FLUSH_MS) so it costs a small fraction of a request. A batch that
 * cannot be delivered (billing or its Redis briefly down) is retried with backoff for as long as its
 * debits can still be settled, `retryForMs` (the pending deadline), so an outage shorter than that
 * never refunds an answered request. After that billing has voided them, which refunds requests that
 * were answered — the one error a crash or a long outage may make, never the other way round.
 */
import { type Logger, retryWithBackoff } from "@rda/service-kit";
import type { BillingClient } from "./billing-client.ts";

const FLUSH_MS = 25;
const MAX_BATCH = 500;

export interface Settlement {
  settle(keyId: string, requestId: string): void;
  /** Sends everything waiting, for a graceful shutdown (one more try for a batch being retried). */
  stop(): Promise<void>;
}

export function createSettlement(deps: {
  billing: BillingClient;
  logger: Logger;
  retryForMs: number;
}): Settlement {
  let batch: { key_id: string; request_id: string }[] = [];
  let timer: NodeJS.Timeout | undefined;
  let stopping = false;
  const sending = new Set<Promise<void>>();

  const send = async (debits: { key_id: string; request_id: string }[]) => {
    const giveUpAt = Date.now() + deps.retryForMs;
    const reply = await retryWithBackoff(() => deps.billing.settle(debits), {
      giveUp: (nextDelayMs) => stopping || Date.now() + nextDelayMs >= giveUpAt,
    });
    if (!reply.ok)
      deps.logger.warn(
        { debits: debits.length, reason: reply.error.message },
        "debits not settled; billing voids them",
      );
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
      stopping = true;
      await Promise.allSettled([...sending]);
    },
  };
}
