/**
 * Every billing subject and its handler, in one place (explicit wiring). The hot path (lookup,
 * admit, settle, refund) is bounded by a short store timeout; key management (key-commands.ts) by a
 * longer one.
 */
import type { admitRequestSchema, RefundMessage, WorkDebitRequest } from "@rda/contracts";
import { type RequestHandler, ServiceError } from "@rda/service-kit";
import type { z } from "zod";
import { billingEndpoint } from "./json-endpoint.ts";
import { addCredits, capSpend, create, list, revoke, rotate, show, usage, verify } from "./key-commands.ts";
import {
  type DebitId,
  debitWork,
  decideAdmission,
  lookupKey,
  type RedisClock,
  refund,
  setLowBalanceThreshold,
  settle,
} from "./ledger/index.ts";
import { crossingsOf, publishCrossings } from "./notice-events.ts";
import type { PaymentCommandDeps } from "./payment-commands.ts";
import * as payments from "./payment-commands.ts";

export interface EndpointDeps extends PaymentCommandDeps {
  readonly storeTimeoutMs: number;
  readonly redisClock: RedisClock;
}

export function billingEndpoints(deps: EndpointDeps): { subject: string; handler: RequestHandler }[] {
  const { context, logger, subjects } = deps;
  const onRefused = (subject: string) => deps.metrics.refusedRequests.inc({ subject });
  const onBug = (subject: string) => deps.metrics.internalErrors.inc({ subject });
  const hot = { logger, onRefused, onBug, timeoutMs: deps.storeTimeoutMs };
  const manage = { logger, onRefused, onBug, timeoutMs: deps.storeTimeoutMs * 5 };
  // Unbounded: verifying a large ledger takes as long as it takes.
  const unbounded = { logger, onRefused, onBug };
  return [
    billingEndpoint(subjects, "lookupKey", (r) => lookupKey(context, r), hot),
    billingEndpoint(subjects, "admit", (r) => admitAndCount(deps, r), hot),
    billingEndpoint(subjects, "settle", (r) => settleAndCount(deps, r.debits), hot),
    billingEndpoint(subjects, "refund", (r) => refundAndCount(deps, r), hot),
    billingEndpoint(subjects, "debitWork", (r) => debitWorkAndCount(deps, r), hot),
    billingEndpoint(subjects, "createKey", (r) => create(deps, r), manage),
    billingEndpoint(subjects, "showKey", (r) => show(deps, r), manage),
    billingEndpoint(subjects, "listKeys", (r) => list(deps, r), manage),
    billingEndpoint(subjects, "revokeKey", (r) => revoke(deps, r), manage),
    billingEndpoint(subjects, "rotateKey", (r) => rotate(deps, r), manage),
    billingEndpoint(subjects, "createAccountKey", (r) => create(deps, r), manage),
    billingEndpoint(subjects, "revokeAccountKey", (r) => revoke(deps, r), manage),
    billingEndpoint(subjects, "rotateAccountKey", (r) => rotate(deps, r), manage),
    billingEndpoint(
      subjects,
      "setLowBalanceThreshold",
      async (r) => ({
        keys_updated: await setLowBalanceThreshold(context, r.account_id, r.low_balance_threshold),
      }),
      manage,
    ),
    billingEndpoint(subjects, "setSpendCap", (r) => capSpend(deps, r), manage),
    billingEndpoint(subjects, "setAccountSpendCap", (r) => capSpend(deps, r), manage),
    billingEndpoint(subjects, "keyUsage", (r) => usage(deps, r), manage),
    billingEndpoint(subjects, "topUp", (r) => addCredits(deps, r), manage),
    billingEndpoint(subjects, "applyPayment", (r) => payments.apply(deps, r), manage),
    billingEndpoint(subjects, "reversePayment", (r) => payments.reverse(deps, r), manage),
    billingEndpoint(subjects, "listPayments", (r) => payments.list(deps, r), manage),
    billingEndpoint(subjects, "verifyLedger", () => verify(deps), unbounded),
  ];
}

/** Admission, with its outcome counted for data requests (a request that takes credits). */
async function admitAndCount(deps: EndpointDeps, r: z.output<typeof admitRequestSchema>) {
  const reply = await decideAdmission(deps.context, {
    keyId: r.key_id,
    keyHash: r.key_hash ?? "",
    requestId: r.request_id,
    operation: r.operation,
    credits: r.credits,
    tokens: r.tokens,
    pendingMs: r.pending_ms,
    // The moment the endpoint stops waiting (json-endpoint.ts) and answers 503.
    deadline: deps.redisClock.now() + deps.storeTimeoutMs,
  });
  if (reply.outcome === "expired")
    throw new ServiceError(503, "the admission reached the ledger store after billing stopped waiting");
  if (r.credits > 0) deps.metrics.debits.inc({ outcome: reply.outcome });
  if (reply.outcome === "admitted") publishCrossings(deps, r.key_id, crossingsOf(r.key_id, r.credits, reply));
  return reply;
}

/**
 * A work debit (ledger/work-debits.ts), counted with the debits and telling the lines it crossed
 * like an admission. A refusal is answered with why; pausing the work and telling the account of
 * the pause is the caller's (service-kit work-billing.ts).
 */
async function debitWorkAndCount(deps: EndpointDeps, r: Required<WorkDebitRequest>) {
  // The moment the endpoint stops waiting (json-endpoint.ts) and answers 503.
  const debit = await debitWork(deps.context, r, deps.redisClock.now() + deps.storeTimeoutMs);
  if (debit.reply.outcome === "expired")
    throw new ServiceError(503, "the work debit reached the ledger store after billing stopped waiting");
  deps.metrics.debits.inc({ outcome: debit.reply.outcome });
  if ("figures" in debit && debit.figures)
    publishCrossings(deps, r.key_id, crossingsOf(r.key_id, r.credits, debit.figures));
  return debit.reply;
}

/** Settlements, counted by how each debit ended; one for a debit billing holds no record of is logged. */
async function settleAndCount(deps: EndpointDeps, debits: DebitId[]) {
  const result = await settle(deps.context, debits);
  for (const end of result.ends) deps.metrics.settlements.inc({ outcome: end });
  const expired = result.ends.filter((end) => end === "expired").length;
  if (expired > 0) deps.logger.warn({ expired }, "settlement asked for debits billing holds no record of");
  return result;
}

/** A refund, counted; one for a debit billing holds no record of gives nothing back and says so. */
async function refundAndCount(deps: EndpointDeps, message: RefundMessage) {
  const { outcome, balance } = await refund(deps.context, message);
  deps.metrics.refunds.inc({ outcome });
  if (outcome === "expired") {
    deps.logger.warn(
      { key_id: message.key_id, request_id: message.request_id },
      "refund of a debit billing holds no record of",
    );
  }
  return { outcome, balance };
}
