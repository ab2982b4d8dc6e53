/**
 * A mail server that refuses when told to: a TCP proxy in front of the capture inbox that answers
 * the next N connections with SMTP's "421 try again later" greeting and closes them, and passes
 * every other connection through untouched. Asking for refusals closes the connections open then.
 */
import { createConnection, createServer, type Server } from "node:net";
import { freePort } from "@rda/service-kit/testing";

export interface RefusingSmtp {
  readonly smtpUrl: string;
  /** The next `count` connections are refused (open ones are closed first). */
  refuseNext(count: number): void;
  /** Connections refused so far. */
  readonly refused: number;
  stop(): Promise<void>;
}

export async function startRefusingSmtp(targetPort: number): Promise<RefusingSmtp> {
  let toRefuse = 0;
  let refused = 0;
  const open = new Set<() => void>();
  const server: Server = createServer((client) => {
    if (toRefuse > 0) {
      toRefuse -= 1;
      refused += 1;
      client.end("421 4.3.2 try again later\r\n");
      return;
    }
    const upstream = createConnection({ port: targetPort, host: "127.0.0.1" });
    client.pipe(upstream).pipe(client);
    const close = () => {
      client.destroy();
      upstream.destroy();
      open.delete(close);
    };
    open.add(close);
    client.on("error", close);
    upstream.on("error", close);
    client.on("close", close);
    upstream.on("close", close);
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    smtpUrl: `smtp://127.0.0.1:${port}`,
    refuseNext(count) {
      toRefuse += count;
      // A pooled connection left open would carry the next mail past the refusal.
      for (const close of [...open]) close();
    },
    get refused() {
      return refused;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
      }),
  };
}
