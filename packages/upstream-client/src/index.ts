export {
  DEFAULT_FRESHNESS_BOUNDS,
  type FreshnessBounds,
  type FreshnessClass,
  judgeFreshness,
  SETTLING_WINDOW_S,
} from "./cache/freshness.ts";
export type { FetchSource } from "./cache/shared-fetch.ts";
export { type CacheLimits, createRedisCacheStore, type SharedCacheStore } from "./cache/shared-fetch.ts";
export { createUpstreamClient, readWindowHeaders, resetMoment } from "./client.ts";
export { jsonArrayPrefix } from "./data-bytes.ts";
export { DEFAULT_APP_NAME, DEFAULT_USER_AGENT } from "./identity.ts";
export type { TrafficClass, Turn, TurnRequest, UpstreamPacer, WindowReport } from "./pacer/redis-pacer.ts";
export {
  createRedisPacer,
  DEFAULT_BACKGROUND_SHARE,
  type PacerSettings,
  unpaced,
} from "./pacer/redis-pacer.ts";
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
