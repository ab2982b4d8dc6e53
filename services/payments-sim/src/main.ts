/**
 * Process shell: read and check the environment, listen, and close cleanly on SIGTERM/SIGINT. A bad
 * variable stops the start naming it.
 */
import { createLogger, loadConfig, onShutdown, runMain, startObservability } from "@rda/service-kit";
import type { FastifyBaseLogger } from "fastify";
import { paymentsSimConfigShape } from "./config.ts";
import { startPaymentsSim } from "./start.ts";

/** Stripe retries for days; locally a few attempts over about 15 s show the behaviour. */
const WEBHOOK_ATTEMPTS = 5;
const WEBHOOK_RETRY_BASE_MS = 1_000;
const WEBHOOK_TIMEOUT_MS = 10_000;

runMain("payments-sim", async () => {
  const config = loadConfig(paymentsSimConfigShape);
  const observability = await startObservability("payments-sim", import.meta.url, config);
  const logger = createLogger("payments-sim", { level: config.LOG_LEVEL });
  const sim = await startPaymentsSim({
    port: config.PAYMENTS_SIM_PORT,
    host: config.PAYMENTS_SIM_HOST,
    publicUrl: config.PAYMENTS_SIM_PUBLIC_URL,
    secretKey: config.STRIPE_SECRET_KEY,
    logger: logger as FastifyBaseLogger,
    webhooks: {
      url: config.PAYMENTS_SIM_WEBHOOK_URL,
      secret: config.STRIPE_WEBHOOK_SECRET,
      attempts: WEBHOOK_ATTEMPTS,
      retryBaseMs: WEBHOOK_RETRY_BASE_MS,
      timeoutMs: WEBHOOK_TIMEOUT_MS,
    },
  });
  const metrics = await observability.serveMetrics();
  logger.info(
    { url: sim.url, webhook_url: config.PAYMENTS_SIM_WEBHOOK_URL ?? null, metricsPort: metrics.port },
    "payments simulator listening",
  );
  onShutdown(logger, [
    ["http server", () => sim.close()],
    ["metrics server", () => metrics.close()],
  ]);
});
