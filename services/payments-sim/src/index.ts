/**
 * @rda/payments-sim: a local stand-in for the Stripe API calls the portal makes, its hosted
 * checkout page and its signed webhooks. See README.md.
 */
export { buildPaymentsSim, type PaymentsSimApp, type PaymentsSimOptions } from "./app.ts";
export { API_VERSION, type StripeEvent } from "./objects.ts";
export { type RunningPaymentsSim, type StartOptions, startPaymentsSim } from "./start.ts";
export { signatureHeader } from "./webhooks/signature.ts";
