/** The MCP service's environment, validated once at start (docs/architecture.md, services/mcp/README.md). */
import { DEADLINE_DEFAULTS, defaultMcpGatewayTimeoutMs } from "@rda/contracts";
import { assertDeadlineOrder, env, loadConfig, observabilityEnv } from "@rda/service-kit";
import { z } from "zod";
import { DEFAULT_BODY_TIMEOUT_MS, DEFAULT_RESULT_BUDGET_BYTES } from "./app.ts";

export const mcpConfigShape = {
  MCP_PORT: env.port(8090),
  /** MCP_HOST wins over HOST, so one shared HOST can be overridden for this service alone. */
  MCP_HOST: z.string().min(1).optional(),
  HOST: env.host(),
  /** The gateway's internal listener (GATEWAY_INTERNAL_PORT), where tool calls go. */
  GATEWAY_URL: env.httpUrl().default("http://127.0.0.1:8081"),
  /** Outlasts the gateway's own wait for an adapter, so the gateway's answer (a refunded 502) arrives. */
  GATEWAY_TIMEOUT_MS: env.positiveInt(defaultMcpGatewayTimeoutMs(DEADLINE_DEFAULTS.adapterTimeoutMs)),
  /** The gateway's wait for an adapter, read here only to check GATEWAY_TIMEOUT_MS against it. */
  ADAPTER_TIMEOUT_MS: env.positiveInt(DEADLINE_DEFAULTS.adapterTimeoutMs),
  MCP_ALLOWED_ORIGINS: env.originList(),
  MCP_BODY_TIMEOUT_MS: env.positiveInt(DEFAULT_BODY_TIMEOUT_MS),
  /** Below a few kilobytes no result could say what it holds. */
  MCP_RESULT_BUDGET_BYTES: env.positiveInt(DEFAULT_RESULT_BUDGET_BYTES).pipe(z.number().min(4_096)),
  LOG_LEVEL: env.logLevel(),
} as const;

/** Read beside the service's own variables by main.ts; METRICS_PORT defaults to 9206 here. */
export const mcpObservabilityShape = observabilityEnv(9206);

export interface McpConfig {
  port: number;
  host: string;
  gatewayUrl: string;
  gatewayTimeoutMs: number;
  allowedOrigins: readonly string[];
  bodyTimeoutMs: number;
  resultBudgetBytes: number;
  logLevel: string;
}

export function loadMcpConfig(environment: Record<string, string | undefined> = process.env): McpConfig {
  const raw = loadConfig(mcpConfigShape, environment);
  assertDeadlineOrder(raw);
  return Object.freeze({
    port: raw.MCP_PORT,
    host: raw.MCP_HOST ?? raw.HOST,
    gatewayUrl: raw.GATEWAY_URL,
    gatewayTimeoutMs: raw.GATEWAY_TIMEOUT_MS,
    allowedOrigins: Object.freeze(raw.MCP_ALLOWED_ORIGINS),
    bodyTimeoutMs: raw.MCP_BODY_TIMEOUT_MS,
    resultBudgetBytes: raw.MCP_RESULT_BUDGET_BYTES,
    logLevel: raw.LOG_LEVEL,
  });
}
