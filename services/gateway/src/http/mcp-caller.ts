/**
 * Who calls `/mcp`: an API key (`x-api-key`, or `Authorization: Bearer rdk_…`), exactly as on every
 * endpoint, or an OAuth access token (`Authorization: Bearer <JWT>`), told apart by their formats.
 * A token is validated here and resolved to the key its grant is bound to; the MCP service then gets
 * a short-lived internal credential for that key instead of the token (service-kit's gateway-credentials.ts).
 * A token in the query string is refused: it would end up in logs and browser histories.
 */
import { API_KEY_PATTERN } from "@rda/contracts";
import { presentedKey } from "@rda/service-kit";
import type { FastifyRequest } from "fastify";
import { fail, type GatewayContext, type Step, succeed } from "../core/context.ts";
import type { KeyInfo } from "../core/key-directory.ts";
import { authenticate } from "./authenticate.ts";

export interface McpCaller {
  readonly key: KeyInfo;
  /** For an OAuth caller: what the MCP service uses for its inner calls, in place of the token. */
  readonly internalCredential?: string;
}

const QUERY_TOKEN = /[?&](access_token|token)=/;

export async function authenticateMcpCaller(
  request: FastifyRequest,
  ctx: GatewayContext,
): Promise<Step<McpCaller>> {
  if (QUERY_TOKEN.test(request.url)) {
    return fail("invalid_token", {
      detail: "send the access token in the Authorization header, never in the URL",
    });
  }
  const presented = presentedKey(request.headers);
  const sentApiKey =
    request.headers["x-api-key"] !== undefined || (presented && API_KEY_PATTERN.test(presented));
  if (presented === undefined || sentApiKey) {
    const key = await authenticate(request, ctx);
    if (!key.ok && key.error.code === "missing_api_key") {
      return fail("missing_api_key", {
        detail: "or connect with OAuth (WWW-Authenticate names the metadata)",
      });
    }
    return key.ok ? succeed({ key: key.value }) : key;
  }
  const token = await ctx.oauth.tokens.verify(presented);
  if (!token.ok) return token;
  const key = await ctx.keys.resolveById(token.value.keyId);
  if (!key.ok) return key;
  request.keyId = key.value.id;
  return succeed({ key: key.value, internalCredential: await ctx.internalCredentials.mint(key.value.id) });
}
