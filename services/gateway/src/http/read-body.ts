/**
 * Reads a request body whole, within a byte limit and a deadline. A client that trickles its body
 * (or stops sending it) would otherwise hold a connection and a buffer for as long as it likes; past
 * the deadline it gets 408 and the connection is closed.
 */
import type { IncomingMessage } from "node:http";

export interface BodyBounds {
  readonly limitBytes: number;
  readonly timeoutMs: number;
}

/** Why a body could not be read; `statusCode` is what fastify's error handler sees. */
export class BodyReadError extends Error {
  constructor(
    readonly statusCode: 408 | 413 | 400,
    message: string,
  ) {
    super(message);
  }
}

export function readBody(stream: IncomingMessage, bounds: BodyBounds): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const declared = Number(stream.headers["content-length"]);
    if (Number.isFinite(declared) && declared > bounds.limitBytes) {
      reject(new BodyReadError(413, `declared body of ${declared} bytes is over the limit`));
      return;
    }
    const finish = (outcome: () => void) => {
      clearTimeout(timer);
      stream.off("data", onData);
      stream.off("end", onEnd);
      stream.off("error", onError);
      outcome();
    };
    const timer = setTimeout(
      () =>
        finish(() =>
          reject(new BodyReadError(408, `the body was not received in full within ${bounds.timeoutMs} ms`)),
        ),
      bounds.timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > bounds.limitBytes) {
        finish(() => reject(new BodyReadError(413, "body is over the limit")));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => finish(() => resolve(Buffer.concat(chunks, received)));
    const onError = (error: Error) => finish(() => reject(new BodyReadError(400, error.message)));
    stream.on("data", onData);
    stream.on("end", onEnd);
    stream.on("error", onError);
  });
}
