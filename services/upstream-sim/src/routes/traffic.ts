import { setTimeout as sleep } from "node:timers/promises";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { sendFault } from "../faults/fault-responses.ts";
import { rateLimitHeaders, sendJsonItems } from "../http/responses.ts";
import { sendCloudflareBlock } from "../quirks/cloudflare-block.ts";
import type { SimDeps } from "./deps.ts";

const CONTROL_PREFIX = "/__sim";

/**
 * Every request outside /__sim is the "upstream" traffic: it is counted, gets the
 * configured latency and the rate-limit headers, and may be failed by a fault.
 */
export function registerTrafficHook(app: FastifyInstance, deps: SimDeps): void {
  app.addHook("onRequest", (request, reply, done) => {
    const path = pathOf(request);
    if (path.startsWith(CONTROL_PREFIX)) return done();
    deps.stats.count(path);
    reply.headers(rateLimitHeaders(deps.clock()));
    if (deps.quirks.requireUserAgent && !request.headers["user-agent"]) {
      sendCloudflareBlock(reply);
      return;
    }
    if (deps.latencyMs <= 0) return answerOrFault(deps, path, reply, done);
    sleep(deps.latencyMs).then(() => answerOrFault(deps, path, reply, done));
  });
}

function answerOrFault(deps: SimDeps, path: string, reply: FastifyReply, done: () => void): void {
  const hit = deps.faults.draw(path);
  if (hit !== undefined) sendFault(reply, hit, deps.clock(), deps.held);
  else if (SEARCH_PATHS.has(path) && deps.emptyPages.strikes(reply.request.raw.url ?? path)) {
    sendJsonItems(reply, []);
  } else done();
}

/** The listings that may answer a transient empty page (profile.ts). */
const SEARCH_PATHS = new Set(["/api/posts/search", "/api/comments/search"]);

/** The path without its query string. */
function pathOf(request: FastifyRequest): string {
  const url = request.raw.url ?? "/";
  const query = url.indexOf("?");
  return query < 0 ? url : url.slice(0, query);
}
