/**
 * HTTP at the byte level, for what `fetch` cannot send: a request line or header fields past the
 * limits, and a request trickled a byte at a time. Resolves with what the server wrote before it
 * closed the connection, and when it closed it.
 */
import { connect } from "node:net";

export interface RawExchange {
  /** Status of the answer, 0 if none came. */
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
  /** Milliseconds from connecting until the server closed the connection. */
  readonly closedAfterMs: number;
}

export function rawRequest(
  url: string,
  request: string,
  trickle?: { readonly everyMs: number },
): Promise<RawExchange> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const started = performance.now();
    const chunks: Buffer[] = [];
    let timer: NodeJS.Timeout | undefined;
    const socket = connect(Number(port), hostname, () => {
      if (!trickle) {
        socket.write(request);
        return;
      }
      let sent = 0;
      const next = () => {
        if (sent >= request.length || socket.destroyed) return;
        socket.write(request[sent++]!);
        timer = setTimeout(next, trickle.everyMs);
      };
      next();
    });
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("error", () => undefined);
    socket.on("close", () => {
      clearTimeout(timer);
      resolve({
        ...parse(Buffer.concat(chunks).toString("latin1")),
        closedAfterMs: performance.now() - started,
      });
    });
  });
}

function parse(text: string): Omit<RawExchange, "closedAfterMs"> {
  const [head = "", body = ""] = text.split("\r\n\r\n", 2);
  const [statusLine = "", ...lines] = head.split("\r\n");
  const headers = Object.fromEntries(
    lines.map((line) => {
      const at = line.indexOf(":");
      return [line.slice(0, at).trim().toLowerCase(), line.slice(at + 1).trim()];
    }),
  );
  return { status: Number(statusLine.split(" ")[1] ?? 0), headers, body };
}
