/** The portal process: read the environment, connect, listen, and shut down in order. */
import { buildSubjects } from "@rda/contracts";
import {
  connectNats,
  createLogger,
  natsIdentity,
  onShutdown,
  openRedis,
  redactUrl,
  redisKeys,
  runMain,
  startObservability,
} from "@rda/service-kit";
import { loadPortalConfig, settingsFrom, smtpUrlOf } from "./config.ts";
import { createSmtpMailer } from "./mail/mailer.ts";
import { startPortal } from "./start.ts";

runMain("portal", async () => {
  const config = loadPortalConfig();
  const identity = natsIdentity(config);
  const observability = await startObservability("portal", import.meta.url, config);
  const logger = createLogger("portal", { level: config.LOG_LEVEL });
  const namespace = config.RDA_NAMESPACE ?? "";
  const redis = await openRedis(config.REDIS_URL, "portal", logger);
  const nats = await connectNats(config.NATS_URL, "portal", logger, identity);
  const smtpUrl = smtpUrlOf(config);
  const mailer = createSmtpMailer({ url: smtpUrl, from: config.MAIL_FROM });
  const portal = await startPortal(
    {
      redis,
      nats,
      logger,
      mailer,
      subjects: buildSubjects(namespace),
      keys: redisKeys(namespace).portal,
      settings: settingsFrom(config),
    },
    { port: config.PORTAL_PORT, host: config.PORTAL_HOST ?? config.HOST },
  );
  if (!config.OAUTH_SIGNING_KEY) {
    logger.warn(
      "OAUTH_SIGNING_KEY is unset: OAuth access tokens are signed with a key made at start, so they stop working when this process restarts and are refused by other portal replicas' keys (set it in production)",
    );
  }
  if (!config.PORTAL_GATEWAY_SECRET) {
    logger.warn(
      "PORTAL_GATEWAY_SECRET is unset: the monitor and export pages cannot ask the gateway and answer unavailable (set the same value on the portal and the gateways)",
    );
  }
  const metrics = await observability.serveMetrics();
  logger.info(
    {
      url: portal.url,
      public_url: config.PORTAL_URL,
      smtp: redactUrl(smtpUrl),
      metricsPort: metrics.port,
    },
    "portal listening",
  );
  onShutdown(logger, [
    ["stop accepting and finish in-flight requests", () => portal.stop()],
    ["close the mail transport", () => mailer.close()],
    ["drain NATS", () => nats.drain()],
    ["quit Redis", () => redis.quit()],
    ["close the metrics server", () => metrics.close()],
    ["export the last spans", () => observability.tracing.shutdown()],
  ]);
});
