/**
 * The portal's Stripe client: the real `stripe` SDK, pointed at STRIPE_API_URL through its
 * documented `host`, `port` and `protocol` settings when one is given (the local payments
 * simulator), at Stripe itself otherwise. The same code runs against both.
 */
import Stripe from "stripe";
import type { PaymentsSettings } from "../settings.ts";

/** Stripe answers within seconds; a person waits on the "Pay" button, so keep it bounded. */
const TIMEOUT_MS = 15_000;

export function createStripeClient(settings: PaymentsSettings): Stripe {
  return new Stripe(settings.secretKey, {
    ...apiAddress(settings.apiUrl),
    maxNetworkRetries: 2,
    timeout: TIMEOUT_MS,
    telemetry: false,
    appInfo: { name: "reddit-data-api-portal" },
  });
}

function apiAddress(apiUrl: string | undefined): Pick<Stripe.StripeConfig, "host" | "port" | "protocol"> {
  if (apiUrl === undefined) return {};
  const url = new URL(apiUrl);
  const protocol = url.protocol === "http:" ? "http" : "https";
  return { host: url.hostname, port: Number(url.port || (protocol === "http" ? 80 : 443)), protocol };
}
