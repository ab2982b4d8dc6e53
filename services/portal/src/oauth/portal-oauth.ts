/**
 * The authorization server as the portal's routes see it: the provider, the one resource, the
 * connections, and ending a connection (its grant's records deleted, and every gateway told to
 * refuse the grant's access tokens before they expire).
 */
import type { Subjects } from "@rda/contracts";
import type { Logger, NatsConnection, PortalRedisKeys, Redis } from "@rda/service-kit";
import type Provider from "oidc-provider";
import type { KoaContextWithOIDC } from "oidc-provider";
import { type ConnectionStore, createConnectionStore } from "./connections.ts";
import { createOAuthProvider, OAUTH_TTL_SECONDS } from "./provider.ts";
import { revokeGrantRecords } from "./redis-adapter.ts";
import { generateSigningKey, type SigningKey } from "./signing-key.ts";

export interface PortalOAuth {
  readonly provider: Provider;
  /** `<PUBLIC_API_URL>/mcp`. */
  readonly resource: string;
  readonly connections: ConnectionStore;
  /** Ends a connection of the account; false when it is not the account's. */
  disconnect(accountId: string, grantId: string): Promise<boolean>;
}

export interface PortalOAuthDeps {
  readonly redis: Redis;
  readonly nats: NatsConnection;
  readonly subjects: Subjects;
  readonly keys: PortalRedisKeys;
  readonly logger: Logger;
  readonly issuer: string;
  readonly apiUrl: string;
  readonly signingKey?: SigningKey;
  readonly behindProxy: boolean;
  readonly renderError: (ctx: KoaContextWithOIDC, out: Record<string, string>) => void;
}

export function createPortalOAuth(deps: PortalOAuthDeps): PortalOAuth {
  const { redis, keys, logger } = deps;
  const resource = `${deps.apiUrl}/mcp`;
  const connections = createConnectionStore(redis, keys);
  const provider = createOAuthProvider({
    redis,
    keys,
    issuer: deps.issuer,
    resource,
    signingKey: deps.signingKey ?? generateSigningKey(),
    connections,
    behindProxy: deps.behindProxy,
    renderError: deps.renderError,
  });
  // The provider's own failures, for the log: never a token (oidc-provider's errors carry none).
  provider.on("server_error", (_ctx, error) => logger.error({ err: error }, "OAuth server error"));
  return {
    provider,
    resource,
    connections,
    async disconnect(accountId, grantId) {
      if (!(await connections.remove(accountId, grantId))) return false;
      await revokeGrantRecords(redis, keys, grantId);
      const expiresAt = Math.ceil(Date.now() / 1000) + OAUTH_TTL_SECONDS.accessToken;
      deps.nats.publish(
        deps.subjects.portal.grantRevoked,
        JSON.stringify({ grant_id: grantId, expires_at: expiresAt }),
      );
      logger.info({ account_id: accountId, grant_id: grantId }, "OAuth connection ended");
      return true;
    },
  };
}
