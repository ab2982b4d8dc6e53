/** The MCP service's environment, validated once at start (DESIGN.md, docs/architecture.md). */
import { env, loadConfig } from "@rda/service-kit";
import { z } from "zod";

const shape = {
  MCP_PORT: env.port(8090),
  /** MCP_HOST wins over HOST, so one shared HOST can be overridden for this service alone. */
  MCP_HOST: z.string().min(1).optional(),
  HOST: env.host(),
  GATEWAY_URL: env.httpUrl().default("http://127.0.0.1:8080"),
  GATEWAY_TIMEOUT_MS: env.positiveInt(15_000),
  LOG_LEVEL: env.logLevel(),
} as const;

export interface McpConfig {
  port: number;
  host: string;
  gatewayUrl: string;
  gatewayTimeoutMs: number;
  logLevel: string;
}

export function loadMcpConfig(environment: Record<string, string | undefined> = process.env): McpConfig {
  const raw = loadConfig(shape, environment);
  return Object.freeze({
    port: raw.MCP_PORT,
    host: raw.MCP_HOST ?? raw.HOST,
    gatewayUrl: raw.GATEWAY_URL,
    gatewayTimeoutMs: raw.GATEWAY_TIMEOUT_MS,
    logLevel: raw.LOG_LEVEL,
  });
}
