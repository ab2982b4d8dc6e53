/**
 * The billing process: reads the environment once, connects to NATS and Redis, starts billing and its
 * health server, and shuts down in order (stop serving → finish in-flight → drain NATS → quit Redis).
 */

import { buildSubjects } from "@rda/contracts";
import {
  connectNats,
  createLogger,
  env,
  isNatsConnected,
  isRedisReady,
  loadConfig,
  onShutdown,
  openRedis,
  redisKeys,
  runMain,
  startHealthServer,
} from "@rda/service-kit";
import { z } from "zod";
import { startBilling } from "./index.ts";

const configShape = {
  REDIS_URL: env.redisUrl(),
  NATS_URL: env.natsUrl(),
  RDA_NAMESPACE: env.namespace(),
  FREE_CREDITS: env.nonNegativeInt(333),
  RATE_LIMIT_QPS: env.positiveInt(2),
  RATE_LIMIT_BURST: env.positiveInt(10),
  REFUND_STREAM_REPLICAS: z.coerce
    .number({ error: "must be 1, 3 or 5" })
    .refine((n) => [1, 3, 5].includes(n), { error: "must be 1, 3 or 5" })
    .default(1),
  HEALTH_PORT: env.port(9101),
  HEALTH_HOST: env.host(),
  LOG_LEVEL: env.logLevel(),
};

runMain("billing", async () => {
  const config = loadConfig(configShape);
  const logger = createLogger("billing", { level: config.LOG_LEVEL });
  const namespace = config.RDA_NAMESPACE ?? "";
  const redis = await openRedis(config.REDIS_URL, "billing", logger);
  const nats = await connectNats(config.NATS_URL, "billing", logger);
  const billing = await startBilling({
    nats,
    redis,
    subjects: buildSubjects(namespace),
    keys: redisKeys(namespace),
    logger,
    settings: {
      freeCredits: config.FREE_CREDITS,
      defaultRateLimit: { qps: config.RATE_LIMIT_QPS, burst: config.RATE_LIMIT_BURST },
      refundStreamReplicas: config.REFUND_STREAM_REPLICAS,
    },
  });
  const health = await startHealthServer(config.HEALTH_PORT, config.HEALTH_HOST, {
    nats: () => isNatsConnected(nats),
    redis: () => isRedisReady(redis),
  });
  logger.info({ healthPort: health.port, namespace }, "billing ready");
  onShutdown(logger, [
    ["stop serving and finish in-flight work", () => billing.stop()],
    ["close health server", () => health.close()],
    ["drain NATS", () => nats.drain()],
    ["quit Redis", () => redis.quit()],
  ]);
});
