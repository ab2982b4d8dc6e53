/**
 * Step 2 of a request (docs/architecture.md): the key from `x-api-key` or `Authorization: Bearer`,
 * resolved to its id, within the limit on refused keys per client address (below). Shared by
 * the data routes, the account route and the /mcp gate; admission (admission.ts) follows. On the
 * internal listener the credential may instead be the internal credential the gateway handed the MCP
 * service for an OAuth caller, or, on the portal's few routes (routes/index.ts' PORTAL_OPERATIONS,
 * marked `config.portal`), the developer portal's credential for a signed-in person's key (both in
 * packages/service-kit/src/gateway-credentials.ts).
 */
import { API_KEY_PATTERN } from "@rda/contracts";
import { credentialKind, type PortalCaller, presentedKey, readApiKey } from "@rda/service-kit";
import type { FastifyRequest } from "fastify";
import { fail, type GatewayContext, type Step } from "../core/context.ts";
import type { KeyInfo } from "../core/key-directory.ts";
import { isInternalRequest } from "./internal-listener.ts";

export async function authenticate(request: FastifyRequest, ctx: GatewayContext): Promise<Step<KeyInfo>> {
  const key = isInternalRequest(request)
    ? await authenticateInternal(request, ctx)
    : await authenticatePublic(request, ctx);
  // For the access line (http/hooks.ts); a child logger per request would cost more than the line.
  if (key.ok) request.keyId = key.value.id;
  return key;
}

async function authenticatePublic(request: FastifyRequest, ctx: GatewayContext): Promise<Step<KeyInfo>> {
  const apiKey = readApiKey(request.headers);
  if (!apiKey.ok) return apiKey.error === "missing" ? fail("missing_api_key") : refuseMalformed(request, ctx);
  return resolveFromAddress(request, ctx, apiKey.value);
}

/**
 * The MCP service's and the portal's calls. No limit on refused keys by address here: every call
 * comes from one of those services' own addresses; the MCP caller's key was already held to that
 * limit at the public /mcp, and the portal's caller is a signed-in person.
 */
async function authenticateInternal(request: FastifyRequest, ctx: GatewayContext): Promise<Step<KeyInfo>> {
  const presented = presentedKey(request.headers);
  if (presented !== undefined && !API_KEY_PATTERN.test(presented)) {
    if (credentialKind(presented) !== "portal") return internalCaller(ctx, presented);
    const portal = await ctx.portalCredentials?.verify(presented);
    return portal === undefined ? fail("invalid_api_key") : portalCaller(request, ctx, portal);
  }
  const apiKey = readApiKey(request.headers);
  if (!apiKey.ok) return fail(apiKey.error === "missing" ? "missing_api_key" : "invalid_api_key");
  return ctx.keys.resolve(apiKey.value);
}

async function internalCaller(ctx: GatewayContext, credential: string): Promise<Step<KeyInfo>> {
  const keyId = await ctx.internalCredentials.verify(credential);
  if (keyId === undefined) return fail("invalid_api_key");
  const key = await ctx.keys.resolveById(keyId);
  if (!key.ok) return key.error.code === "invalid_token" ? fail("invalid_api_key") : key;
  return key;
}

/**
 * The portal's call for a signed-in person: only on the portal's routes, and only for a key that is
 * not revoked and is the account's the portal names, so a portal can never act for another account's
 * key whatever it asks. Which monitor or export the key may touch is then the owning service's to
 * say, as for the key's own calls; rate limits and `Idempotency-Key` hold as for them too.
 */
async function portalCaller(
  request: FastifyRequest,
  ctx: GatewayContext,
  caller: PortalCaller,
): Promise<Step<KeyInfo>> {
  if (request.routeOptions.config.portal !== true)
    return fail("invalid_api_key", { detail: "the portal's credential opens only its pages' routes" });
  const key = await ctx.keys.resolveById(caller.keyId);
  if (!key.ok) return key.error.code === "invalid_token" ? fail("invalid_api_key") : key;
  if (key.value.account_id !== caller.accountId)
    return fail("invalid_api_key", { internal: "portal credential for a key of another account" });
  return key;
}

/**
 * Where authentication meets the limit on refused keys (packages/service-kit/src/failed-auth-limiter.ts): a key is looked up
 * unless its address is throttled and the key is not one this gateway already knows valid; a refused
 * key, malformed or unknown, counts against its address. A missing key costs nothing and is not
 * counted.
 */
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
