export { createUpstreamClient } from "./client.ts";
export { jsonArrayPrefix } from "./data-bytes.ts";
export { DEFAULT_APP_NAME, DEFAULT_USER_AGENT } from "./identity.ts";
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
