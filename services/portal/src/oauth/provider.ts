/**
 * The portal as the OAuth 2.1 authorization server of the MCP endpoint, built on oidc-provider (an
 * OpenID-certified implementation; services/portal/README.md says why this library). Everything
 * protocol-shaped is the library's: metadata (RFC 8414 and OpenID discovery), dynamic client
 * registration (RFC 7591), Client ID Metadata Documents, PKCE with S256 only, authorization codes,
 * refresh tokens rotated on every use, RFC 8707 resource indicators, RFC 9207 `iss` in the
 * authorization response. This module says only what is ours:
 *
 * - one resource: the API's `/mcp` (`<PUBLIC_API_URL>/mcp`), and access tokens for nothing else;
 * - access tokens are short-lived signed JWTs (RFC 9068) carrying the key the person picked
 *   (`key_id`) and their grant (`grant_id`); the gateway verifies them with the published keys;
 * - every authorization goes through the portal's own sign-in and a consent page that picks the key
 *   (no silent re-use of an earlier grant);
 * - public clients (PKCE is their proof); a loopback redirect may vary by port (RFC 8252); and agent
 *   clients, made in the portal and bound to a key there, which get tokens by the client credentials
 *   grant with a secret kept only as its hash (agent-clients.ts);
 * - only what works is on: no pushed authorization requests, no DPoP (the gateway takes Bearer
 *   tokens), no userinfo; `openid` is honoured (an ID token naming the account) on the same consent;
 * - every URL a client hands over is fetched with the portal's safe outgoing fetch (public https
 *   addresses only, checked after DNS resolution), and `sector_identifier_uri` is refused outright;
 * - a grant ended by the provider itself (a replayed code, a reused refresh token, a revoked refresh
 *   token) ends its connection, exactly as Disconnect does (`onGrantRevoked`).
 */
import { checkOutgoingUrl, type PortalRedisKeys, type Redis, safeFetch } from "@rda/service-kit";
import Provider, { errors, interactionPolicy, type KoaContextWithOIDC } from "oidc-provider";
import { checkAgentClientShape, compareHashedSecret } from "./agent-clients.ts";
import type { ConnectionStore } from "./connections.ts";
import { checkRedirectUris } from "./redirect-uris.ts";
import { redisAdapterFactory } from "./redis-adapter.ts";
import type { SigningKey } from "./signing-key.ts";

/** The one scope: calling the MCP endpoint (tools spend the chosen key's credits). */
export const MCP_SCOPE = "mcp";

export const OAUTH_ROUTES = {
  authorization: "/oauth/authorize",
  token: "/oauth/token",
  registration: "/register",
  revocation: "/oauth/revoke",
  jwks: "/oauth/jwks",
} as const;

/** Where oidc-provider sends the browser for sign-in and consent (routes/oauth-consent.ts). */
export const CONSENT_PATH = "/oauth/consent";

export const OAUTH_TTL_SECONDS = {
  /** Short: a revoked key or connection is refused at once anyway; this bounds a missed event. */
  accessToken: 300,
  authorizationCode: 60,
  refreshToken: 30 * 24 * 3_600,
  grant: 30 * 24 * 3_600,
  /** Sign-in (email link included) and consent must happen within this. */
  interaction: 3_600,
  session: 3_600,
} as const;

export interface OAuthProviderDeps {
  readonly redis: Redis;
  readonly keys: PortalRedisKeys;
  /** PORTAL_URL: the issuer. */
  readonly issuer: string;
  /** `<PUBLIC_API_URL>/mcp`: the only resource tokens are issued for. */
  readonly resource: string;
  readonly signingKey: SigningKey;
  readonly connections: ConnectionStore;
  /** Whose X-Forwarded-* to believe, as the portal's own `trustProxy`. */
  readonly behindProxy: boolean;
  /** Renders the provider's error page in the portal's look. */
  readonly renderError: (ctx: KoaContextWithOIDC, out: Record<string, string>) => void;
  /**
   * Whether the key a connection spends is still active; false refuses the token request (a
   * refresh after the key was revoked). Undefined when billing cannot say (the request fails).
   */
  readonly keyIsActive: (accountId: string, keyId: string) => Promise<boolean | undefined>;
  /** Development and tests only: client URLs on private addresses and plain http are fetched. */
  readonly allowPrivateFetch?: boolean;
}

