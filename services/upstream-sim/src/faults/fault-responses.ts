import type { FastifyReply } from "fastify";
import { Messages } from "../errors.ts";
import { errorBody, rateLimitHeaders } from "../http/responses.ts";
import type { FaultHit } from "./fault-registry.ts";
import type { HeldRequests } from "./held-requests.ts";

const ERROR_STATUSES = [
  [500, Messages.serverError],
  [502, Messages.badGateway],
  [503, Messages.unavailable],
] as const;

const CLOUDFLARE_CODES = [
  [520, "Web server is returning an unknown error"],
  [521, "Web server is down"],
  [522, "Connection timed out"],
  [523, "Origin is unreachable"],
  [524, "A timeout occurred"],
] as const;

/**
 * Answers a request the way the upstream fails (docs/upstream.md#errors-and-busy-answers). Statuses
 * rotate with each injection of the same fault, so tests can predict them.
 */
export function sendFault(
  reply: FastifyReply,
  hit: FaultHit,
  nowMs: number,
  held: HeldRequests,
): FastifyReply {
  const pick = <T>(items: readonly T[]): T => items[(hit.nth - 1) % items.length] as T;
  switch (hit.mode) {
    case "error": {
      const [status, message] = pick(ERROR_STATUSES);
      return reply.code(status).type("application/json").send(errorBody(message));
    }
    case "garbage": {
      const [status, title] = pick(CLOUDFLARE_CODES);
      return reply.code(status).type("text/html; charset=UTF-8").send(cloudflarePage(status, title));
    }
    case "busy":
      // Seen both as 422 and as 200 (docs/upstream.md#errors-and-busy-answers).
      return reply
        .code(hit.nth % 2 === 1 ? 422 : 200)
        .type("application/json")
        .send(errorBody(Messages.busy));
    case "ratelimit":
      return reply
        .code(429)
        .headers(rateLimitHeaders(nowMs))
        .type("application/json")
        .send(errorBody(Messages.rateLimited));
    case "timeout":
      held.hold(reply.raw.socket ?? reply.request.raw.socket);
      return reply.hijack();
  }
}

function cloudflarePage(status: number, title: string): string {
  return [
    "<!DOCTYPE html>",
    `<html lang="en-US"><head><title>arctic-shift.photon-reddit.com | ${status}: ${title}</title></head>`,
    `<body><div id="cf-error-details"><h1>${title}</h1><span>Error code ${status}</span>`,
    "<p>Visit cloudflare.com for more information.</p>",
    `<p>Cloudflare Ray ID: 8f${status}a1b2c3d4e5f6</p></div></body></html>`,
  ].join("\n");
}
