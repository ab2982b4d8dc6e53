/**
 * A tiny HTTP load balancer for tests: forwards each request to the next target in turn and counts
 * what each target served, so a test can show that several replicas answered one client's calls.
 * Targets can be set after it starts, which breaks the gateway ⇄ MCP start-up cycle (each needs the
 * other's URL).
 */
import { createServer, request as forward } from "node:http";
import type { AddressInfo } from "node:net";

export interface RoundRobin {
  url: string;
  setTargets(urls: string[]): void;
  /** Requests forwarded per target URL. */
  served: Map<string, number>;
  close(): Promise<void>;
}

export async function startRoundRobin(): Promise<RoundRobin> {
  let targets: string[] = [];
  let next = 0;
  const served = new Map<string, number>();
  const server = createServer((incoming, outgoing) => {
    const target = targets[next++ % targets.length];
    if (!target) return outgoing.writeHead(503).end();
    served.set(target, (served.get(target) ?? 0) + 1);
    const { hostname, port } = new URL(target);
    const proxied = forward(
      { hostname, port, path: incoming.url, method: incoming.method, headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    proxied.on("error", () => outgoing.headersSent || outgoing.writeHead(502).end());
    incoming.pipe(proxied);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    setTargets: (urls) => {
      targets = urls;
    },
    served,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