/** What a client document fetched from its URL may weigh, and how long the fetch may take. */
const CLIENT_FETCH = { maxBytes: 16 * 1_024, timeoutMs: 3_000 } as const;

export function createOAuthProvider(deps: OAuthProviderDeps): Provider {
  const { resource } = deps;
  const resourceServer = {
    scope: MCP_SCOPE,
    audience: resource,
    accessTokenTTL: OAUTH_TTL_SECONDS.accessToken,
    accessTokenFormat: "jwt" as const,
    jwt: { sign: { alg: deps.signingKey.alg } },
  };
  const provider = new Provider(deps.issuer, {
    adapter: redisAdapterFactory(deps.redis, deps.keys),
    jwks: { keys: [deps.signingKey.privateJwk] },
    cookies: { keys: [deps.signingKey.cookieSecret] },
    routes: OAUTH_ROUTES,
    scopes: [MCP_SCOPE, "offline_access"],
    // `openid` (from this claim) gives an ID token with the account id as `sub`, nothing more.
    claims: { openid: ["sub"] },
    subjectTypes: ["public"],
    // Every URL a client supplies (its metadata document, a jwks_uri) goes through the safe fetch.
    fetch: (url, options = {}) =>
      safeFetch(url instanceof Request ? url.url : url, {
        method: options.method === "POST" ? "POST" : "GET",
        headers: Object.fromEntries(new Headers(options.headers).entries()),
        body: typeof options.body === "string" ? options.body : undefined,
        ...CLIENT_FETCH,
        allowPrivateAddresses: deps.allowPrivateFetch,
      }),
    fetchResponseBodyLimits: {
      "client_id metadata document": CLIENT_FETCH.maxBytes,
      jwks_uri: CLIENT_FETCH.maxBytes,
    },
    responseTypes: ["code"],
    // `none` for public clients; client_secret_basic for agent clients only (checkAgentClientShape).
    clientAuthMethods: ["none", "client_secret_basic"],
    clientDefaults: {
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      // The one key is EC P-256: everything the server signs is ES256.
      id_token_signed_response_alg: deps.signingKey.alg,
    },
    enabledJWA: { idTokenSigningAlgValues: [deps.signingKey.alg] },
    allowOmittingSingleRegisteredRedirectUri: false,
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      introspection: { enabled: false },
      revocation: { enabled: true },
      // Not offered: the CSRF-free endpoint it needs is not worth its surface for public clients.
      pushedAuthorizationRequests: { enabled: false },
      // The gateway checks Bearer tokens; a DPoP-bound token would be refused there.
      dPoP: { enabled: false },
      // Agent clients only: a registered client asking for the grant is refused (agent-clients.ts).
      clientCredentials: { enabled: true },
      registration: { enabled: true, initialAccessToken: false, issueRegistrationAccessToken: false },
      clientIdMetadataDocument: {
        enabled: true,
        ack: "draft-02",
        // Refused before any lookup when the URL itself says it is not a public https address.
        allowFetch: (_ctx, clientId) => {
          try {
            checkOutgoingUrl(clientId, deps.allowPrivateFetch);
            return true;
          } catch {
            return false;
          }
        },
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          if (indicator !== resource) throw new errors.InvalidTarget(`the only resource is ${resource}`);
          return resourceServer;
        },
      },
    },
    // Every public client may be issued refresh tokens; each use rotates them (the default for
    // public clients, said here so it cannot change silently).
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed("refresh_token"),
    rotateRefreshToken: () => true,
    expiresWithSession: async () => false,
    ttl: {
      AccessToken: OAUTH_TTL_SECONDS.accessToken,
      AuthorizationCode: OAUTH_TTL_SECONDS.authorizationCode,
      RefreshToken: OAUTH_TTL_SECONDS.refreshToken,
      Grant: OAUTH_TTL_SECONDS.grant,
      Interaction: OAUTH_TTL_SECONDS.interaction,
      Session: OAUTH_TTL_SECONDS.session,
      IdToken: OAUTH_TTL_SECONDS.accessToken,
      ClientCredentials: OAUTH_TTL_SECONDS.accessToken,
    },
    extraClientMetadata: {
      // Listed so that the validator runs for every registration and metadata document.
      properties: ["software_id"],
      validator: (_ctx, key, _value, metadata) => {
        if (key !== "software_id") return;
        const client = metadata as Record<string, unknown>;
        if (checkAgentClientShape(client) === "public") checkRedirectUris(client);
      },
    },
    // The grant is always the one the consent page made for this authorization, bound to the key
    // the person picked there; an earlier grant of the same client is never reused silently.
    loadExistingGrant: async (ctx) => {
      const grantId = ctx.oidc.result?.consent?.grantId;
      return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
    },
    // Every token request (a code exchange, a refresh, a client credentials request) checks that the
    // connection and its key are still there: a token after either was revoked is refused, not
    // issued for /mcp to refuse. An agent client's connection is named by its client id.
    extraTokenClaims: async (_ctx, token) => {
      const { kind, clientId, grantId, scope } = token as {
        kind: string;
        clientId?: string;
        grantId?: string;
        scope?: string;
      };
      const agent = kind === "ClientCredentials";
      if (agent && !scope?.split(" ").includes(MCP_SCOPE))
        throw new errors.InvalidScope(`ask for scope=${MCP_SCOPE}`, MCP_SCOPE);
      const connectionId = agent ? clientId : grantId;
      const connection = connectionId ? await deps.connections.get(connectionId) : undefined;
      if (!connectionId || connection?.kind !== (agent ? "client_credentials" : "authorization"))
        throw new errors.InvalidGrant(
          agent ? "this agent client was revoked" : "this connection was revoked",
        );
      const active = await deps.keyIsActive(connection.accountId, connection.keyId);
      if (active === undefined) throw new Error("billing did not say whether the connection's key is active");
      if (!active) throw new errors.InvalidGrant("the key this connection spends was revoked");
      return { key_id: connection.keyId, grant_id: connectionId };
    },
    findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
    interactions: {
      url: async (_ctx, interaction) => `${CONSENT_PATH}/${interaction.uid}`,
      policy: portalPolicy(),
    },
    clientBasedCORS: (_ctx, origin, client) =>
      client.redirectUris?.some((uri) => URL.parse(uri)?.origin === origin) ?? false,
    renderError: async (ctx, out) => deps.renderError(ctx, { ...out }),
  });
  provider.proxy = deps.behindProxy;
  // Agent clients' secrets are stored as their SHA-256 (agent-clients.ts); oidc-provider has no
  // setting for that, so its one comparison is replaced. No other client has a secret.
  provider.Client.prototype.compareClientSecret = function compareClientSecret(presented: string) {
    return compareHashedSecret(this.clientSecret, presented);
  };
  return provider;
}

/**
 * The default prompts (login, consent), with login asked for on every authorization: the portal's
 * own session decides who is signing in, and the consent page is where the key is picked.
 */
function portalPolicy() {
  const { Check, base } = interactionPolicy;
  const policy = base();
  policy
    .get("login")
    ?.checks.push(
      new Check("portal_consent", "the person signs in and picks a key on every authorization", (ctx) =>
        ctx.oidc.result?.login ? Check.NO_NEED_TO_PROMPT : Check.REQUEST_PROMPT,
      ),
    );
  return policy;
}
