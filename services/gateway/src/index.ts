export { buildGateway, type GatewayDeps, type GatewaySettings } from "./app.ts";
export {
  type GatewayConfig,
  gatewayConfigShape,
  gatewaySettingsFromEnv,
  gatewaySettingsOf,
  loadGatewayConfig,
  topUpUrlOf,
} from "./config.ts";
export { createMetrics, type GatewayMetrics } from "./metrics.ts";
export { API_ROUTES, MCP_PREFIX, SYSTEM_PATHS } from "./routes.ts";
export { type RunningGateway, startGateway } from "./start.ts";
