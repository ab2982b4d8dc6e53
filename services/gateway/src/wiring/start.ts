/**
 * `startGateway`: builds the gateway and listens on its public port and on its internal listener (the
 * MCP service's inner calls); `stop()` stops accepting on both and finishes in-flight work.
 */
import type { AddressInfo } from "node:net";
import { listenInternal } from "../http/internal-listener.ts";
import { buildGateway, type GatewayDeps } from "./app.ts";

export interface RunningGateway {
  readonly url: string;
  readonly port: number;
  /** The internal listener's base URL: where the MCP service calls (GATEWAY_URL of the MCP service). */
  readonly internalUrl: string;
  stop(): Promise<void>;
}

export async function startGateway(
  deps: GatewayDeps,
  listen: { port: number; host: string; internalPort?: number; internalHost?: string },
): Promise<RunningGateway> {
  const app = buildGateway(deps);
  await app.listen({ port: listen.port, host: listen.host });
  const internal = await listenInternal(app, {
    port: listen.internalPort ?? 0,
    host: listen.internalHost ?? listen.host,
  });
  const { port } = app.server.address() as AddressInfo;
  const host = listen.host.includes(":") ? `[${listen.host}]` : listen.host;
  return {
    url: `http://${host}:${port}`,
    port,
    internalUrl: internal.url,
    // Both sockets stop accepting at once; each finishes what it is serving.
    stop: async () => {
      await Promise.all([internal.close(), app.close()]);
    },
  };
}
