/** The gateway process: read the environment, connect, listen, and shut down in order. */
import { buildSubjects } from "@rda/contracts";
import {
  connectNats,
  createLogger,
  loadConfig,
  onShutdown,
  openRedis,
  redisKeys,
  runMain,
} from "@rda/service-kit";
import { gatewayConfigShape } from "./config.ts";
import { createMetrics } from "./metrics.ts";
import { startGateway } from "./start.ts";

runMain("gateway", async () => {
  const config = loadConfig(gatewayConfigShape);
  const logger = createLogger("gateway", { level: config.LOG_LEVEL });
  const namespace = config.RDA_NAMESPACE ?? "";
  const redis = await openRedis(config.REDIS_URL, "gateway", logger);
  const nats = await connectNats(config.NATS_URL, "gateway", logger);
  const gateway = await startGateway(
    {
      redis,
      nats,
      logger,
      subjects: buildSubjects(namespace),
      keys: redisKeys(namespace),
      metrics: createMetrics({ defaultMetrics: true }),
      settings: {
        reserve: { qps: config.UPSTREAM_RESERVE_QPS, burst: config.UPSTREAM_RESERVE_BURST },
        topUpUrl: config.TOPUP_URL,
        adapterTimeoutMs: config.ADAPTER_TIMEOUT_MS,
        billingTimeoutMs: config.BILLING_TIMEOUT_MS,
        mcpUrl: config.MCP_URL,
      },
    },
    { port: config.PORT, host: config.HOST },
  );
  logger.info({ url: gateway.url }, "gateway listening");
  onShutdown(logger, [
    ["stop accepting and finish in-flight requests", () => gateway.stop()],
    ["drain NATS", () => nats.drain()],
    ["quit Redis", () => redis.quit()],
  ]);
});
