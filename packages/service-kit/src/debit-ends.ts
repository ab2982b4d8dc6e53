/**
 * The one way a caller ends a pending debit in billing (docs/architecture.md#a-debits-life): the
 * gateway's answered requests, an export's pages and a monitor's webhook batches alike.
 *
 * - Settle now; when billing does not answer, retry with backoff in the background while the debit
 *   can still be settled (`settleRetryMs`, its deadline). After that billing has voided it: an
 *   answered request or finished work then costs nothing, never the other way round.
 * - Refund now; when billing does not answer, queue the refund durably in billing's refund stream
 *   (JetStream, the request id as message id), its publish retried with backoff until stop. A
 *   refund nobody could queue is still not lost: billing voids the debit at its deadline.
 *
 * Billing ends a pending debit once, so every path together ends it exactly once. Both answers
 * are values: how the debit ended (DEBIT_ENDS), or `deferred` (handed to the retry, then the
 * deadline), and a caller acts on each.
 */
import type { DebitEnd, RefundMessage, RefundReply, Result, Subjects } from "@rda/contracts";
import { err, ok } from "@rda/contracts";
import { publishRefund } from "./jetstream.ts";
import type { Logger } from "./logger.ts";
import type { BillingCaller, NatsConnection } from "./nats.ts";
import { retryWithBackoff } from "./retry.ts";

const PUBLISH_TIMEOUT_MS = 2_000;

export interface DebitId {
  readonly key_id: string;
  readonly request_id: string;
}

/** Billing did not answer: the end is the background retry's, and the deadline's after it. */
export type Deferred = "deferred";

export interface DebitEnds {
  /** How each debit ended, in order; `deferred` when billing did not answer the first try. */
  settle(debits: readonly DebitId[]): Promise<Result<readonly DebitEnd[], Deferred>>;
  /** How the debit ended and the balance after; `deferred` when the refund was queued instead. */
  refund(message: RefundMessage): Promise<Result<RefundReply, Deferred>>;
  /** Queues a refund durably without asking billing first. */
  refundLater(message: RefundMessage): void;
  /** Ends the background retries (one last try each) and waits for them. */
  stop(): Promise<void>;
}

/** What the caller counts (metrics); every hook is optional. */
export interface DebitEndsHooks {
  /** Credits went back now, or their refund is durably queued. */
  readonly refunded?: (reason: string) => void;
  readonly refundPublishFailed?: () => void;
}

export interface DebitEndsDeps {
  readonly billing: BillingCaller;
  readonly nats: NatsConnection;
  readonly subjects: Subjects;
  readonly logger: Logger;
  /** How long a settlement is worth retrying: the debits' pending deadline. */
  readonly settleRetryMs: number;
  readonly hooks?: DebitEndsHooks;
}

export function createDebitEnds(deps: DebitEndsDeps): DebitEnds {
  const { billing, logger } = deps;
  const hooks = deps.hooks ?? {};
  const background = new Set<Promise<void>>();
  const queued = new Set<string>();
  let stopping = false;
  const inBackground = (work: Promise<void>) => {
    const tracked = work.finally(() => background.delete(tracked));
    background.add(tracked);
  };

  const settling = new Set<string>();
  const settleLater = (debits: readonly DebitId[]) => {
    // A caller that asks again each turn (its own record says "not settled yet") retries once.
    const batch = debits.map((debit) => `${debit.key_id}|${debit.request_id}`).join(",");
    if (settling.has(batch)) return;
    settling.add(batch);
    inBackground(
      (async () => {
        const giveUpAt = Date.now() + deps.settleRetryMs;
        const reply = await retryWithBackoff(() => billing.call("settle", { debits: [...debits] }), {
          giveUp: (nextDelayMs) => stopping || Date.now() + nextDelayMs >= giveUpAt,
        });
        if (!reply.ok)
          logger.warn(
            { debits: debits.length, reason: reply.error.message },
            "debits not settled; billing voids them at their deadline",
          );
      })().finally(() => settling.delete(batch)),
    );
  };

  const publishOnce = async (message: RefundMessage) => {
    const outcome = await publishRefund(deps.nats, deps.subjects, message, PUBLISH_TIMEOUT_MS);
    if (!outcome.ok) {
      hooks.refundPublishFailed?.();
      logger.warn({ refund: message, reason: outcome.error }, "refund publish failed; will retry");
    }
    return outcome;
  };
  const refundLater = (message: RefundMessage) => {
    if (queued.has(message.request_id)) return;
    queued.add(message.request_id);
    inBackground(
      (async () => {
        const outcome = await retryWithBackoff(() => publishOnce(message), { giveUp: () => stopping });
        if (outcome.ok) hooks.refunded?.(message.reason);
        else
          logger.error(
            { refund: message },
            "refund not queued before shutdown; billing voids the debit at its deadline",
          );
      })().finally(() => queued.delete(message.request_id)),
    );
  };

  return {
    async settle(debits) {
      const reply = await billing.call("settle", { debits: [...debits] });
      if (reply.ok) return ok(reply.value.ends);
      settleLater(debits);
      return err("deferred");
    },
    async refund(message) {
      const reply = await billing.call("refund", message);
      if (!reply.ok) {
        refundLater(message);
        return err("deferred");
      }
      if (reply.value.outcome === "refunded") hooks.refunded?.(message.reason);
      return ok(reply.value);
    },
    refundLater,
    async stop() {
      stopping = true;
      while (background.size > 0) await Promise.allSettled([...background]);
    },
  };
}
