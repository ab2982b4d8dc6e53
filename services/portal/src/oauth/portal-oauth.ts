/**
 * The authorization server as the portal's routes see it: the provider, the one resource, the
 * connections, and ending a connection (its grant's records deleted, and every gateway told to
 * refuse the grant's access tokens before they expire). A connection ends the same way whether the
 * person disconnects it or the provider revokes its grant (a replayed code, a reused or revoked
 * refresh token).
 */
import type { Subjects } from "@rda/contracts";
import type { Logger, NatsConnection, PortalRedisKeys, Redis } from "@rda/service-kit";
import type Provider from "oidc-provider";
import type { KoaContextWithOIDC } from "oidc-provider";
import { clientBucket, takePlace } from "../store/mail-limits.ts";
import { sha256 } from "../store/secrets.ts";
import { type NewAgentClient, registerAgentClient } from "./agent-clients.ts";
import { type ConnectionStore, createConnectionStore } from "./connections.ts";
import { createOAuthProvider, MCP_SCOPE, OAUTH_TTL_SECONDS } from "./provider.ts";
import { CLIENT_TTL_SECONDS, deleteClientRecord, revokeGrantRecords } from "./redis-adapter.ts";
import { generateSigningKey, type SigningKey } from "./signing-key.ts";

export interface PortalOAuth {
  readonly provider: Provider;
  /** `<PUBLIC_API_URL>/mcp`. */
  readonly resource: string;
  readonly connections: ConnectionStore;
  /**
   * Ends a connection of the account (an authorization's grant, or an agent client by its id): its
   * tokens are refused by every gateway at once, and no more are issued. False when it is not the
   * account's.
   */
  disconnect(accountId: string, grantId: string): Promise<boolean>;
  /** A new agent client bound to the account's key (active: the caller checked); its secret, once. */
  createAgentClient(accountId: string, keyId: string, name: string): Promise<NewAgentClient>;
  /** A client got a connection: keep its registration as long as a used one is kept. */
  keepClient(clientId: string): Promise<void>;
  /** Takes a registration place for the client address: 0, or the seconds until one is free. */
  admitRegistration(clientIp: string): Promise<number>;
}

/** Dynamic registrations one client address may make per hour, by default. */
export const REGISTRATIONS_PER_CLIENT_PER_HOUR = 20;

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
  readonly keyIsActive: (accountId: string, keyId: string) => Promise<boolean | undefined>;
  /** Dynamic registrations per client address per hour; default REGISTRATIONS_PER_CLIENT_PER_HOUR. */
  readonly registrationsPerClientPerHour?: number;
  /** Development and tests only: client URLs on private addresses are fetched. */
  readonly allowPrivateFetch?: boolean;
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
    keyIsActive: deps.keyIsActive,
    allowPrivateFetch: deps.allowPrivateFetch,
  });
  // The provider's own failures, for the log: never a token (oidc-provider's errors carry none).
  provider.on("server_error", (_ctx, error) => logger.error({ err: error }, "OAuth server error"));

  /** Forgets the grant's records and tells every gateway to refuse its access tokens now. */
  const endGrant = async (grantId: string, accountId: string | undefined, why: string) => {
    await revokeGrantRecords(redis, keys, grantId);
    const expiresAt = Math.ceil(Date.now() / 1000) + OAUTH_TTL_SECONDS.accessToken;
    deps.nats.publish(
      deps.subjects.portal.grantRevoked,
      JSON.stringify({ grant_id: grantId, expires_at: expiresAt }),
    );
    logger.info({ account_id: accountId, grant_id: grantId, why }, "OAuth connection ended");
  };
  // The provider revoked a grant itself: a replayed code, a reused refresh token, or the client
  // revoked its refresh token. Its access tokens must stop now, not when they expire.
  provider.on("grant.revoked", (_ctx, grantId: string) => {
    void (async () => {
      const connection = await connections.get(grantId);
      if (connection) await connections.remove(connection.accountId, grantId);
      await endGrant(grantId, connection?.accountId, "grant revoked by the authorization server");
    })().catch((error: unknown) => logger.error({ err: error, grant_id: grantId }, "ending a grant failed"));
  });
  const registrationsPerHour = deps.registrationsPerClientPerHour ?? REGISTRATIONS_PER_CLIENT_PER_HOUR;
  return {
    provider,
    resource,
    connections,
    async disconnect(accountId, grantId) {
      const connection = await connections.get(grantId);
      if (!(await connections.remove(accountId, grantId))) return false;
      if (connection?.kind === "client_credentials") {
        await deleteClientRecord(redis, keys, connection.clientId);
        await endGrant(grantId, accountId, "agent client revoked");
      } else {
        await endGrant(grantId, accountId, "disconnected");
      }
      return true;
    },
    async createAgentClient(accountId, keyId, name) {
      const created = await registerAgentClient(redis, keys, name, MCP_SCOPE);
      await connections.save(
        {
          grantId: created.clientId,
          accountId,
          clientId: created.clientId,
          clientName: name,
          redirectHost: "",
          keyId,
          createdAt: new Date().toISOString(),
          kind: "client_credentials",
        },
        undefined,
      );
      logger.info(
        { account_id: accountId, key_id: keyId, client_id: created.clientId },
        "agent client created",
      );
      return created;
    },
    async keepClient(clientId) {
      await redis.expire(keys.oauthRecord("Client", sha256(clientId)), CLIENT_TTL_SECONDS);
    },
    admitRegistration: (clientIp) =>
      takePlace(redis, keys.registrationsFromClient(clientBucket(clientIp)), registrationsPerHour, 3_600),
  };
}
