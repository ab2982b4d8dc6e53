/**
 * Requests Node's HTTP parser refuses never reach fastify: headers that did not arrive in time (408),
 * a request line or header fields over the limits (414, 431; server-limits.ts), bytes that are not
 * HTTP (400). They still get what every other answer gets (docs/api.md#errors): a catalog `{error}`
 * body that echoes nothing of the input, the security headers, an `x-request-id`, an access line and
 * the request metrics. As Node itself does, nothing is written into a response already under way.
 */
import type { Socket } from "node:net";
import { ERRORS, type ErrorCode, errorBody, publicErrorMessage } from "@rda/contracts";
import type { GatewayContext } from "../core/context.ts";
import { generateRequestId, SECURITY_HEADERS } from "./answers.ts";

/** Time a refused client gets to read the answer before its connection is cut. */
const LINGER_MS = 1_000;

interface ParserError extends Error {
  readonly code?: string;
  readonly rawPacket?: Buffer;
  readonly bytesParsed?: number;
}

export function answerClientError(ctx: GatewayContext) {
  return (connectionError: Error, socket: Socket): void => {
    const error = connectionError as ParserError;
    if (error.code === "ECONNRESET" || socket.destroyed) return;
    if (!socket.writable || responseUnderWay(socket)) {
      socket.destroy();
      return;
    }
    const code = catalogCodeOf(error);
    const requestId = generateRequestId();
    socket.end(rawAnswer(code, requestId));
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
    const status = String(ERRORS[code].status);
    ctx.metrics.requests.inc({ route: "unparsed", method: "unknown", status });
    ctx.logger.info(
      {
        request_id: requestId,
        route: "unparsed",
        status: Number(status),
        error_code: code,
        reason: error.code,
      },
      "request completed",
    );
  };
}

function responseUnderWay(socket: Socket): boolean {
  const current = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  return current?.headersSent === true;
}

function catalogCodeOf(error: ParserError): ErrorCode {
  if (error.code === "ERR_HTTP_REQUEST_TIMEOUT") return "request_timeout";
  if (error.code === "HPE_HEADER_OVERFLOW")
    return overflowInRequestLine(error) ? "uri_too_long" : "headers_too_large";
  return "invalid_parameter";
}

/**
 * Node says only "header overflow", for the request line and the header fields alike; what the parser
 * had read of the packet it failed in tells them apart. A line ended in it, or it holds a space or a
 * control character (past a leading method): the overflow is in the header fields. Otherwise it is a
 * run of characters a request target may hold: the URL is too long. One header field longer than a
 * whole packet looks the same as a URL and is answered 414: both are "too long", both not charged.
 */
function overflowInRequestLine(error: ParserError): boolean {
  const packet = error.rawPacket;
  if (!packet) return false;
  const parsed = packet.subarray(0, error.bytesParsed ?? packet.length).toString("latin1");
  return /^(?:[A-Z]+ )?[\x21-\x7e]*$/.test(parsed);
}

function rawAnswer(code: ErrorCode, requestId: string): string {
  const detail = code === "invalid_parameter" ? "the HTTP request is malformed" : undefined;
  const body = JSON.stringify(errorBody(code, publicErrorMessage(code, { detail })));
  const headers = {
    "content-type": "application/json; charset=utf-8",
    ...SECURITY_HEADERS,
    "x-request-id": requestId,
    "content-length": String(Buffer.byteLength(body)),
    connection: "close",
  };
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return `HTTP/1.1 ${ERRORS[code].status} ${REASONS[code] ?? "Bad Request"}\r\n${lines.join("")}\r\n${body}`;
}

const REASONS: Partial<Record<ErrorCode, string>> = {
  request_timeout: "Request Timeout",
  uri_too_long: "URI Too Long",
  headers_too_large: "Request Header Fields Too Large",
};
