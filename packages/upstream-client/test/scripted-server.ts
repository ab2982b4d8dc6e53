/**
 * A real HTTP server whose answers a test scripts, for client behaviour the simulator's fault modes
 * do not reach (waitable 429 resets, oversized bodies, path prefixes, held answers for coalescing).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type Script = (request: IncomingMessage, response: ServerResponse, index: number) => void;

export interface ScriptedServer {
  readonly url: string;
  /** Paths (with query) of every request received, in order. */
  readonly paths: string[];
  close(): Promise<void>;
}

export async function startScriptedServer(script: Script): Promise<ScriptedServer> {
  const paths: string[] = [];
  const server = createServer((request, response) => {
    paths.push(request.url ?? "");
    script(request, response, paths.length - 1);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    paths,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function json(response: ServerResponse, status: number, body: unknown, headers = {}): void {
  response.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
}
