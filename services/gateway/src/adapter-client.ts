/**
 * Sends an operation's validated parameters to its adapter over NATS and reads the reply frame
 * (contracts/adapter-frame.ts). The data bytes are handed on untouched. Outcomes map as
 * architecture.md says: bad_request → 400, rate_limited (the upstream's refusal) and budget_spent
 * (ours) → 429 global, each with its own message, everything else → 502; each of
 * these happens after the debit, so the caller refunds. An adapter silent for
 * ADAPTER_PROGRESS.silenceMs (no progress message, no reply) is given up at once: it is gone.
 */
import { ADAPTER_PROGRESS, type AdapterOperation, decodeAdapterReply, type Subjects } from "@rda/contracts";
import { type NatsConnection, requestWithProgress } from "@rda/service-kit";
import { fail, type Step, succeed } from "./failure.ts";
import type { GatewayMetrics } from "./metrics.ts";

export interface AdapterData {
  readonly data: Uint8Array;
  readonly cursor: number | null;
  readonly has_more: boolean;
  /** Epoch ms the upstream produced the oldest answer behind this data (undefined: not said). */
  readonly fetchedAtMs: number | undefined;
  /** How long after `fetchedAtMs` it may be served again (undefined: not at all). */
  readonly maxAgeS: number | undefined;
  /** How the upstream answers behind it were had, the costliest way named (undefined: not said). */
  readonly source: AnswerSource | undefined;
}

export type AnswerSource = "cache" | "joined" | "upstream";

export interface AdapterCallOptions {
  /** The caller's `Cache-Control` bound in seconds (0: `no-cache`); none: the data's own bound. */
  readonly maxAgeS?: number;
  /** Answer only from the shared cache, never calling the upstream; a miss is `upstream_rate_limited`. */
  readonly cacheOnly?: boolean;
  /** Whose fair share of the upstream budget the calls draw on (`budgetAccountOf`). */
  readonly account?: string;
}

export interface AdapterClient {
  call(
    operation: AdapterOperation,
    requestId: string,
    params: unknown,
    options?: AdapterCallOptions,
  ): Promise<Step<AdapterData>>;
}

export function createAdapterClient(deps: {
  nats: NatsConnection;
  subjects: Subjects;
  timeoutMs: number;
  metrics: GatewayMetrics;
}): AdapterClient {
  const { nats, subjects, timeoutMs, metrics } = deps;
  return {
    async call(operation, requestId, params, options = {}) {
      const subject = subjects.adapter[operation];
      const started = performance.now();
      // An adapter on a long upstream call sends progress; silence means it died (502, refunded).
      const reply = await requestWithProgress(
        nats,
        subject,
        JSON.stringify({
          request_id: requestId,
          params,
          max_age_s: options.maxAgeS,
          cache_only: options.cacheOnly || undefined,
          account: options.account,
        }),
        {
          timeoutMs,
          silenceMs: ADAPTER_PROGRESS.silenceMs,
        },
      );
      const result = reply.ok
        ? readAdapterFrame(reply.value)
        : { outcome: reply.error.kind, step: unavailable(reply.error.message) };
      // Our own budget's refusals are the gateway's global 429s; the upstream's are adapter outcomes.
      if (result.outcome === "budget_spent") metrics.rateLimited.inc({ scope: "global" });
      // A cache-only call is counted by its caller (gateway_cache_first_lookups_total): its miss is
      // no adapter outcome, and its time would blur the adapters' own.
      if (options.cacheOnly) return result.step;
      const seconds = (performance.now() - started) / 1000;
      metrics.natsRequestDuration.observe(
        { subject: stripNamespace(subject), outcome: result.outcome },
        seconds,
      );
      metrics.adapterOutcomes.inc({ operation, outcome: result.outcome });
      return result.step;
    },
  };
}

/** An adapter's reply frame, as sent or as kept in the cache of answers (cached-answer.ts). */
export function readAdapterFrame(frame: Uint8Array): { outcome: string; step: Step<AdapterData> } {
  const decoded = decodeAdapterReply(frame);
  if (!decoded.ok) return { outcome: "malformed_reply", step: unavailable(decoded.error) };
  const { meta, data } = decoded.value;
  switch (meta.outcome) {
    case "ok":
      return {
        outcome: "ok",
        step: succeed({
          data: data ?? new Uint8Array(),
          cursor: meta.cursor ?? null,
          has_more: meta.has_more ?? false,
          fetchedAtMs: meta.fetched_at_ms,
          maxAgeS: meta.max_age_s,
          source: meta.source,
        }),
      };
    case "bad_request":
      return { outcome: meta.outcome, step: fail("upstream_rejected", { detail: bounded(meta.message) }) };
    case "too_large":
      return { outcome: meta.outcome, step: fail("window_too_large", { detail: bounded(meta.message) }) };
    case "rate_limited":
      return {
        outcome: meta.outcome,
        step: fail("upstream_rate_limited", { retryAfterSeconds: meta.retry_after_seconds }),
      };
    case "budget_spent":
      return {
        outcome: meta.outcome,
        step: fail("global_rate_limited", { retryAfterSeconds: meta.retry_after_seconds }),
      };
    case "unavailable":
      return { outcome: meta.outcome, step: unavailable(meta.message) };
    case "store_unavailable":
      // Our own store, not the upstream: 503 with Retry-After, refunded (docs/api.md#errors).
      return {
        outcome: meta.outcome,
        step: fail("service_unavailable", { retryAfterSeconds: 1, internal: bounded(meta.message) }),
      };
  }
}

/** The internal reason goes to the log, not to the caller: the catalog message is the public one. */
function unavailable(reason: string): Step<never> {
  return fail("upstream_unavailable", { internal: bounded(reason) });
}

function bounded(message: string): string {
  return message.slice(0, 300);
}

function stripNamespace(subject: string): string {
  return subject.split(".").slice(-3).join(".");
}
