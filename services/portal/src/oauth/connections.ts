/**
 * Connections: which OAuth client an account allowed to spend which of its keys. Two kinds:
 *
 * - `authorization`: one per grant, made on the consent page (authorization code with PKCE); the
 *   "Connected apps" page lists them. Kept as long as the grant.
 * - `client_credentials`: an agent client the account holder created on the "Agent clients" page,
 *   for an agent that runs without a person. Named by the client's id (which stands in for the grant
 *   id in its access tokens), and kept until it is revoked.
 *
 * Either way the access tokens carry the key id and the connection's id (`grant_id`), and ending the
 * connection ends them the same way (portal-oauth.ts, `disconnect`).
 */
import type { PortalRedisKeys, Redis } from "@rda/service-kit";
import { z } from "zod";

const connectionRecordSchema = z.object({
  account_id: z.string(),
  client_id: z.string(),
  client_name: z.string(),
  redirect_host: z.string(),
  key_id: z.string(),
  created_at: z.string(),
  kind: z.enum(["authorization", "client_credentials"]),
});

export type ConnectionKind = "authorization" | "client_credentials";

export interface Connection {
  readonly grantId: string;
  readonly accountId: string;
  readonly clientId: string;
  /** As the client named itself at registration (shown to the person as the client's claim). */
  readonly clientName: string;
  /** Where the client receives the authorization: the host a person can judge it by. */
  readonly redirectHost: string;
  readonly keyId: string;
  readonly createdAt: string;
  readonly kind: ConnectionKind;
}

export interface ConnectionStore {
  /** Kept `ttlSeconds`, or until removed when undefined (an agent client). */
  save(connection: Connection, ttlSeconds: number | undefined): Promise<void>;
  get(grantId: string): Promise<Connection | undefined>;
  /** The account's live connections, newest first. */
  list(accountId: string): Promise<Connection[]>;
  /** Forgets the connection if it is the account's; false when it is not (or is gone). */
  remove(accountId: string, grantId: string): Promise<boolean>;
}

export function createConnectionStore(redis: Redis, keys: PortalRedisKeys): ConnectionStore {
  const get = async (grantId: string): Promise<Connection | undefined> => {
    const record = connectionRecordSchema.safeParse(await redis.hgetall(keys.oauthConnection(grantId))).data;
    if (!record) return undefined;
    return {
      grantId,
      accountId: record.account_id,
      clientId: record.client_id,
      clientName: record.client_name,
      redirectHost: record.redirect_host,
      keyId: record.key_id,
      createdAt: record.created_at,
      kind: record.kind,
    };
  };
  return {
    get,
    async save(connection, ttlSeconds) {
      const key = keys.oauthConnection(connection.grantId);
      await redis.hset(key, {
        account_id: connection.accountId,
        client_id: connection.clientId,
        client_name: connection.clientName,
        redirect_host: connection.redirectHost,
        key_id: connection.keyId,
        created_at: connection.createdAt,
        kind: connection.kind,
      });
      const list = keys.accountConnections(connection.accountId);
      await redis.sadd(list, connection.grantId);
      if (ttlSeconds === undefined) {
        await redis.persist(list);
        return;
      }
      await redis.expire(key, ttlSeconds);
      // The list outlives its longest-lived member; one kept until removed keeps it for good.
      const left = await redis.ttl(list);
      if (left !== -1 && left < ttlSeconds) await redis.expire(list, ttlSeconds);
    },
    async list(accountId) {
      const list = keys.accountConnections(accountId);
      const grantIds = await redis.smembers(list);
      const found = await Promise.all(grantIds.map(get));
      const gone = grantIds.filter((_id, index) => !found[index]);
      if (gone.length > 0) await redis.srem(list, ...gone);
      return found
        .filter((connection): connection is Connection => connection?.accountId === accountId)
        .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
    },
    async remove(accountId, grantId) {
      const connection = await get(grantId);
      if (!connection || connection.accountId !== accountId) return false;
      await redis.unlink(keys.oauthConnection(grantId));
      await redis.srem(keys.accountConnections(accountId), grantId);
      return true;
    },
  };
}
