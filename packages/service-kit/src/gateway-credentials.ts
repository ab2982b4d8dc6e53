/**
 * The gateway's two short-lived credentials, each bound to one key, each accepted only on the
 * gateway's internal listener (services/gateway/src/http/internal-listener.ts), on the public port
 * just an unknown credential. One module for both, so they differ only where they must.
 *
 * - The MCP service's, for an OAuth caller's inner `/v1` calls. The gateway validated the caller's
 *   access token at `/mcp`; it never passes that token on. Instead it hands the MCP service this: a
 *   JWT signed with GATEWAY_INTERNAL_SECRET (shared by the gateway replicas only), naming the bound
 *   key id. So the MCP service never holds a raw API key it did not receive, and what it holds is
 *   worthless outside the internal path a few seconds later.
 * - The developer portal's, for a signed-in person's monitors and exports: the portal signs it with
 *   PORTAL_GATEWAY_SECRET (shared by the portal and the gateway only), naming the key and the account
 *   the person signed in to. A secret of its own, an audience and a type of its own: a portal that
 *   leaks can never mint an MCP credential (which spends on the data routes), and the gateway takes
 *   a portal credential only on the management routes the portal's pages use, for a key that is the
 *   named account's and not revoked (services/gateway/src/http/authenticate.ts).
 */
import { randomUUID } from "node:crypto";
import { ACCOUNT_ID_PATTERN, KEY_ID_PATTERN } from "@rda/contracts";
import { decodeProtectedHeader, type JWTPayload, jwtVerify, SignJWT } from "jose";

/** Long enough for the slowest tool call's inner request to start; short enough to be useless if copied. */
export const INTERNAL_CREDENTIAL_SECONDS = 30;

/** Who signs, for whom, and the header type that keeps one kind from passing as the other. */
interface Kind {
  readonly issuer: string;
  readonly audience: string;
  readonly type: string;
}

const MCP_KIND: Kind = { issuer: "rda-gateway", audience: "rda-gateway-internal", type: "rda-internal+jwt" };
const PORTAL_KIND: Kind = { issuer: "rda-portal", audience: "rda-gateway-portal", type: "rda-portal+jwt" };

function signer(secret: string, kind: Kind) {
  const key = new TextEncoder().encode(secret);
  return {
    mint: (subject: string, claims: JWTPayload = {}) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: "HS256", typ: kind.type })
        .setIssuer(kind.issuer)
        .setAudience(kind.audience)
        .setSubject(subject)
        .setJti(randomUUID())
        .setIssuedAt()
        .setExpirationTime(`${INTERNAL_CREDENTIAL_SECONDS}s`)
        .sign(key),
    /** The payload, or undefined for anything not minted for this kind with this secret just now. */
    async verify(credential: string): Promise<JWTPayload | undefined> {
      try {
        const { payload } = await jwtVerify(credential, key, {
          issuer: kind.issuer,
          audience: kind.audience,
          typ: kind.type,
          algorithms: ["HS256"],
          maxTokenAge: `${INTERNAL_CREDENTIAL_SECONDS + 5}s`,
          clockTolerance: 2,
        });
        return payload;
      } catch {
        return undefined;
      }
    },
  };
}

const keyIdOf = (payload: JWTPayload | undefined) =>
  typeof payload?.sub === "string" && KEY_ID_PATTERN.test(payload.sub) ? payload.sub : undefined;

/**
 * Which of the two a presented credential claims to be, read from its header without checking it,
 * so the gateway verifies it once, with the one secret that kind is signed with.
 */
export function credentialKind(credential: string): "portal" | "internal" | undefined {
  try {
    const { typ } = decodeProtectedHeader(credential);
    return typ === PORTAL_KIND.type ? "portal" : typ === MCP_KIND.type ? "internal" : undefined;
  } catch {
    return undefined;
  }
}

export interface InternalCredentials {
  mint(keyId: string): Promise<string>;
  /** The key id, or undefined for anything not minted by a gateway of this deployment just now. */
  verify(credential: string): Promise<string | undefined>;
}

export function createInternalCredentials(secret: string): InternalCredentials {
  const jwt = signer(secret, MCP_KIND);
  return {
    mint: (keyId) => jwt.mint(keyId),
    verify: async (credential) => keyIdOf(await jwt.verify(credential)),
  };
}

/** Whom a portal credential speaks for: a key, and the account the person signed in to. */
export interface PortalCaller {
  readonly keyId: string;
  readonly accountId: string;
}

export interface PortalCredentials {
  mint(caller: PortalCaller): Promise<string>;
  /** The caller, or undefined for anything not minted by this deployment's portal just now. */
  verify(credential: string): Promise<PortalCaller | undefined>;
}

const ACCOUNT_CLAIM = "account_id";

export function createPortalCredentials(secret: string): PortalCredentials {
  const jwt = signer(secret, PORTAL_KIND);
  return {
    mint: ({ keyId, accountId }) => jwt.mint(keyId, { [ACCOUNT_CLAIM]: accountId }),
    async verify(credential) {
      const payload = await jwt.verify(credential);
      const keyId = keyIdOf(payload);
      const accountId = payload?.[ACCOUNT_CLAIM];
      if (keyId === undefined || typeof accountId !== "string" || !ACCOUNT_ID_PATTERN.test(accountId))
        return undefined;
      return { keyId, accountId };
    },
  };
}
