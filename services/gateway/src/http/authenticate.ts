/**
 * Steps 2 and 3 of a request (architecture.md): the key, then its limits. Shared by the data routes,
 * the account route (which skips the reserve) and the /mcp gate (which only authenticates).
 */
import type { FastifyRequest } from "fastify";
import { readApiKey } from "../api-key.ts";
import type { GatewayContext } from "../context.ts";
import type { KeyInfo } from "../key-directory.ts";
import type { Step } from "./failure.ts";

export async function authenticate(request: FastifyRequest, ctx: GatewayContext): Promise<Step<KeyInfo>> {
  const apiKey = readApiKey(request.headers);
  if (!apiKey.ok) return apiKey;
  const key = await ctx.keys.resolve(apiKey.value);
  if (key.ok) request.log = request.log.child({ key_id: key.value.id });
  return key;
}

export async function authenticateAndLimit(
  request: FastifyRequest,
  ctx: GatewayContext,
  reserve: boolean,
): Promise<Step<KeyInfo>> {
  const key = await authenticate(request, ctx);
  if (!key.ok) return key;
  const admitted = await ctx.limiter.admit(key.value.id, key.value.rate_limit, reserve);
  return admitted.ok ? key : admitted;
}
