/**
 * Prometheus metrics, one registry per gateway instance (so several gateways in one test process do
 * not collide). Labels carry route templates and catalog codes only, never keys or request data.
 * They are served on the internal metrics port (main.ts), never on the public API port.
 */
import { Counter, Gauge, Histogram, Registry } from "@rda/service-kit";
import type { IdempotencyStore } from "./idempotency.ts";

const LATENCY_BUCKETS = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface GatewayMetrics {
  readonly registry: Registry;
  readonly requests: Counter<"route" | "method" | "status">;
  readonly requestDuration: Histogram<"route" | "status">;
  readonly creditsDebited: Counter;
  readonly creditsRefunded: Counter<"reason">;
  readonly natsRequestDuration: Histogram<"subject" | "outcome">;
  readonly adapterOutcomes: Counter<"operation" | "outcome">;
  /** How old the data of each 200 was (its `Age`), by operation. */
  readonly answerAge: Histogram<"operation">;
  readonly rateLimited: Counter<"scope">;
  /** Admitted data requests looked up in the cache of answers, by outcome (hit, miss, error). */
  readonly cachedAnswerLookups: Counter<"outcome">;
  /** Seconds from admission to the answer, by path (hit, coalesced, fetched, refused_budget). */
  readonly answerPathDuration: Histogram<"path">;
  readonly refundPublishFailures: Counter;
  readonly inFlight: Gauge;
  readonly keyCache: Counter<"result">;
  /** Served idempotent responses not stored, by reason (too_large, key_quota, store_full). */
  readonly idempotencyNotKept: Counter<"reason">;
  /** Reports the Idempotency-Key store's size and limit at each scrape. */
  watchIdempotencyStore(store: Pick<IdempotencyStore, "storedBytes" | "limits">): void;
}

/** `registry`: the process's own (with process metrics and build info); a fresh one by default. */
export function createMetrics(options: { registry?: Registry } = {}): GatewayMetrics {
  const registry = options.registry ?? new Registry();
  const registers = [registry];
  let idempotencyStore: Pick<IdempotencyStore, "storedBytes" | "limits"> | undefined;
  new Gauge({
    name: "gateway_idempotency_store_bytes",
    help: "Bytes of responses the Idempotency-Key store holds within the replay window, all keys together (counted generously: a record is counted until the hour it expires in ends).",
    registers,
    async collect() {
      // A scrape must not fail because Redis is slow: the value is then simply not updated.
      const bytes = await idempotencyStore?.storedBytes().catch(() => undefined);
      if (bytes !== undefined) this.set(bytes);
    },
  });
  new Gauge({
    name: "gateway_idempotency_store_max_bytes",
    help: "The Idempotency-Key store's limit (IDEMPOTENCY_STORE_MAX_BYTES): past it, responses are not stored.",
    registers,
    collect() {
      if (idempotencyStore) this.set(idempotencyStore.limits.storeMaxBytes);
    },
  });
  return {
    registry,
    watchIdempotencyStore(store) {
      idempotencyStore = store;
    },
    idempotencyNotKept: new Counter({
      name: "gateway_idempotency_not_kept_total",
      help: "Served idempotent responses not stored for replay, by reason: too_large (over IDEMPOTENCY_MAX_RESPONSE_BYTES), key_quota (the key's IDEMPOTENCY_KEY_QUOTA_BYTES) or store_full (IDEMPOTENCY_STORE_MAX_BYTES).",
      labelNames: ["reason"],
      registers,
    }),
    inFlight: new Gauge({
      name: "gateway_http_requests_in_flight",
      help: "HTTP requests received and not yet answered.",
      registers,
    }),
    keyCache: new Counter({
      name: "gateway_key_cache_lookups_total",
      help: "API key resolutions by result: hit (a valid key, from the cache), refused_hit (a key billing refused within the last 5 s, from the cache) or miss (asked billing).",
      labelNames: ["result"],
      registers,
    }),
    requests: new Counter({
      name: "gateway_http_requests_total",
      help: "HTTP requests answered, by route template, method and status.",
      labelNames: ["route", "method", "status"],
      registers,
    }),
    requestDuration: new Histogram({
      name: "gateway_http_request_duration_seconds",
      help: "Time from request to response, by route template and status.",
      labelNames: ["route", "status"],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    creditsDebited: new Counter({
      name: "gateway_credits_debited_total",
      help: "Credits debited by billing for data requests.",
      registers,
    }),
    creditsRefunded: new Counter({
      name: "gateway_credits_refunded_total",
      help: "Refunds published after a failure that followed the debit, by catalog code.",
      labelNames: ["reason"],
      registers,
    }),
    natsRequestDuration: new Histogram({
      name: "gateway_nats_request_duration_seconds",
      help: "NATS request latency by subject (without namespace) and outcome; adapter subjects include the upstream call.",
      labelNames: ["subject", "outcome"],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    adapterOutcomes: new Counter({
      name: "gateway_adapter_outcomes_total",
      help: "Adapter reply outcomes by operation (ok, bad_request, rate_limited, unavailable, no_responders, timeout, malformed_reply, disconnected).",
      labelNames: ["operation", "outcome"],
      registers,
    }),
    answerAge: new Histogram({
      name: "gateway_answer_age_seconds",
      help: "Age of the data served in each 200 (its Age header: 0 for a fetch just made), by operation.",
      labelNames: ["operation"],
      buckets: [0.5, 1, 5, 15, 30, 60, 300, 600, 1800, 3600],
      registers,
    }),
    rateLimited: new Counter({
      name: "gateway_rate_limited_total",
      help: "Requests refused with 429 by the gateway's own limits, by scope: key, global (our shared upstream budget had no turn in time) or address (a client address that sent too many refused keys).",
      labelNames: ["scope"],
      registers,
    }),
    cachedAnswerLookups: new Counter({
      name: "gateway_cached_answer_lookups_total",
      help: "Admitted data requests whose answer was looked for in the cache of answers (one Redis GET), by outcome: hit (served without an adapter), miss (asked of the adapter) or error (the cache unreachable: asked of the adapter).",
      labelNames: ["outcome"],
      registers,
    }),
    answerPathDuration: new Histogram({
      name: "gateway_answer_path_seconds",
      help: "Seconds from admission to the answer, by the path it took: hit (from a cache), coalesced (joined a fetch another request started), fetched (from the upstream for this request), refused_budget (the upstream budget refused it: 429 global, refunded).",
      labelNames: ["path"],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    refundPublishFailures: new Counter({
      name: "gateway_refund_publish_failures_total",
      help: "Failed attempts to publish a refund to JetStream (each is retried).",
      registers,
    }),
  };
}
