/**
 * Every billing subject and its handler, in one place (explicit wiring). The hot path (lookup,
 * admit, settle, refund) is bounded by a short store timeout; key management (key-commands.ts) by a
 * longer one.
 */
import {
  admitRequestSchema,
  applyPaymentRequestSchema,
  createAccountKeyRequestSchema,
  createKeyRequestSchema,
  keyUsageRequestSchema,
  listKeysRequestSchema,
  listPaymentsRequestSchema,
  lookupKeyRequestSchema,
  type RefundMessage,
  refundMessageSchema,
  reversePaymentRequestSchema,
  revokeAccountKeyRequestSchema,
  revokeKeyRequestSchema,
  rotateAccountKeyRequestSchema,
  rotateKeyRequestSchema,
  settleRequestSchema,
  showKeyRequestSchema,
  topUpRequestSchema,
  verifyLedgerRequestSchema,
} from "@rda/contracts";
import { type RequestHandler, ServiceError } from "@rda/service-kit";
import type { z } from "zod";
import { jsonEndpoint } from "./json-endpoint.ts";
import { addCredits, create, list, revoke, rotate, show, usage, verify } from "./key-commands.ts";
import {
  admit,
  type DebitId,
  lookupKey,
  type RedisClock,
  type Reserve,
  refund,
  refundReply,
  settle,
} from "./ledger/index.ts";
import type { PaymentCommandDeps } from "./payment-commands.ts";
import * as payments from "./payment-commands.ts";

export interface EndpointDeps extends PaymentCommandDeps {
  readonly storeTimeoutMs: number;
  readonly reserve: Reserve;
  readonly redisClock: RedisClock;
}

export function billingEndpoints(deps: EndpointDeps): { subject: string; handler: RequestHandler }[] {
  const { context, logger } = deps;
  const onRefused = (subject: string) => deps.metrics.refusedRequests.inc({ subject });
  const onBug = (subject: string) => deps.metrics.internalErrors.inc({ subject });
  const hot = { logger, onRefused, onBug, timeoutMs: deps.storeTimeoutMs };
  const manage = { logger, onRefused, onBug, timeoutMs: deps.storeTimeoutMs * 5 };
  const billing = deps.subjects.billing;
  const endpoint = jsonEndpoint;
  return [
    {
      subject: billing.lookupKey,
      handler: endpoint(lookupKeyRequestSchema, (r) => lookupKey(context, r), hot),
    },
    {
      subject: billing.admit,
      handler: endpoint(admitRequestSchema, (r) => admitAndCount(deps, r), hot),
    },
    {
      subject: billing.settle,
      handler: endpoint(settleRequestSchema, (r) => settleAndCount(deps, r.debits), hot),
    },
    { subject: billing.refund, handler: endpoint(refundMessageSchema, (r) => refundAndCount(deps, r), hot) },
    { subject: billing.createKey, handler: endpoint(createKeyRequestSchema, (r) => create(deps, r), manage) },
    { subject: billing.showKey, handler: endpoint(showKeyRequestSchema, (r) => show(deps, r), manage) },
    { subject: billing.listKeys, handler: endpoint(listKeysRequestSchema, (r) => list(deps, r), manage) },
    { subject: billing.revokeKey, handler: endpoint(revokeKeyRequestSchema, (r) => revoke(deps, r), manage) },
    { subject: billing.rotateKey, handler: endpoint(rotateKeyRequestSchema, (r) => rotate(deps, r), manage) },
    {
      subject: billing.createAccountKey,
      handler: endpoint(createAccountKeyRequestSchema, (r) => create(deps, r), manage),
    },
    {
      subject: billing.revokeAccountKey,
      handler: endpoint(revokeAccountKeyRequestSchema, (r) => revoke(deps, r), manage),
    },
    {
      subject: billing.rotateAccountKey,
      handler: endpoint(rotateAccountKeyRequestSchema, (r) => rotate(deps, r), manage),
    },
    { subject: billing.keyUsage, handler: endpoint(keyUsageRequestSchema, (r) => usage(deps, r), manage) },
    { subject: billing.topUp, handler: endpoint(topUpRequestSchema, (r) => addCredits(deps, r), manage) },
    {
      subject: billing.applyPayment,
      handler: endpoint(applyPaymentRequestSchema, (r) => payments.apply(deps, r), manage),
    },
    {
      subject: billing.reversePayment,
      handler: endpoint(reversePaymentRequestSchema, (r) => payments.reverse(deps, r), manage),
    },
    {
      subject: billing.listPayments,
      handler: endpoint(listPaymentsRequestSchema, (r) => payments.list(deps, r), manage),
    },
    // Unbounded: verifying a large ledger takes as long as it takes.
    {
      subject: billing.verifyLedger,
      handler: endpoint(verifyLedgerRequestSchema, () => verify(deps), { logger, onRefused, onBug }),
    },
  ];
}

/** Admission, with its outcome counted for data requests (a request that takes credits). */
async function admitAndCount(deps: EndpointDeps, r: z.output<typeof admitRequestSchema>) {
  const reply = await admit(
    deps.context,
    {
      keyId: r.key_id,
      keyHash: r.key_hash ?? "",
      requestId: r.request_id,
      operation: r.operation,
      credits: r.credits,
      tokens: r.tokens,
      reserve: r.reserve,
      pendingMs: r.pending_ms,
      // The moment the endpoint stops waiting (json-endpoint.ts) and answers 503.
      deadline: deps.redisClock.now() + deps.storeTimeoutMs,
    },
    deps.reserve,
  );
  if (reply.outcome === "expired")
    throw new ServiceError(503, "the admission reached the ledger store after billing stopped waiting");
  if (r.credits > 0) deps.metrics.debits.inc({ outcome: reply.outcome });
  return reply;
}

/** Settlements, counted; one for a debit billing never recorded is refused and counted as such. */
async function settleAndCount(deps: EndpointDeps, debits: DebitId[]) {
  const { settled, ignored, unknown } = await settle(deps.context, debits);
  deps.metrics.settlements.inc({ outcome: "settled" }, settled);
  deps.metrics.settlements.inc({ outcome: "already_ended" }, ignored - unknown);
  deps.metrics.settlements.inc({ outcome: "unknown_debit" }, unknown);
  if (unknown > 0) deps.logger.warn({ unknown }, "settlement asked for debits never recorded");
  return { settled, ignored };
}

/** A refund, counted; one for a debit billing never recorded gives nothing back and says so. */
async function refundAndCount(deps: EndpointDeps, message: RefundMessage) {
  const result = await refund(deps.context, message);
  deps.metrics.refunds.inc({ outcome: result.outcome });
  if (result.outcome === "unknown_debit") {
    deps.logger.warn(
      { key_id: message.key_id, request_id: message.request_id },
      "refund of a debit never recorded",
    );
  }
  return refundReply(result);
}
