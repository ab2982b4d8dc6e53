/** `startGateway`: builds the gateway and listens; `stop()` stops accepting and finishes in-flight work. */
import type { AddressInfo } from "node:net";
import { buildGateway, type GatewayDeps } from "./app.ts";

export interface RunningGateway {
  readonly url: string;
  readonly port: number;
  stop(): Promise<void>;
}

export async function startGateway(
  deps: GatewayDeps,
  listen: { port: number; host: string },
): Promise<RunningGateway> {
  const app = buildGateway(deps);
  await app.listen({ port: listen.port, host: listen.host });
  const { port } = app.server.address() as AddressInfo;
  const host = listen.host.includes(":") ? `[${listen.host}]` : listen.host;
  return { url: `http://${host}:${port}`, port, stop: () => app.close() };
}
