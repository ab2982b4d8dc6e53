/** `startPortal`: builds the portal and listens; `stop()` stops accepting and finishes in-flight work. */
import type { AddressInfo } from "node:net";
import { buildPortal, type PortalDeps } from "./app.ts";

export interface RunningPortal {
  readonly url: string;
  readonly port: number;
  /** Every route it serves, method and URL pattern (tests walk them all). */
  readonly routes: readonly { method: string; url: string }[];
  stop(): Promise<void>;
}

export async function startPortal(
  deps: PortalDeps,
  listen: { port: number; host: string },
): Promise<RunningPortal> {
  const app = buildPortal(deps);
  const routes: { method: string; url: string }[] = [];
  // The routes are added when the plugins load, at listen: this hook sees each one.
  app.addHook("onRoute", (route) => {
    for (const method of [route.method].flat()) routes.push({ method, url: route.url });
  });
  // A port already taken: release what building the portal opened before saying so.
  await app.listen({ port: listen.port, host: listen.host }).catch(async (error: unknown) => {
    await app.close();
    throw error;
  });
  const { port } = app.server.address() as AddressInfo;
  const host = listen.host.includes(":") ? `[${listen.host}]` : listen.host;
  return { url: `http://${host}:${port}`, port, routes, stop: () => app.close() };
}
