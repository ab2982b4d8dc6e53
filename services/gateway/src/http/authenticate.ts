/**
 * Step 2 of a request (docs/architecture.md): the key from `x-api-key` or `Authorization: Bearer`,
 * resolved to its id, within the limit on refused keys per client address (failed-auth.ts). Shared by
 * the data routes, the account route and the /mcp gate; admission (admission.ts) follows. On the
 * internal listener (the MCP service's calls) the credential may instead be the internal credential
 * the gateway handed the MCP service for an OAuth caller.
 */
import { API_KEY_PATTERN } from "@rda/contracts";
import { presentedKey, readApiKey } from "@rda/service-kit";
import type { FastifyRequest } from "fastify";
import type { GatewayContext } from "../context.ts";
import { fail, type Step } from "../failure.ts";
import type { KeyInfo } from "../key-directory.ts";
import { refuseMalformed, resolveFromAddress } from "./failed-auth.ts";
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
 * The MCP service's calls. No limit on refused keys by address here: every call comes from the MCP
 * service's own address, and the caller's key was already held to that limit at the public /mcp.
 */
async function authenticateInternal(request: FastifyRequest, ctx: GatewayContext): Promise<Step<KeyInfo>> {
  const presented = presentedKey(request.headers);
  if (presented !== undefined && !API_KEY_PATTERN.test(presented)) return internalCaller(ctx, presented);
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
