/**
 * What every process shell sets up to be observed: its environment variables (validated with the
 * rest of its configuration), tracing when an OTLP endpoint is given, a metrics registry with the
 * build info, and the internal metrics server (deploy/README.md, section 8).
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { env, portTakenError } from "./config.ts";
import {
  type BuildInfo,
  createMetricsRegistry,
  type MetricsServer,
  type Registry,
  startMetricsServer,
} from "./metrics.ts";
import { startTracing, type Tracing } from "./tracing.ts";

/** The variables of `observabilityEnv`, each service's default metrics port beside them. */
export function observabilityEnv(defaultMetricsPort: number) {
  return {
    METRICS_PORT: env.port(defaultMetricsPort),
    METRICS_HOST: env.host(),
    OTEL_EXPORTER_OTLP_ENDPOINT: env.httpUrl().optional(),
    BUILD_COMMIT: z
      .string()
      .regex(/^[0-9A-Za-z._-]{1,64}$/, { error: "must be a commit id such as 3f2c1ab" })
      .default("unknown"),
  } as const;
}

export interface ObservabilityConfig {
  readonly METRICS_PORT: number;
  readonly METRICS_HOST: string;
  readonly OTEL_EXPORTER_OTLP_ENDPOINT?: string | undefined;
  readonly BUILD_COMMIT: string;
}

export interface Observability {
  readonly build: BuildInfo;
  readonly registry: Registry;
  readonly tracing: Tracing;
  /**
   * The metrics server on METRICS_PORT. It is bound by `startObservability` itself, before the
   * service opens anything or says it is listening, so a port already taken stops the start with one
   * clear sentence instead of a "listening" line followed by a crash.
   */
  serveMetrics(): Promise<MetricsServer>;
}

export async function startObservability(
  service: string,
  moduleUrl: string,
  config: ObservabilityConfig,
): Promise<Observability> {
  const build = { service, version: packageVersion(moduleUrl), commit: config.BUILD_COMMIT };
  const registry = createMetricsRegistry(build);
  const metrics = await startMetricsServer(registry, config.METRICS_PORT, config.METRICS_HOST).catch(
    (error: unknown) => {
      throw portTakenError(error, "METRICS_PORT", config.METRICS_PORT, config.METRICS_HOST);
    },
  );
  const tracing = await startTracing({
    service,
    version: build.version,
    endpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT,
  });
  return {
    build,
    registry,
    tracing,
    serveMetrics: async () => metrics,
  };
}

/** The version of the package a module belongs to: the nearest package.json above it. */
export function packageVersion(moduleUrl: string): string {
  let dir = dirname(fileURLToPath(moduleUrl));
  for (;;) {
    try {
      const { version } = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version?: string };
      return version ?? "unknown";
    } catch {
      const parent = dirname(dir);
      if (parent === dir) return "unknown";
      dir = parent;
    }
  }
}
