/**
 * Reads a request body whole, within a byte limit and a deadline. A client that trickles its body
 * (or stops sending it) would otherwise hold a connection and a buffer for as long as it likes; past
 * the deadline it gets 408 and the connection is closed.
 */
import type { IncomingMessage } from "node:http";
import { type ErrorCode, err, ok, type Result } from "@rda/contracts";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Failure, GatewayContext } from "../core/context.ts";
import { sendError } from "./send-error.ts";

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

/**
 * The routes of `scope` take a JSON object body, read and parsed alike on every such route
 * (monitors, exports): any content type, an empty body is `{}`, anything else must be a JSON object
 * without a `__proto__` key; a body that cannot be read is answered from the catalog (400, 408,
 * 413), never as a 405 or a fault.
 */
export function acceptJsonObjectBodies(scope: FastifyInstance, ctx: GatewayContext, limitBytes: number) {
  scope.removeAllContentTypeParsers();
  const bounds = { limitBytes, timeoutMs: ctx.body.timeoutMs };
  scope.addContentTypeParser("*", (_request: FastifyRequest, payload: IncomingMessage) =>
    readBody(payload, bounds),
  );
  scope.setErrorHandler(async (error, _request, reply) => {
    if (!(error instanceof BodyReadError)) throw error;
    const code = BODY_FAILURES[error.statusCode];
    const detail = code === "invalid_parameter" ? "the body could not be read" : undefined;
    return sendError(reply, { code, detail }, ctx.errors);
  });
}

const BODY_FAILURES = {
  400: "invalid_parameter",
  408: "request_timeout",
  413: "payload_too_large",
} as const satisfies Record<BodyReadError["statusCode"], ErrorCode>;

/** A body read by `acceptJsonObjectBodies`, as the object it holds, or why it is refused. */
export function jsonObjectBody(body: unknown): Result<Record<string, unknown>, Failure> {
  if (body === undefined || (Buffer.isBuffer(body) && body.length === 0)) return ok({});
  let value: unknown;
  try {
    value = JSON.parse(Buffer.isBuffer(body) ? body.toString("utf8") : String(body), refuseProtoKey);
  } catch (error) {
    if (error instanceof ProtoKeyError) return err(invalidBody("unknown field '__proto__'", "__proto__"));
    return err(invalidBody("the body is not valid JSON"));
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return err(invalidBody("the body must be a JSON object"));
  return ok(value as Record<string, unknown>);
}

const invalidBody = (detail: string, param?: string): Failure => ({
  code: "invalid_parameter",
  detail,
  ...(param === undefined ? {} : { param }),
});

class ProtoKeyError extends Error {}

/** `__proto__` is nobody's field: refused at any depth, as an unknown field is. */
function refuseProtoKey(key: string, value: unknown): unknown {
  if (key === "__proto__") throw new ProtoKeyError();
  return value;
}
