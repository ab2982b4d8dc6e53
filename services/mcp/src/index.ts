/**
 * startMcp: the MCP service with its dependencies given (docs/architecture.md, service entry points).
 * It creates one gateway client shared by every request; each call carries its caller's own key.
 */
import { createGatewayClient } from "@rda/sdk";
import type { Logger } from "@rda/service-kit";
import { buildMcpApp } from "./app.ts";

export {
  buildMcpApp,
  DEFAULT_BODY_LIMIT_BYTES,
  DEFAULT_BODY_TIMEOUT_MS,
  DEFAULT_RESULT_BUDGET_BYTES,
  type McpAppDeps,
} from "./app.ts";
export { SERVER_INFO } from "./mcp-server.ts";
export { portableJsonSchema, TOOLS } from "./tools/index.ts";

export interface StartMcpOptions {
  port: number;
  host: string;
  gatewayUrl: string;
  logger: Logger;
  gatewayTimeoutMs?: number;
  bodyLimitBytes?: number;
  bodyTimeoutMs?: number;
  resultBudgetBytes?: number;
  allowedOrigins?: readonly string[];
}

export interface McpHandle {
  /** Base URL of the service, e.g. http://127.0.0.1:8090; the endpoint is `${url}/mcp`. */
  url: string;
  /** Turns /readyz to 503, finishes in-flight requests, then closes the gateway client. */
  stop(): Promise<void>;
}

export async function startMcp(options: StartMcpOptions): Promise<McpHandle> {
  const client = createGatewayClient({ baseUrl: options.gatewayUrl, timeoutMs: options.gatewayTimeoutMs });
  let draining = false;
  const app = buildMcpApp({
    client,
    logger: options.logger,
    bodyLimitBytes: options.bodyLimitBytes,
    bodyTimeoutMs: options.bodyTimeoutMs,
    resultBudgetBytes: options.resultBudgetBytes,
    allowedOrigins: options.allowedOrigins,
    isDraining: () => draining,
  });
  const address = await app.listen({ port: options.port, host: options.host });
  return {
    url: address,
    stop: async () => {
      draining = true;
      await app.close();
      await client.close();
    },
  };
}
