/**
 * The simulator's environment, validated once at start. It accepts the same secret key the portal
 * is given and signs its webhooks with the same secret, so both read STRIPE_SECRET_KEY and
 * STRIPE_WEBHOOK_SECRET; a simulator only ever takes test keys.
 */
import { env, observabilityEnv } from "@rda/service-kit";
import { z } from "zod";

export const paymentsSimConfigShape = {
  PAYMENTS_SIM_PORT: env.port(8075),
  PAYMENTS_SIM_HOST: env.host(),
  /** Where browsers reach the simulator (checkout and receipt links); default http://127.0.0.1:PORT. */
  PAYMENTS_SIM_PUBLIC_URL: env.httpUrl().optional(),
  /** The portal's webhook endpoint; unset, events are kept but not sent. */
  PAYMENTS_SIM_WEBHOOK_URL: env.httpUrl().optional(),
  STRIPE_SECRET_KEY: z.string().regex(/^sk_test_[A-Za-z0-9_]{8,200}$/, {
    error: "must be a test secret key, sk_test_ followed by letters, digits or _",
  }),
  STRIPE_WEBHOOK_SECRET: z.string().regex(/^whsec_[A-Za-z0-9_+/=]{8,200}$/, {
    error: "must be a webhook signing secret, whsec_ followed by letters and digits",
  }),
  LOG_LEVEL: env.logLevel(),
  /** Prometheus metrics on their own internal port (9209). */
  ...observabilityEnv(9209),
} as const;
