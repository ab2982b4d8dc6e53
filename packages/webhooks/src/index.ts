export {
  type DeliveryOptions,
  type DeliveryResult,
  deliverWebhook,
  urlProblem,
  type WebhookMessage,
  type WebhookTarget,
} from "./delivery.ts";
export {
  newOutboxDelivery,
  type OutboxDelivery,
  type OutboxKeys,
  type OutboxLoopDeps,
  saveUnderLease,
  sendDue,
  startOutboxLoop,
  WebhookOutbox,
} from "./outbox.ts";
export {
  type AttemptOptions,
  attemptOnce,
  DEFAULT_RETRY_SCHEDULE,
  DELIVERY_LOG_MS,
  type DeliveryAttempt,
  nextAttemptAt,
  type RetrySchedule,
  retryDelayMs,
  type SealedSecrets,
  signingSecrets,
  withAttemptKept,
} from "./schedule.ts";
export { newWebhookSecret, openSecret, sealingKeyFrom, sealSecret } from "./secrets.ts";
