export { createUpstreamClient } from "./client.ts";
export { jsonArrayPrefix } from "./data-bytes.ts";
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
