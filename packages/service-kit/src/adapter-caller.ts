/**
 * The one way to ask an adapter (docs/architecture.md#background-work): the gateway for a request,
 * exports for a job's pages and a quote's count, monitors for a source's pages. The request is the
 * adapter's one request shape (contracts `adapterRequestSchema`), sent over NATS reading past the
 * adapter's progress messages (an adapter silent for `ADAPTER_PROGRESS.silenceMs` is gone), and
 * every way it can end is one `AdapterOutcome`: the reply frame's outcomes (contracts
 * `adapterReplyMetaSchema`), a frame that does not parse, or no answer at all. Each caller decides
 * what an outcome means to its own user (a status code, a page to retry, a poll to redo); none
 * reads the frame or the NATS failure itself.
 */
import {
  ADAPTER_PROGRESS,
  type AdapterOperation,
  decodeAdapterReply,
  type Subjects,
  type UpstreamPriority,
} from "@rda/contracts";
import { type NatsConnection, type NatsRequestFailure, requestWithProgress } from "./nats.ts";

/** How the upstream answers behind data were had, the costliest way named. */
export type AnswerSource = "cache" | "joined" | "upstream";

export interface AdapterAsk {
  readonly operation: AdapterOperation;
  readonly requestId: string;
  /** The operation's parameters, validated and normalised by the caller. */
  readonly params: unknown;
  /** The upstream budget's class (interactive when not said). */
  readonly priority?: UpstreamPriority;
  /** Whose fair share of the class the upstream calls draw on (`budgetAccountOf`). */
  readonly account?: string;
  /** The caller's bound on the answer's age in seconds (0: `no-cache`); none: the data's own. */
  readonly maxAgeS?: number;
  /** The longest the whole call may take. */
  readonly timeoutMs: number;
}

export type AdapterOutcome =
  | {
      readonly outcome: "ok";
      /** The data as the adapter's JSON bytes, untouched. */
      readonly data: Uint8Array;
      readonly cursor: number | null;
      readonly hasMore: boolean;
      /** Epoch ms the upstream produced the oldest answer behind the data (undefined: not said). */
      readonly fetchedAtMs: number | undefined;
      /** How long after `fetchedAtMs` it may be served again (undefined: not at all). */
      readonly maxAgeS: number | undefined;
      readonly source: AnswerSource | undefined;
    }
  /**
   * The upstream refused the parameters (`bad_request`), or the request's window held more than it
   * may read (`too_large`, ours): asking again will not help.
   */
  | { readonly outcome: "bad_request" | "too_large"; readonly message: string }
  /** The upstream's refusal (`rate_limited`) or our budget's (`budget_spent`): ask again later. */
  | {
      readonly outcome: "rate_limited" | "budget_spent";
      readonly message: string;
      readonly retryAfterSeconds: number;
    }
  /** The upstream failed (`unavailable`), or our own store did (`store_unavailable`). */
  | { readonly outcome: "unavailable" | "store_unavailable"; readonly message: string }
  /** The adapter sent a frame that does not parse: a broken adapter, never data. */
  | { readonly outcome: "malformed_reply"; readonly message: string }
  /** No adapter answered: none there, it went silent, or NATS was down. */
  | { readonly outcome: "no_answer"; readonly failure: NatsRequestFailure["kind"]; readonly message: string };

export async function callAdapter(
  nats: NatsConnection,
  subjects: Subjects,
  ask: AdapterAsk,
): Promise<AdapterOutcome> {
  const body = JSON.stringify({
    request_id: ask.requestId,
    params: ask.params,
    max_age_s: ask.maxAgeS,
    priority: ask.priority,
    account: ask.account,
  });
  const reply = await requestWithProgress(nats, subjects.adapter[ask.operation], body, {
    timeoutMs: ask.timeoutMs,
    silenceMs: ADAPTER_PROGRESS.silenceMs,
  });
  if (!reply.ok) return { outcome: "no_answer", failure: reply.error.kind, message: reply.error.message };
  return readAdapterReply(reply.value);
}

/** An adapter's reply frame, as sent. */
function readAdapterReply(frame: Uint8Array): AdapterOutcome {
  const decoded = decodeAdapterReply(frame);
  if (!decoded.ok) return { outcome: "malformed_reply", message: decoded.error };
  const { meta, data } = decoded.value;
  switch (meta.outcome) {
    case "ok":
      return {
        outcome: "ok",
        data: data ?? new Uint8Array(),
        cursor: meta.cursor ?? null,
        hasMore: meta.has_more ?? false,
        fetchedAtMs: meta.fetched_at_ms,
        maxAgeS: meta.max_age_s,
        source: meta.source,
      };
    case "rate_limited":
    case "budget_spent":
      return { outcome: meta.outcome, message: meta.message, retryAfterSeconds: meta.retry_after_seconds };
    default:
      return { outcome: meta.outcome, message: meta.message };
  }
}

/** The data of an `ok` outcome as JSON; undefined when it does not parse. */
export function adapterJson(outcome: Extract<AdapterOutcome, { outcome: "ok" }>): unknown {
  try {
    return JSON.parse(Buffer.from(outcome.data).toString("utf8"));
  } catch {
    return undefined;
  }
}

/** A failed outcome in one line, for logs and retry reasons. */
export function describeAdapterFailure(outcome: Exclude<AdapterOutcome, { outcome: "ok" }>): string {
  return outcome.outcome === "no_answer"
    ? `${outcome.failure}: ${outcome.message}`
    : `${outcome.outcome}: ${outcome.message}`;
}
