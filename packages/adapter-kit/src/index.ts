export { adapterEnvShape, loadAdapterConfig, runAdapterMain } from "./adapter-main.ts";
export { epochSeconds, hasLooseEpochs, withIntegerEpochs } from "./integer-epochs.ts";
export {
  type AdapterDeps,
  type AdapterOperations,
  badRequestReply,
  failureReply,
  type OperationContext,
  type OperationWork,
  okReply,
  type RunningAdapter,
  type StartAdapter,
  startAdapter,
  unavailableReply,
} from "./start-adapter.ts";
