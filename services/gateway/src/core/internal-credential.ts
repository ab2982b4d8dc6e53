/**
 * The MCP service's credential for an OAuth caller's inner `/v1` calls. The gateway validated the
 * caller's access token at `/mcp`; it never passes that token on. Instead it hands the MCP service
 * this: a JWT signed with GATEWAY_INTERNAL_SECRET (shared by the gateway replicas only), naming the
 * bound key id, for the internal audience, valid for seconds. The gateway accepts it only on its
 * internal listener (http/internal-listener.ts), which the MCP service calls; on the public port it is
 * just an unknown credential. So the MCP service never holds a raw API key it did not receive, and
 * what it holds is worthless outside the internal path a few seconds later.
 */
import { randomUUID } from "node:crypto";
import { KEY_ID_PATTERN } from "@rda/contracts";
import { jwtVerify, SignJWT } from "jose";

/** Long enough for the slowest tool call's inner request to start; short enough to be useless if copied. */
export const INTERNAL_CREDENTIAL_SECONDS = 30;

const ISSUER = "rda-gateway";
const AUDIENCE = "rda-gateway-internal";
const TYPE = "rda-internal+jwt";

export interface InternalCredentials {
  mint(keyId: string): Promise<string>;
  /** The key id, or undefined for anything not minted by a gateway of this deployment just now. */
  verify(credential: string): Promise<string | undefined>;
}

export function createInternalCredentials(secret: string): InternalCredentials {
  const key = new TextEncoder().encode(secret);
  return {
    mint: (keyId) =>
      new SignJWT({})
        .setProtectedHeader({ alg: "HS256", typ: TYPE })
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setSubject(keyId)
        .setJti(randomUUID())
        .setIssuedAt()
        .setExpirationTime(`${INTERNAL_CREDENTIAL_SECONDS}s`)
        .sign(key),
    async verify(credential) {
      try {
        const { payload } = await jwtVerify(credential, key, {
          issuer: ISSUER,
          audience: AUDIENCE,
          typ: TYPE,
          algorithms: ["HS256"],
          maxTokenAge: `${INTERNAL_CREDENTIAL_SECONDS + 5}s`,
          clockTolerance: 2,
        });
        return typeof payload.sub === "string" && KEY_ID_PATTERN.test(payload.sub) ? payload.sub : undefined;
      } catch {
        return undefined;
      }
    },
  };
}
