/**
 * What one upstream call can end in. Every outcome is classified so the gateway can map it to
 * 200 / 400 / 429 / 502 (docs/architecture.md), and carries how many HTTP attempts it took.
 */
import type { Logger } from "@rda/service-kit";
import type { FreshnessBounds } from "./cache/freshness.ts";
import type { FetchSource, SharedCacheStore } from "./cache/shared-fetch.ts";
import type { TrafficClass, UpstreamPacer } from "./pacer/redis-pacer.ts";

export type { UpstreamPacer };

/** Query parameters of one upstream GET; undefined values are left out. */
export type UpstreamQuery = Readonly<Record<string, string | number | boolean | undefined>>;

/** A successful upstream body: `{data: ...}` without an `error` key (docs/upstream.md#response-shapes). */
export interface UpstreamBody {
  readonly data: unknown;
  /**
   * The exact bytes of `data` as the upstream sent them, when the body held nothing else: an adapter
   * that passes the rows on unchanged forwards these instead of serialising `data` again.
   */
  readonly dataBytes: Uint8Array | undefined;
}

export interface AttemptCounts {
  /** HTTP requests sent for this call (0 when the deadline passed before any could be sent). */
  readonly attempts: number;
  /** attempts - 1 when at least one was sent: how many times the call was retried. */
  readonly retries: number;
}

export type UpstreamResult = AttemptCounts &
  (
    | {
        readonly outcome: "ok";
        /** Shared between coalesced callers: treat as read-only. */
        readonly body: UpstreamBody;
        /** The query of the attempt that succeeded; `limit` may be halved after a "busy" answer. */
        readonly query: UpstreamQuery;
      }
    | { readonly outcome: "bad_request"; readonly message: string }
    | { readonly outcome: "rate_limited"; readonly message: string; readonly retry_after_seconds: number }
    /** Our own budget is spent (the pacer gave no turn in time): nothing was sent, the upstream is not to blame. */
    | { readonly outcome: "budget_spent"; readonly message: string; readonly retry_after_seconds: number }
    /** The pacer's store could not be asked: nothing was sent; our outage, not the upstream's. */
    | { readonly outcome: "store_unavailable"; readonly message: string }
    | {
        readonly outcome: "unavailable";
        readonly message: string;
        /** The upstream (its Cloudflare front) refused the request with a block page. */
        readonly blocked?: true;
      }
  );

export type UpstreamFailure = Exclude<UpstreamResult, { outcome: "ok" }>;

export interface UpstreamClientOptions {
  /** Origin plus an optional path prefix, e.g. https://arctic-shift.photon-reddit.com or http://proxy/as */
  readonly baseUrl: string;
  /** Total time for one call, retries and waits included. */
  readonly deadlineMs?: number;
  /** Longest single attempt; defaults to half the deadline so a hung attempt leaves time for a retry. */
  readonly attemptTimeoutMs?: number;
  readonly maxRetries?: number;
  /**
   * Before its one retry, a "busy" answer waits this long plus up to as much again at random: the
   * upstream asked us to slow down, and a retry within milliseconds would only add to its load.
   */
  readonly busyWaitMs?: number;
  /** Gives every HTTP request its turn in the product's shared budget (pacer/redis-pacer.ts); none: unpaced. */
  readonly pacer?: UpstreamPacer;
  /** First backoff step; the n-th retry waits a random time in [0, min(cap, base * 2^n)) ("full jitter"). */
  readonly backoffBaseMs?: number;
  readonly backoffCapMs?: number;
  /** Bodies larger than this are refused (a projection gone wrong must not exhaust memory). */
  readonly maxBodyBytes?: number;
  /** Keep-alive connections to the upstream origin. */
  readonly connections?: number;
  /** Sent as `meta-app=<name>` (docs/upstream.md#endpoints-we-use: tags which client sent the request). */
  readonly appName?: string;
  /** The `User-Agent` header of every request: the product and the operator's contact (UPSTREAM_USER_AGENT). */
  readonly userAgent?: string;
  readonly logger?: Logger;
  /** Told about every attempt and call, for the metrics; the adapters pass one (adapter-kit). */
  readonly observer?: UpstreamObserver;
  /**
   * The response cache shared by every replica, which also makes identical calls anywhere in the
   * cluster one (cache/shared-fetch.ts); none: no cache, identical calls coalesce in this process only.
   */
  readonly cache?: { readonly store: SharedCacheStore; readonly bounds: FreshnessBounds };
}

