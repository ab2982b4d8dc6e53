/**
 * The gateway's side of billing's hot-path subjects (contracts/messages.ts), timed for the metrics.
 * Every way of not getting a usable answer (billing down, slow, or failing on its store) arrives as
 * a `NatsRequestFailure` value, never as an exception.
 */
import {
  type AdmitReply,
  type AdmitRequest,
  admitReplySchema,
  type LookupKeyReply,
  type LookupKeyRequest,
  lookupKeyReplySchema,
  type RefundMessage,
  type RefundReply,
  type Result,
  refundReplySchema,
  type Subjects,
  settleReplySchema,
} from "@rda/contracts";
import { type NatsConnection, type NatsRequestFailure, requestJson } from "@rda/service-kit";
import type { z } from "zod";
import type { GatewayMetrics } from "./metrics.ts";

type Answer<T> = Promise<Result<T, NatsRequestFailure>>;

export interface BillingClient {
  /** A key by the hash of a presented secret, or by its id for a caller bound to it (OAuth). */
  lookup(by: LookupKeyRequest): Answer<LookupKeyReply>;
  admit(request: AdmitRequest): Answer<AdmitReply>;
  settle(debits: { key_id: string; request_id: string }[]): Answer<z.output<typeof settleReplySchema>>;
  refund(message: RefundMessage): Answer<RefundReply>;
}

export function createBillingClient(deps: {
  nats: NatsConnection;
  subjects: Subjects;
  timeoutMs: number;
  metrics: GatewayMetrics;
}): BillingClient {
  const { nats, subjects, timeoutMs, metrics } = deps;
  const billing = subjects.billing;
  const timed = async <S extends z.ZodType>(name: string, subject: string, payload: unknown, schema: S) => {
    const started = performance.now();
    const answer = await requestJson(nats, subject, payload, schema, timeoutMs);
    const outcome = answer.ok ? "ok" : answer.error.kind;
    metrics.natsRequestDuration.observe({ subject: name, outcome }, (performance.now() - started) / 1000);
    return answer;
  };
  return {
    lookup: (by) => timed("billing.keys.lookup", billing.lookupKey, by, lookupKeyReplySchema),
    admit: (request) => timed("billing.admit", billing.admit, request, admitReplySchema),
    settle: (debits) => timed("billing.settle", billing.settle, { debits }, settleReplySchema),
    refund: (message) => timed("billing.refund", billing.refund, message, refundReplySchema),
  };
}
