/**
 * Liveness and readiness for services that have no HTTP API of their own (adapters, billing):
 * GET /livez answers while the process runs; GET /readyz answers 200 only while every check passes
 * (for example: NATS connected, Redis ready), so an orchestrator routes work only to ready replicas.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { portTakenError } from "./config.ts";

export type ReadinessCheck = () => boolean | Promise<boolean>;

export interface HealthServer {
  readonly port: number;
  close(): Promise<void>;
}

export async function evaluateReadiness(checks: Record<string, ReadinessCheck>) {
  const results: Record<string, boolean> = {};
  for (const [name, check] of Object.entries(checks)) {
    results[name] = await Promise.resolve()
      .then(check)
      .catch(() => false);
  }
  return { ready: Object.values(results).every(Boolean), checks: results };
}

export async function startHealthServer(
  port: number,
  host: string,
  checks: Record<string, ReadinessCheck>,
): Promise<HealthServer> {
  const server: Server = createServer(async (request, response) => {
    const path = request.url?.split("?")[0];
    let status = 404;
    let body: unknown = { error: "no such endpoint: use /livez or /readyz" };
    if (path === "/livez") [status, body] = [200, { status: "ok" }];
    if (path === "/readyz") {
      const readiness = await evaluateReadiness(checks);
      [status, body] = [readiness.ready ? 200 : 503, readiness];
    }
    response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error) => reject(portTakenError(error, "HEALTH_PORT", port, host)));
    server.listen(port, host, resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
