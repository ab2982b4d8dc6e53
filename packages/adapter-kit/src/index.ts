export { adapterEnvShape, loadAdapterConfig, runAdapterMain } from "./adapter-main.ts";
export { badRequestReply, failureReply, okReply, tooLargeReply, unavailableReply } from "./adapter-reply.ts";
export { epochSeconds, hasLooseEpochs, withIntegerEpochs } from "./integer-epochs.ts";
export {
  type AdapterDeps,
  type AdapterOperations,
  type OperationContext,
  type OperationWork,
  type RunningAdapter,
  type StartAdapter,
  startAdapter,
} from "./start-adapter.ts";
