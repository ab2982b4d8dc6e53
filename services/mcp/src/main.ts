/** The process shell: read the environment, start the service, stop it in order on SIGTERM/SIGINT. */
import { createLogger, loadConfig, onShutdown, runMain, startObservability } from "@rda/service-kit";
import { loadMcpConfig, mcpObservabilityShape } from "./config.ts";
import { startMcp } from "./index.ts";

runMain("mcp", async () => {
  const config = loadMcpConfig();
  const observed = loadConfig(mcpObservabilityShape);
  const observability = await startObservability("mcp", import.meta.url, observed);
  const logger = createLogger("mcp", { level: config.logLevel });
  const mcp = await startMcp({
    port: config.port,
    host: config.host,
    gatewayUrl: config.gatewayUrl,
    gatewayTimeoutMs: config.gatewayTimeoutMs,
    bodyTimeoutMs: config.bodyTimeoutMs,
    resultBudgetBytes: config.resultBudgetBytes,
    allowedOrigins: config.allowedOrigins,
    logger,
  });
  const metrics = await observability.serveMetrics();
  logger.info(
    { url: `${mcp.url}/mcp`, gateway: config.gatewayUrl, metricsPort: metrics.port },
    "MCP service listening",
  );
  onShutdown(logger, [
    ["stop accepting and finish in-flight requests", () => mcp.stop()],
    ["close the metrics server", () => metrics.close()],
    ["export the last spans", () => observability.tracing.shutdown()],
  ]);
});
