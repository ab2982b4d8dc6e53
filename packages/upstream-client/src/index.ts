export {
  DEFAULT_FRESHNESS_BOUNDS,
  type FreshnessBounds,
  type FreshnessClass,
  judgeFreshness,
  SETTLING_WINDOW_S,
} from "./cache/freshness.ts";
export { type CacheLimits, createRedisCacheStore, type SharedCacheStore } from "./cache/redis-cache.ts";
export type { FetchSource } from "./cache/shared-fetch.ts";
export { createUpstreamClient } from "./client.ts";
export { jsonArrayPrefix } from "./data-bytes.ts";
export { DEFAULT_APP_NAME, DEFAULT_USER_AGENT } from "./identity.ts";
export type { TrafficClass, Turn, TurnRequest, UpstreamPacer, WindowReport } from "./pacer/pacer.ts";
export { unpaced } from "./pacer/pacer.ts";
export { createRedisPacer, DEFAULT_BACKGROUND_SHARE, type PacerSettings } from "./pacer/redis-pacer.ts";
export { readWindowHeaders, resetMoment } from "./rate-limit-headers.ts";
export type {
  AttemptCounts,
  CallOptions,
  UpstreamBody,
  UpstreamClient,
  UpstreamClientOptions,
  UpstreamClientStats,
  UpstreamFailure,
  UpstreamObserver,
  UpstreamQuery,
  UpstreamResult,
} from "./types.ts";
