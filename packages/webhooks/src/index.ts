export {
  type DeliveryOptions,
  type DeliveryResult,
  deliverWebhook,
  urlProblem,
  type WebhookMessage,
  type WebhookTarget,
} from "./delivery.ts";
export { newWebhookSecret, openSecret, sealingKeyFrom, sealSecret } from "./secrets.ts";
