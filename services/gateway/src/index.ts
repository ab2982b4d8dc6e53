export { createMetrics, type GatewayMetrics } from "./core/metrics.ts";
export { API_ROUTES, MCP_PREFIX, SYSTEM_PATHS } from "./routes/index.ts";
export { buildGateway, type GatewayDeps, type GatewaySettings } from "./wiring/app.ts";
export {
  type GatewayConfig,
  gatewayConfigShape,
  gatewaySettingsFromEnv,
  gatewaySettingsOf,
  loadGatewayConfig,
  topUpUrlOf,
} from "./wiring/config.ts";
export { type RunningGateway, startGateway } from "./wiring/start.ts";
