/**
 * `buildPaymentsSim(options)`: the simulator as a value (no environment, no listening). Stripe's
 * API at `/v1/…` (api/routes.ts), the hosted checkout and receipt pages, the test controls under
 * `/__sim/`, and `/livez`, `/readyz`.
 */
import fastifyFormbody from "@fastify/formbody";
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from "fastify";
import qs from "qs";
import { registerApiRoutes } from "./api/routes.ts";
import { sendStripeError } from "./api/stripe-errors.ts";
import { registerCheckoutPages } from "./checkout/pages.ts";
import { registerControls } from "./controls.ts";
import { PaymentsAccount } from "./payments.ts";
import { type DeliverySettings, WebhookDeliverer } from "./webhooks/deliverer.ts";

export interface PaymentsSimOptions {
  /** The secret key callers must send (`sk_test_…`). */
  readonly secretKey: string;
  /** Where buyers' browsers reach this simulator: checkout and receipt links start with it. */
  readonly publicUrl: string;
  readonly webhooks: DeliverySettings;
  readonly logger?: FastifyBaseLogger;
}

export interface PaymentsSimApp {
  readonly app: FastifyInstance;
  readonly account: PaymentsAccount;
  readonly webhooks: WebhookDeliverer;
}

/** Stripe's nested form keys: `line_items[0][price_data][currency]=usd`. */
const parseNested = (text: string) => qs.parse(text, { depth: 8, arrayLimit: 100, parameterLimit: 1_000 });

export function buildPaymentsSim(options: PaymentsSimOptions): PaymentsSimApp {
  const app = Fastify({
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
    logController: new LogController({ disableRequestLogging: true }),
    routerOptions: { querystringParser: parseNested },
    bodyLimit: 256 * 1024,
  });
  const webhooks = new WebhookDeliverer(options.webhooks);
  const account = new PaymentsAccount(options.publicUrl.replace(/\/+$/, ""), (event) =>
    webhooks.accept(event),
  );
  app.register(fastifyFormbody, { parser: parseNested });
  registerApiRoutes(app, { account, secretKey: options.secretKey });
  registerCheckoutPages(app, account);
  registerControls(app, account, webhooks);
  app.get("/livez", async () => ({ status: "ok" }));
  app.get("/readyz", async () => ({ status: "ready" }));
  app.setNotFoundHandler((request, reply) =>
    sendStripeError(reply, 404, {
      type: "invalid_request_error",
      message: `Unrecognized request URL (${request.method}: ${request.url.split("?")[0]}).`,
    }),
  );
  app.setErrorHandler((error: { statusCode?: number; message: string }, _request, reply) => {
    const status = error.statusCode && error.statusCode < 500 ? error.statusCode : 500;
    if (status === 500) app.log.error({ err: error }, "request failed");
    return sendStripeError(reply, status, {
      type: status === 500 ? "api_error" : "invalid_request_error",
      message: status === 500 ? "An unknown error occurred." : error.message,
    });
  });
  app.addHook("onClose", async () => webhooks.close());
  return { app, account, webhooks };
}
