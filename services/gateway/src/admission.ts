/**
 * Admission as the gateway enforces it: one `billing.admit` request, whose answer billing decided
 * in one atomic step (the key's bucket, the balance, the spend cap, the debit), mapped to the
 * catalog's refusals. The key's bucket comes back with every answer, for the RateLimit headers.
 */
import {
  type AdapterReplyMeta,
  type AdmitReply,
  type AdmitRequest,
  admitReplySchema,
  type BillingRpcName,
  type BillingRpcRequest,
  buildSubjects,
  decodeJson,
  err,
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
  requestRaw,
  type SpendingRefusal,
} from "@rda/service-kit";
import type { AdapterData } from "./adapter-client.ts";
import type { GatewayContext } from "./context.ts";
import { fail, type Step, succeed } from "./failure.ts";
import type { KeyInfo } from "./key-directory.ts";
import type { GatewayMetrics } from "./metrics.ts";

export interface AdmissionRequest {
  readonly requestId: string;
  readonly operation: string;
  readonly credits: number;
  /** Tokens of the key's bucket to spend (1 per request; more for a batch of /mcp messages). */
  readonly tokens?: number;
  /**
   * The request's name in the cache of answers and the caller's bound on a kept answer's age:
   * billing serves a kept answer with the admission, the debit settled (a cache hit).
   */
  readonly answer?: { readonly hash: string; readonly maxAgeS: number | undefined };
}

export interface Admitted {
  /** The balance after the debit (or as read, for a free request). */
  readonly balance: number;
  readonly bucket: KeyBucket;
  /** The key's spend this month against its cap, when billing reports it. */
  readonly monthSpend?: MonthSpend;
  /** The balance below which the key's account is told, when billing reports it. */
  readonly lowBalanceThreshold?: number;
  /** The kept answer billing served with the admission; its debit is settled already. */
  readonly answer?: AdapterData;
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
    ...(request.answer && {
      answer_hash: request.answer.hash,
      ...(request.answer.maxAgeS !== undefined && { answer_max_age_s: request.answer.maxAgeS }),
    }),
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
          ...(answer.frame && { answer: keptAnswer(answer.frame) }),
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
 * A kept answer's frame as billing served it: written by our adapters and found fresh by billing,
 * so its head is read as it is (no schema on the hot path) and its data bytes are handed on.
 */
function keptAnswer(frame: Uint8Array): AdapterData {
  const split = frame.indexOf(NEWLINE);
  const meta = JSON.parse(Buffer.from(frame.buffer, frame.byteOffset, split).toString()) as AdapterReplyMeta;
  if (meta.outcome !== "ok") throw new Error("billing served a kept answer that is not one");
  return {
    data: frame.subarray(split + 1),
    cursor: meta.cursor ?? null,
    has_more: meta.has_more ?? false,
    fetchedAtMs: meta.fetched_at_ms,
    maxAgeS: meta.max_age_s,
    source: "cache",
  };
}

const NEWLINE = 0x0a;

/** An admission's reply; with a cache hit (`answered`), the kept answer's frame that follows it. */
export type AdmitAnswer = AdmitReply & { readonly frame?: Uint8Array };

/** billing.admit's reply: its JSON, then for a cache hit a newline and the kept answer's frame. */
function readAdmitReply(bytes: Uint8Array): Result<AdmitAnswer, NatsRequestFailure> {
  const split = bytes.indexOf(NEWLINE);
  const head = decodeJson(split === -1 ? bytes : bytes.subarray(0, split), admitReplySchema);
  if (!head.ok)
    return err({ kind: "malformed_reply", message: `malformed reply on billing.admit: ${head.error}` });
  const reply = head.value;
  const answered = reply.outcome === "admitted" && reply.answered === true;
  if (answered !== (split !== -1))
    return err({
      kind: "malformed_reply",
      message: "billing.admit: a kept answer without its frame, or the other way round",
    });
  return { ok: true, value: answered ? { ...reply, frame: bytes.subarray(split + 1) } : reply };
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
  admit(request: AdmitRequest): Answer<AdmitAnswer>;
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
    // Read as bytes: a cache hit's reply carries the kept answer after its JSON.
    admit: async (request) => {
      const started = performance.now();
      const raw = await requestRaw(
        deps.nats,
        deps.subjects.billing.admit,
        JSON.stringify(request),
        deps.timeoutMs,
      );
      const answer = raw.ok ? readAdmitReply(raw.value) : raw;
      const outcome = answer.ok ? "ok" : answer.error.kind;
      metrics.natsRequestDuration.observe(
        { subject: METRIC_SUBJECTS.admit, outcome },
        (performance.now() - started) / 1000,
      );
      return answer;
    },
    rpc: { call: (name, request) => timed(name, request) },
  };
}
