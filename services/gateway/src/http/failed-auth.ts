/**
 * Where authentication meets the limit on refused keys (packages/service-kit/src/failed-auth-limiter.ts): a key is looked up
 * unless its address is throttled and the key is not one this gateway already knows valid; a refused
 * key, malformed or unknown, counts against its address. A missing key costs nothing and is not
 * counted.
 */
import type { FastifyRequest } from "fastify";
import type { GatewayContext } from "../context.ts";
import { fail, type Step } from "../failure.ts";
import type { KeyInfo } from "../key-directory.ts";

export async function resolveFromAddress(
  request: FastifyRequest,
  ctx: GatewayContext,
  apiKey: string,
): Promise<Step<KeyInfo>> {
  const wait = ctx.failedAuth.throttledFor(request.ip);
  if (wait !== undefined && !ctx.keys.knownValid(apiKey)) return throttled(ctx, wait);
  const key = await ctx.keys.resolve(apiKey);
  if (!key.ok && key.error.code === "invalid_api_key") ctx.failedAuth.refused(request.ip);
  return key;
}

/** A key of the wrong shape: refused without a lookup, and counted. */
export function refuseMalformed(request: FastifyRequest, ctx: GatewayContext): Step<never> {
  const wait = ctx.failedAuth.throttledFor(request.ip);
  if (wait !== undefined) return throttled(ctx, wait);
  ctx.failedAuth.refused(request.ip);
  return fail("invalid_api_key");
}

function throttled(ctx: GatewayContext, seconds: number): Step<never> {
  ctx.metrics.rateLimited.inc({ scope: "address" });
  return fail("auth_failures_throttled", { retryAfterSeconds: seconds });
}
