/**
 * The gateway's side of billing's hot-path calls (BILLING_RPC in @rda/contracts), timed for the
 * metrics. Every way of not getting a usable answer (billing down, slow, or failing on its store)
 * arrives as a `NatsRequestFailure` value, never as an exception.
 */

import type {
  AdmitReply,
  AdmitRequest,
  BillingRpcName,
  BillingRpcRequest,
  LookupKeyReply,
  LookupKeyRequest,
  Subjects,
} from "@rda/contracts";
import { buildSubjects, type Result } from "@rda/contracts";
import {
  type BillingAnswer,
  type BillingCaller,
  billingCaller,
  type NatsConnection,
  type NatsRequestFailure,
} from "@rda/service-kit";
import type { GatewayMetrics } from "./metrics.ts";

type Answer<T> = Promise<Result<T, NatsRequestFailure>>;

/** The metrics name a call by its subject without the namespace. */
const METRIC_SUBJECTS = buildSubjects("").billing;

export interface BillingClient {
  /** A key by the hash of a presented secret, or by its id for a caller bound to it (OAuth). */
  lookup(by: LookupKeyRequest): Answer<LookupKeyReply>;
  admit(request: AdmitRequest): Answer<AdmitReply>;
  /** Every call, timed the same way; settles and refunds go through service-kit debit-ends.ts. */
  readonly rpc: BillingCaller;
}

export function createBillingClient(deps: {
  nats: NatsConnection;
  subjects: Subjects;
  timeoutMs: number;
  metrics: GatewayMetrics;
}): BillingClient {
  const { metrics } = deps;
  const billing = billingCaller(deps.nats, deps.subjects, deps.timeoutMs);
  const timed = async <N extends BillingRpcName>(
    name: N,
    request: BillingRpcRequest<N>,
  ): BillingAnswer<N> => {
    const started = performance.now();
    const answer = await billing.call(name, request);
    const outcome = answer.ok ? "ok" : answer.error.kind;
    const seconds = (performance.now() - started) / 1000;
    metrics.natsRequestDuration.observe({ subject: METRIC_SUBJECTS[name], outcome }, seconds);
    return answer;
  };
  return {
    lookup: (by) => timed("lookupKey", by),
    admit: (request) => timed("admit", request),
    rpc: { call: (name, request) => timed(name, request) },
  };
}
