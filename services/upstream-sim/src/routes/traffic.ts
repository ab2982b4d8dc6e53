import { setTimeout as sleep } from "node:timers/promises";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { isHeavyQuery } from "../budget/budget-gate.ts";
import { Messages } from "../errors.ts";
import { sendFault } from "../faults/fault-responses.ts";
import { errorBody, rateLimitHeaders, sendJsonItems } from "../http/responses.ts";
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
    // Cloudflare refuses before the origin counts anything.
    if (deps.quirks.requireUserAgent && !request.headers["user-agent"]) {
      sendCloudflareBlock(reply);
      return;
    }
    const extraMs = rationed(deps, request, reply, path);
    if (extraMs === undefined) return;
    const delayMs = deps.latencyMs + extraMs;
    if (delayMs <= 0) return answerOrFault(deps, path, reply, done);
    sleep(delayMs).then(() => answerOrFault(deps, path, reply, done));
  });
}

/**
 * The budget quirks: answers 429 or busy itself (undefined), or lets the request on with the extra
 * latency of a heavy query. A request let on counts as in flight until its answer is written.
 */
function rationed(
  deps: SimDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  path: string,
): number | undefined {
  const gate = deps.budget;
  if (!gate) return 0;
  const client = request.ip;
  const heavy = isHeavyQuery(path, (request.query ?? {}) as Record<string, unknown>);
  const verdict = gate.judgeArrival(client, heavy, deps.clock());
  reply.headers(verdict.headers);
  if (verdict.kind === "rate_limited") {
    reply.code(429).type("application/json").send(errorBody(Messages.rateLimited));
    return undefined;
  }
  if (verdict.kind === "busy") {
    reply.code(422).type("application/json").send(errorBody(Messages.busy));
    return undefined;
  }
  reply.raw.once("close", () => gate.finished(client));
  return verdict.delayMs;
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
