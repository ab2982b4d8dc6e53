export {
  type DeliveryOptions,
  type DeliveryResult,
  deliverWebhook,
  urlProblem,
  type WebhookMessage,
} from "./delivery.ts";
export { BlockedAddressError, guardedLookup, isPublicAddress } from "./outbound-address.ts";
export { newWebhookSecret, openSecret, sealingKeyFrom, sealSecret } from "./secrets.ts";
