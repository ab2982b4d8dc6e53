/**
 * Validating OAuth access tokens at `/mcp`, locally: they are JWTs (RFC 9068) signed by the
 * developer portal, so the gateway checks the signature against the portal's published keys (fetched
 * from OAUTH_JWKS_URL and cached; a key it does not know makes it look again, so the portal can
 * rotate), the type `at+jwt`, the issuer, the audience (exactly this resource: a token for anything
 * else is refused), the expiry, the scope, and that the grant was not ended in the portal since.
 * What it yields is the key the person bound the grant to; the key itself is checked by the key
 * directory like any other (revoked → refused within a second).
 */
import { KEY_ID_PATTERN } from "@rda/contracts";
import { createRemoteJWKSet, errors as joseErrors, jwtVerify } from "jose";
import { fail, type Step, succeed } from "../core/context.ts";
import { MCP_SCOPE, type ProtectedResource } from "./protected-resource.ts";
import type { RevokedGrants } from "./revoked-grants.ts";

/** The shape of a JWT: three base64url parts. API keys (`rdk_…`) never have it. */
export const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

export interface AccessTokenClaims {
  readonly keyId: string;
  readonly grantId: string;
  readonly clientId: string;
}

export interface AccessTokenVerifier {
  verify(token: string): Promise<Step<AccessTokenClaims>>;
}

export function createAccessTokenVerifier(options: {
  resource: ProtectedResource;
  jwksUrl: string;
  revokedGrants: RevokedGrants;
}): AccessTokenVerifier {
  const { resource, revokedGrants } = options;
  const keys = createRemoteJWKSet(new URL(options.jwksUrl), {
    timeoutDuration: 2_000,
    cooldownDuration: 30_000,
    cacheMaxAge: 10 * 60_000,
  });
  const refused = (description: string) => fail("invalid_token", { detail: description });
  return {
    async verify(token) {
      if (!JWT_SHAPE.test(token)) return refused("not an access token");
      let payload: Record<string, unknown>;
      try {
        ({ payload } = await jwtVerify(token, keys, {
          issuer: resource.issuer,
          audience: resource.resource,
          typ: "at+jwt",
          algorithms: ["ES256"],
          requiredClaims: ["exp", "iat", "client_id"],
          clockTolerance: 5,
        }));
      } catch (error) {
        if (isUnreachable(error)) {
          return fail("service_unavailable", { retryAfterSeconds: 5, internal: `JWKS: ${String(error)}` });
        }
        return refused(describe(error));
      }
      const { key_id: keyId, grant_id: grantId, client_id: clientId, scope } = payload;
      if (typeof keyId !== "string" || !KEY_ID_PATTERN.test(keyId)) return refused("the token names no key");
      if (typeof grantId !== "string" || typeof clientId !== "string")
        return refused("the token names no grant");
      if (typeof scope !== "string" || !scope.split(" ").includes(MCP_SCOPE)) {
        return refused(`the token lacks the ${MCP_SCOPE} scope`);
      }
      if (revokedGrants.has(grantId)) return refused("this app was disconnected in the developer portal");
      return succeed({ keyId, grantId, clientId });
    },
  };
}

function isUnreachable(error: unknown): boolean {
  return error instanceof joseErrors.JWKSTimeout || (error instanceof Error && error.name === "TypeError");
}

/** What the client is told (in `error_description`); never the token. */
function describe(error: unknown): string {
  if (error instanceof joseErrors.JWTExpired) return "the access token has expired";
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    return error.claim === "aud"
      ? "the access token is for another resource"
      : `the token's ${error.claim} is not accepted`;
  }
  return "the access token is not valid here";
}
