/** `startPaymentsSim`: builds the simulator and listens, for tests and the process shell. */
import type { AddressInfo } from "node:net";
import { buildPaymentsSim, type PaymentsSimApp, type PaymentsSimOptions } from "./app.ts";

export interface StartOptions extends Omit<PaymentsSimOptions, "publicUrl"> {
  /** Default 0: any free port. */
  readonly port?: number;
  readonly host?: string;
  /** Default: http://host:port as listened on. */
  readonly publicUrl?: string;
}

export interface RunningPaymentsSim extends PaymentsSimApp {
  /** Base URL, e.g. http://127.0.0.1:40123 (no trailing slash). */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

export async function startPaymentsSim(options: StartOptions): Promise<RunningPaymentsSim> {
  const host = options.host ?? "127.0.0.1";
  // A wildcard bind address is no address to send a browser to: loopback is, on this machine.
  const reachable = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
  const shown = reachable.includes(":") ? `[${reachable}]` : reachable;
  // The public URL may name the port, which is known only once listening: build with a placeholder.
  let publicUrl = options.publicUrl ?? "";
  const sim = buildPaymentsSim({ ...options, publicUrl: options.publicUrl ?? "http://pending" });
  await sim.app.listen({ port: options.port ?? 0, host });
  const { port } = sim.app.server.address() as AddressInfo;
  const url = `http://${shown}:${port}`;
  if (!publicUrl) {
    publicUrl = url;
    sim.account.setPublicUrl(url);
  }
  return { ...sim, url, port, close: () => sim.app.close() };
}