/**
 * What the client reports as it works, labelled by the caller's operation. `statusClass` is the HTTP
 * status class of an answer ("2xx", "4xx", "429", "5xx"...), or "timeout" or "error" when none came.
 */
export interface UpstreamObserver {
  attempt(event: {
    readonly operation: string;
    readonly statusClass: string;
    readonly seconds: number;
  }): void;
  call(event: {
    readonly operation: string;
    readonly outcome: UpstreamResult["outcome"];
    readonly retries: number;
    readonly seconds: number;
  }): void;
  /** A call answered by joining an identical one in flight (no upstream request of its own). */
  coalesced(operation: string): void;
  /** A call the upstream refused with a block page (docs/upstream.md#errors-and-busy-answers). */
  blocked?(operation: string): void;
  /** A turn asked of the pacer: granted, or why not; `seconds` waited for the answer. */
  turn?(event: {
    readonly operation: string;
    readonly outcome: "granted" | "window_spent" | "queue_full" | "pacer_unavailable";
    readonly seconds: number;
  }): void;
  /** One look into the response cache: hit, miss, bypass (`no-cache`) or error (cache unreachable). */
  cacheLookup?(event: {
    readonly operation: string;
    readonly lookup: "hit" | "miss" | "bypass" | "error";
  }): void;
}

export interface UpstreamClientStats {
  /** HTTP requests sent upstream. */
  readonly requests: number;
  /** Calls answered by joining an identical call already in flight, here or on another replica. */
  readonly coalesced: number;
  /** Calls answered from the shared response cache. */
  readonly cacheHits: number;
}

export interface CallOptions {
  /** Logs this call's retries and failures; an adapter passes one bound to the gateway's request id. */
  readonly logger?: Logger;
  /** The operation the call serves (`listPosts`), the label of its metrics; "unknown" when unset. */
  readonly operation?: string;
  /**
   * The caller's bound on the answer's age in seconds (its `Cache-Control: max-age`; 0 for
   * `no-cache`: never from the cache). None: the data's own freshness bound alone.
   */
  readonly maxAgeS?: number;
  /**
   * Who the call serves, for its turn in the upstream budget; default interactive. A call that joins
   * one in flight (or waits on another replica's fetch) rides on that fetch's turn.
   */
  readonly priority?: TrafficClass;
  /**
   * The account the call serves, for its fair share of the class (pacer/redis-pacer.ts, `TurnRequest`).
   * A joined call rides on the turn of the account whose call started the fetch.
   */
  readonly account?: string;
  /**
   * When the request this call serves began, epoch ms (an adapter request's arrival). Every call of
   * one request then shares one deadline, `deadlineMs` from it, so a request that makes several
   * calls (a page and its boundary page) still ends within that deadline, answered or told our
   * budget is spent, rather than waiting out a deadline per call and being given up by its caller.
   * None: the deadline runs from this call.
   */
  readonly startedAtMs?: number;
  /**
   * Retries of this call after a failed or busy attempt, at most; default the client's `maxRetries`.
   * 0: one HTTP request at most, for a caller whose one credit pays for exactly one upstream read.
   */
  readonly maxRetries?: number;
  /**
   * Told when the answer was produced upstream (the caller's `Age`), where it came from, and how
   * long after it was produced it may be served again (undefined: never; freshness.ts decides).
   */
  onAnswer?(answer: {
    readonly fetchedAtMs: number;
    readonly source: FetchSource;
    readonly maxAgeS: number | undefined;
  }): void;
}

export interface UpstreamClient {
  get(path: string, query: UpstreamQuery, options?: CallOptions): Promise<UpstreamResult>;
  stats(): UpstreamClientStats;
  close(): Promise<void>;
}
