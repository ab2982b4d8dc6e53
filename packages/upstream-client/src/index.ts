export { type AdapterDeps, runAdapterMain, type StartAdapter } from "./adapter-main.ts";
export {
  badRequestReply,
  createAdapterHandler,
  failureReply,
  type OperationRunner,
  okReply,
  unavailableReply,
} from "./adapter-reply.ts";
export { createUpstreamClient } from "./client.ts";
export { type AdapterWork, type OperationWork, startAdapter } from "./start-adapter.ts";
export type {
  AttemptCounts,
  UpstreamBody,
  UpstreamClient,
  UpstreamClientOptions,
  UpstreamClientStats,
  UpstreamFailure,
  UpstreamQuery,
  UpstreamResult,
} from "./types.ts";
