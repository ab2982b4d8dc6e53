/**
 * The notices worker process (notices-worker.ts): the portal's settings from the environment, its
 * Redis and NATS, no HTTP listener but its metrics; shut down in order.
 */
import { buildSubjects } from "@rda/contracts";
import {
  connectNats,
  createLogger,
  isNatsConnected,
  loadConfig,
  natsIdentity,
  onShutdown,
  openRedis,
  redisKeys,
  redisResponds,
  runMain,
  startHealthServer,
  startObservability,
} from "@rda/service-kit";
import { loadPortalConfig, noticesConfigShape, settingsFrom, smtpUrlOf } from "./config.ts";
import { createSmtpMailer } from "./mail/mailer.ts";
import { startNoticesWorker } from "./notices-worker.ts";

runMain("notices", async () => {
  // The portal's checks first (the Stripe variables go together), then the worker's own.
  loadPortalConfig();
  const config = loadConfig(noticesConfigShape);
  // METRICS_PORT as the portal's (9208) in its own pod; `pnpm start` gives it 9212 beside the portal.
  const observability = await startObservability("notices", import.meta.url, config);
  const logger = createLogger("notices", { level: config.LOG_LEVEL });
  const namespace = config.RDA_NAMESPACE ?? "";
  const redis = await openRedis(config.REDIS_URL, "portal", logger);
  const nats = await connectNats(config.NATS_URL, "portal", logger, natsIdentity(config));
  const mailer = createSmtpMailer({ url: smtpUrlOf(config), from: config.MAIL_FROM });
  const worker = await startNoticesWorker({
    redis,
    nats,
    logger,
    mailer,
    subjects: buildSubjects(namespace),
    keys: redisKeys(namespace).portal,
    settings: settingsFrom(config),
  });
  const health = await startHealthServer(config.HEALTH_PORT, config.HEALTH_HOST, {
    nats: () => isNatsConnected(nats),
    redis: () => redisResponds(redis),
  });
  const metrics = await observability.serveMetrics();
  logger.info({ healthPort: health.port, metricsPort: metrics.port }, "notices worker ready");
  onShutdown(logger, [
    ["stop taking notice events and sending webhooks", () => worker.stop()],
    ["close the mail transport", () => mailer.close()],
    ["close the health server", () => health.close()],
    ["drain NATS", () => nats.drain()],
    ["quit Redis", () => redis.quit()],
    ["close the metrics server", () => metrics.close()],
    ["export the last spans", () => observability.tracing.shutdown()],
  ]);
});
