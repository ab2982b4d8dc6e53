/**
 * Prometheus metrics every service exposes: one registry per service instance (several instances in
 * one test process never collide), the Node process metrics, and `rda_build_info`, which says what
 * is running. The registry is served on its own internal port (METRICS_PORT), never on a public one:
 * see deploy/README.md, section 8.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

export { Counter, Gauge, Histogram, Registry };

export interface BuildInfo {
  /** The service's own name (`gateway`, `adapter-posts`...). */
  readonly service: string;
  /** The service package's version. */
  readonly version: string;
  /** The source commit (BUILD_COMMIT), "unknown" when not given. */
  readonly commit: string;
}

/**
 * prom-client's default set includes three gauges named like counters (`nodejs_active_*_total`),
 * which `promtool check metrics` rejects; each duplicates the sum of its per-type gauge
 * (`nodejs_active_handles{type}` and so on), so they are dropped rather than renamed.
 */
const COUNTER_NAMED_GAUGES = [
  "nodejs_active_handles_total",
  "nodejs_active_requests_total",
  "nodejs_active_resources_total",
];

/** A registry with the process metrics (when asked) and the build info gauge. */
export function createMetricsRegistry(
  build: BuildInfo,
  options: { processMetrics?: boolean } = {},
): Registry {
  const registry = new Registry();
  if (options.processMetrics ?? true) {
    collectDefaultMetrics({ register: registry });
    for (const name of COUNTER_NAMED_GAUGES) registry.removeSingleMetric(name);
  }
  new Gauge({
    name: "rda_build_info",
    help: "Always 1; its labels say which service, version and commit is running.",
    labelNames: ["service", "version", "commit"],
    registers: [registry],
  }).set({ service: build.service, version: build.version, commit: build.commit }, 1);
  return registry;
}

export interface MetricsServer {
  readonly port: number;
  close(): Promise<void>;
}

/** Serves `GET /metrics` in the Prometheus text format; every other path is 404. */
export async function startMetricsServer(
  registry: Registry,
  port: number,
  host: string,
): Promise<MetricsServer> {
  const server: Server = createServer((request, response) => {
    if (request.method !== "GET" || request.url?.split("?")[0] !== "/metrics") {
      response.writeHead(404, { "content-type": "text/plain" }).end("only GET /metrics is served here\n");
      return;
    }
    registry.metrics().then(
      (text) => response.writeHead(200, { "content-type": registry.contentType }).end(text),
      (error: unknown) => response.writeHead(500, { "content-type": "text/plain" }).end(`${String(error)}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
