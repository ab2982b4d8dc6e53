/** The process shell: read the environment, start the service, stop it in order on SIGTERM/SIGINT. */
import { createLogger, onShutdown, runMain } from "@rda/service-kit";
import { loadMcpConfig } from "./config.ts";
import { startMcp } from "./index.ts";

runMain("mcp", async () => {
  const config = loadMcpConfig();
  const logger = createLogger("mcp", { level: config.logLevel });
  const mcp = await startMcp({
    port: config.port,
    host: config.host,
    gatewayUrl: config.gatewayUrl,
    gatewayTimeoutMs: config.gatewayTimeoutMs,
    logger,
  });
  logger.info({ url: `${mcp.url}/mcp`, gateway: config.gatewayUrl }, "MCP service listening");
  onShutdown(logger, [["stop accepting and finish in-flight requests", () => mcp.stop()]]);
});
