export { createUpstreamClient } from "./client.ts";
export { jsonArrayPrefix } from "./data-bytes.ts";
export { DEFAULT_APP_NAME, DEFAULT_USER_AGENT } from "./identity.ts";
export type { Turn, TurnRequest, UpstreamPacer, WindowReport } from "./pacer/pacer.ts";
export { unpaced } from "./pacer/pacer.ts";
export { createRedisPacer, type PacerSettings } from "./pacer/redis-pacer.ts";
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
