/**
 * A responder's failure travels as data: an empty reply whose headers carry a code and a message, as
 * the nats.js services framework does it (`Nats-Service-Error`, `Nats-Service-Error-Code`). Every
 * requester decodes it the same way, whatever the subject's normal reply looks like.
 */
import { headers, type Msg } from "@nats-io/transport-node";

const ERROR_HEADER = "Nats-Service-Error";
const CODE_HEADER = "Nats-Service-Error-Code";

/** Thrown by a handler for an expected refusal: the code and message reach the requester. */
export class ServiceError extends Error {
  constructor(
    /** HTTP-like: 400 the request was refused, 503 a dependency of the responder is down. */
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = "ServiceError";
  }
}

export function respondWithError(message: Msg, code: number, text: string): void {
  const failure = headers();
  failure.set(ERROR_HEADER, text.replace(/[\r\n]+/g, " ").slice(0, 500));
  failure.set(CODE_HEADER, String(code));
  message.respond(new Uint8Array(), { headers: failure });
}

export function readServiceError(reply: Msg): { code: number; message: string } | undefined {
  const message = reply.headers?.get(ERROR_HEADER);
  if (!message) return undefined;
  const code = Number(reply.headers?.get(CODE_HEADER));
  return { code: Number.isInteger(code) ? code : 500, message };
}
