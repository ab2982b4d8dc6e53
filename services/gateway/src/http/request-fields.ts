/**
 * What the gateway adds to a request and a reply, declared once on the root instance with
 * `decorateRequest`/`decorateReply` so every request object keeps one shape (fastify adds the fields
 * to the prototype instead of to each object on first write), and typed here for every module.
 */
import type { FastifyInstance } from "fastify";

export function declareRequestFields(app: FastifyInstance): void {
  app.decorateRequest("keyId", undefined);
  app.decorateRequest("internalCredential", undefined);
  app.decorateReply("errorCode", undefined);
}

declare module "fastify" {
  interface FastifyRequest {
    /** The id of the key the request authenticated with, once it did (http/authenticate.ts). */
    keyId?: string;
    /** For an OAuth caller of /mcp: the internal credential forwarded in place of its token. */
    internalCredential?: string;
  }
  interface FastifyReply {
    /** The catalog code of a failed request, for the access log and metrics (http/send-error.ts). */
    errorCode?: string;
  }
}
