/**
 * Admission as the gateway enforces it: one `billing.admit` request, whose answer billing decided
 * in one atomic step (the key's bucket, the balance, the spend cap, the debit), mapped to the
 * catalog's refusals. The key's bucket comes back with every answer, for the RateLimit headers.
 */
import {
  type AdmitReply,
  type AdmitRequest,
  type BillingRpcName,
  type BillingRpcRequest,
  buildSubjects,
  type KeyBucket,
  type LookupKeyReply,
  type LookupKeyRequest,
  type MonthSpend,
  type Result,
  type Subjects,
  spendCapDetail,
} from "@rda/contracts";
import {
  type BillingAnswer,
  type BillingCaller,
  billingCaller,
  type NatsConnection,
  type NatsRequestFailure,
  type SpendingRefusal,
} from "@rda/service-kit";
import { fail, type GatewayContext, type Step, succeed } from "./context.ts";
import type { KeyInfo } from "./key-directory.ts";
import type { GatewayMetrics } from "./metrics.ts";

export interface AdmissionRequest {
  readonly requestId: string;
  readonly operation: string;
  readonly credits: number;
  /** Tokens of the key's bucket to spend (1 per request; more for a batch of /mcp messages). */
  readonly tokens?: number;
}

export interface Admitted {
  /** The balance after the debit (or as read, for a free request). */
  readonly balance: number;
  readonly bucket: KeyBucket;
  /** The key's spend this month against its cap. */
  readonly monthSpend: MonthSpend;
  /** The balance below which the key's account is told. */
  readonly lowBalanceThreshold: number;
}

/**
 * The key's bucket, whenever billing got as far as the key (for the RateLimit headers); and for a
 * refusal for credits, billing's why (for whoever tells the key's account of a pause).
 */
export type WithBucket = {
  readonly bucket?: KeyBucket;
  readonly refusal?: SpendingRefusal & { readonly low_balance_round?: number | undefined };
};

export async function admitThroughBilling(
  ctx: GatewayContext,
  key: KeyInfo,
  request: AdmissionRequest,
): Promise<Step<Admitted> & WithBucket> {
  const reply = await ctx.billing.admit({
    key_id: key.id,
    key_hash: key.hash,
    request_id: request.requestId,
    operation: request.operation,
    credits: request.credits,
    tokens: request.tokens ?? 1,
    pending_ms: ctx.settings.pendingDebitMs,
  });
  if (!reply.ok) {
    // No responders, or NATS offline: nobody received the request, nothing was taken. Any other
    // failure may have debited: the debit stays pending, and billing voids it at its deadline if
    // nobody refunds it.
    const unsent = reply.error.kind === "no_responders" || reply.error.kind === "offline";
    if (!unsent && request.credits > 0)
      ctx.refunds.refundLater({
        key_id: key.id,
        request_id: request.requestId,
        reason: "service_unavailable",
      });
    // Billing's own bug (a service error 500) is ours too: a 500, not an outage to retry.
    if (reply.error.kind === "service_error" && reply.error.code === 500)
      return fail("internal_error", { internal: reply.error.message });
    return fail("service_unavailable", { retryAfterSeconds: 1, internal: reply.error.message });
  }
  const answer = reply.value;
  switch (answer.outcome) {
    case "admitted":
      if (request.credits > 0) ctx.metrics.creditsDebited.inc(request.credits);
      return {
        ...succeed({
          balance: answer.balance,
          bucket: answer.bucket,
          monthSpend: answer.month_spend,
          lowBalanceThreshold: answer.low_balance_threshold,
        }),
        bucket: answer.bucket,
      };
    case "insufficient":
      return {
        ...fail("insufficient_credits"),
        bucket: answer.bucket,
        refusal: { ...answer, account_id: key.account_id },
      };
    case "spend_cap_reached":
      return {
        ...fail("spend_cap_reached", { detail: spendCapDetail(key.id, answer.month_spend) }),
        bucket: answer.bucket,
        refusal: { ...answer, account_id: key.account_id },
      };
    case "rate_limited":
      ctx.metrics.rateLimited.inc({ scope: "key" });
      return {
        ...fail("rate_limited", { retryAfterSeconds: answer.retry_after_ms / 1000 }),
        bucket: answer.bucket,
      };
    case "unknown_key":
    case "revoked":
      ctx.keys.evict(key.id);
      return fail("invalid_api_key");
  }
}

/**
 * The gateway's side of billing's hot-path calls (BILLING_RPC in @rda/contracts), timed for the
 * metrics. Every way of not getting a usable answer (billing down, slow, or failing on its store)
 * arrives as a `NatsRequestFailure` value, never as an exception.
 */
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
