export { adapterEnvShape, loadAdapterConfig, runAdapterMain } from "./adapter-main.ts";
export {
  type AdapterDeps,
  type AdapterOperations,
  badRequestReply,
  epochSeconds,
  failureReply,
  hasLooseEpochs,
  type OperationContext,
  type OperationWork,
  okReply,
  type RunningAdapter,
  type StartAdapter,
  startAdapter,
  tooLargeReply,
  unavailableReply,
  withIntegerEpochs,
} from "./start-adapter.ts";
