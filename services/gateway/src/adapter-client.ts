/**
 * Asks an operation's adapter with its validated parameters through service-kit's one adapter
 * caller (`callAdapter`), and says what each outcome means to the gateway's caller. The data bytes
 * are handed on untouched. Outcomes map as
 * architecture.md says: bad_request → 400, rate_limited (the upstream's refusal) and budget_spent
 * (ours) → 429 global, each with its own message, everything else → 502; each of
 * these happens after the debit, so the caller refunds. An adapter silent for
 * ADAPTER_PROGRESS.silenceMs (no progress message, no reply) is given up at once: it is gone.
 */
import type { AdapterOperation, Subjects } from "@rda/contracts";
import {
  type AdapterOutcome,
  type AnswerSource,
  callAdapter,
  type NatsConnection,
  readAdapterReply,
} from "@rda/service-kit";
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

export interface AdapterCallOptions {
  /** The caller's `Cache-Control` bound in seconds (0: `no-cache`); none: the data's own bound. */
  readonly maxAgeS?: number;
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
      const started = performance.now();
      // service-kit's one adapter caller; an adapter on a long upstream call sends progress, and
      // silence means it died (502, refunded).
      const answer = await callAdapter(nats, subjects, {
        operation,
        requestId,
        params,
        maxAgeS: options.maxAgeS,
        account: options.account,
        timeoutMs,
      });
      const outcome = answer.outcome === "no_answer" ? answer.failure : answer.outcome;
      // Our own budget's refusals are the gateway's global 429s; the upstream's are adapter outcomes.
      if (outcome === "budget_spent") metrics.rateLimited.inc({ scope: "global" });
      const seconds = (performance.now() - started) / 1000;
      metrics.natsRequestDuration.observe(
        { subject: stripNamespace(subjects.adapter[operation]), outcome },
        seconds,
      );
      metrics.adapterOutcomes.inc({ operation, outcome });
      return stepOf(answer);
    },
  };
}

/** An adapter's reply frame as kept in the cache of answers (cached-answer.ts). */
export function readAdapterFrame(frame: Uint8Array): Step<AdapterData> {
  return stepOf(readAdapterReply(frame));
}

/** What an adapter's outcome means to the caller: data, or the error it is answered with. */
function stepOf(answer: AdapterOutcome): Step<AdapterData> {
  switch (answer.outcome) {
    case "ok":
      return succeed({
        data: answer.data,
        cursor: answer.cursor,
        has_more: answer.hasMore,
        fetchedAtMs: answer.fetchedAtMs,
        maxAgeS: answer.maxAgeS,
        source: answer.source,
      });
    case "bad_request":
      return fail("upstream_rejected", { detail: bounded(answer.message) });
    case "rate_limited":
      return fail("upstream_rate_limited", { retryAfterSeconds: answer.retryAfterSeconds });
    case "budget_spent":
      return fail("global_rate_limited", { retryAfterSeconds: answer.retryAfterSeconds });
    case "store_unavailable":
      // Our own store, not the upstream: 503 with Retry-After, refunded (docs/api.md#errors).
      return fail("service_unavailable", { retryAfterSeconds: 1, internal: bounded(answer.message) });
    case "unavailable":
    case "malformed_reply":
    case "no_answer":
      return unavailable(answer.message);
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
