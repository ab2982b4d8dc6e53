export {
  type DeliveryOptions,
  type DeliveryResult,
  deliverWebhook,
  urlProblem,
  type WebhookMessage,
  type WebhookTarget,
} from "./delivery.ts";
export {
  type BatchSource,
  newOutboxDelivery,
  nextRoundOf,
  type OutboxDelivery,
  type OutboxEndpoint,
  type OutboxKeys,
  WebhookOutbox,
} from "./outbox.ts";
export {
  type DeliveryHooks,
  type OutboxLoopDeps,
  type StepWriter,
  sendDue,
  startOutboxLoop,
} from "./outbox-loop.ts";
export {
  type AttemptOptions,
  DEFAULT_RETRY_SCHEDULE,
  DELIVERY_LOG_MS,
  type DeliveryAttempt,
  type RetrySchedule,
  retryDelayMs,
  type SealedSecrets,
} from "./schedule.ts";
export { newWebhookSecret, openSecret, sealingKeyFrom, sealSecret } from "./secrets.ts";
