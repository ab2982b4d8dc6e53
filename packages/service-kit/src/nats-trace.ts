/**
 * The W3C trace context and the gateway's request id in NATS message headers: a requester writes
 * them (`traceHeaders`), a responder continues from them (`receivedContext`). Used only while
 * tracing is on; off, messages carry no headers at all.
 */
import { type MsgHdrs, headers as natsHeaders } from "@nats-io/transport-node";
import { requestIdSchema } from "@rda/contracts";
import { activeRequestId, type Context, extractContext, injectContext, withRequestId } from "./tracing.ts";

/** The gateway's id of the request a message serves, so every service's log lines name it. */
export const REQUEST_ID_HEADER = "Rda-Request-Id";

export function traceHeaders(): MsgHdrs {
  const headers = natsHeaders();
  injectContext((name, value) => headers.set(name, value));
  const requestId = activeRequestId();
  if (requestId !== undefined) headers.set(REQUEST_ID_HEADER, requestId);
  return headers;
}

/** The sender's span as remote parent, and its request id when well formed (distrust the wire). */
export function receivedContext(headers: MsgHdrs | undefined): Context {
  const parent = extractContext(headers);
  const requestId = headers?.get(REQUEST_ID_HEADER);
  const valid = requestId !== undefined && requestIdSchema.safeParse(requestId).success;
  return withRequestId(parent, valid ? requestId : undefined);
}
