/**
 * Where the authorization server (oidc-provider) keeps its records: Redis, shared by every portal
 * replica. An artefact's id is its secret for codes and refresh tokens (the value the client
 * holds), so records are named by the SHA-256 of the id and the id itself is never written: it is
 * put back into the record from the caller's own copy when the record is found by it. Access tokens
 * are signed JWTs and never reach this store.
 *
 * A grant remembers which codes and refresh tokens it issued, so revoking it (the person ended the
 * connection, or a code was replayed) ends every one of them.
 */
import type { PortalRedisKeys, Redis } from "@rda/service-kit";
import { sha256 } from "../store/secrets.ts";

/** What oidc-provider stores: a JSON object per record (its `Adapter` interface). */
type Payload = Record<string, unknown> & { grantId?: string; uid?: string; jti?: string };

/** How long a client that got a connection is kept, from its latest: longer than any refresh token. */
export const CLIENT_TTL_SECONDS = 90 * 24 * 3_600;
/** How long a registration nobody connected is kept. */
export const UNUSED_CLIENT_TTL_SECONDS = 3 * 24 * 3_600;

/** Models whose records belong to a grant, and die with it. */
const GRANT_MEMBERS = new Set(["AuthorizationCode", "RefreshToken", "AccessToken"]);

export interface OAuthAdapter {
  upsert(id: string, payload: Payload, expiresIn: number | undefined): Promise<void>;
  find(id: string): Promise<Payload | undefined>;
  findByUid(uid: string): Promise<Payload | undefined>;
  findByUserCode(userCode: string): Promise<Payload | undefined>;
  consume(id: string): Promise<void>;
  destroy(id: string): Promise<void>;
  revokeByGrantId(grantId: string): Promise<void>;
}

/** One adapter per model, as oidc-provider asks for them (`adapter: (name) => …`). */
export function redisAdapterFactory(redis: Redis, keys: PortalRedisKeys) {
  return (model: string): OAuthAdapter => createModelAdapter(redis, keys, model);
}

/** Ends every code and refresh token of a grant, and the grant itself. */
export async function revokeGrantRecords(redis: Redis, keys: PortalRedisKeys, grantId: string) {
  const index = keys.oauthGrantTokens(grantId);
  const members = await redis.smembers(index);
  // One key per command: the records live in different Redis Cluster slots.
  await Promise.all(
    members.map((member) => {
      const [model = "", hash = ""] = member.split(":");
      return redis.unlink(keys.oauthRecord(model, hash));
    }),
  );
  await redis.unlink(index);
  await redis.unlink(keys.oauthRecord("Grant", sha256(grantId)));
}

/**
 * A client the portal itself made (an agent client, agent-clients.ts), kept until it is revoked:
 * not a registration, so neither TTL above applies.
 */
export async function saveClientRecord(
  redis: Redis,
  keys: PortalRedisKeys,
  clientId: string,
  metadata: Record<string, unknown>,
): Promise<void> {
  await redis.set(keys.oauthRecord("Client", sha256(clientId)), JSON.stringify(metadata));
}

export async function deleteClientRecord(redis: Redis, keys: PortalRedisKeys, clientId: string) {
  await redis.unlink(keys.oauthRecord("Client", sha256(clientId)));
}

function createModelAdapter(redis: Redis, keys: PortalRedisKeys, model: string): OAuthAdapter {
  const recordKey = (id: string) => keys.oauthRecord(model, sha256(id));
  const read = async (key: string): Promise<Payload | undefined> => {
    const stored = await redis.get(key);
    return stored === null ? undefined : (JSON.parse(stored) as Payload);
  };
  return {
    async upsert(id, payload, expiresIn) {
      const hash = sha256(id);
      const record = JSON.stringify(withoutSecrets(payload));
      // oidc-provider gives a registered client no expiry; it is kept for UNUSED_CLIENT_TTL_SECONDS,
      // and for CLIENT_TTL_SECONDS from each connection made with it (portal-oauth.ts, keepClient). A
      // client that is gone registers again: hosted clients do so on `invalid_client`.
      const ttl = expiresIn !== undefined && expiresIn > 0 ? Math.ceil(expiresIn) : UNUSED_CLIENT_TTL_SECONDS;
      await redis.set(keys.oauthRecord(model, hash), record, "EX", ttl);
      if (model === "Session" && typeof payload.uid === "string") {
        await redis.set(keys.oauthSessionByUid(sha256(payload.uid)), hash, "EX", ttl);
      }
      if (GRANT_MEMBERS.has(model) && typeof payload.grantId === "string") {
        const index = keys.oauthGrantTokens(payload.grantId);
        await redis.sadd(index, `${model}:${hash}`);
        // The index lives as long as its longest-lived member; members that expired are harmless.
        const left = await redis.ttl(index);
        if (left < ttl) await redis.expire(index, ttl);
      }
    },
    async find(id) {
      const payload = await read(recordKey(id));
      // A client's metadata is not a model with an id of its own (its client_id is in it).
      return payload && (model === "Client" ? payload : { ...payload, jti: id });
    },
    // Only read by oidc-provider (is the interaction's session still the same person's?), never
    // saved back, so the session id it lacks here is not missed.
    async findByUid(uid) {
      const hash = await redis.get(keys.oauthSessionByUid(sha256(uid)));
      return hash === null ? undefined : read(keys.oauthRecord(model, hash));
    },
    // The device flow is off: there are no user codes.
    findByUserCode: async () => undefined,
    async consume(id) {
      const key = recordKey(id);
      const payload = await read(key);
      if (!payload) return;
      payload.consumed = Math.floor(Date.now() / 1000);
      await redis.set(key, JSON.stringify(payload), "KEEPTTL");
    },
    async destroy(id) {
      await redis.unlink(recordKey(id));
    },
    revokeByGrantId: (grantId) => revokeGrantRecords(redis, keys, grantId),
  };
}

/**
 * The record as stored: without its id (the key names its hash), and an interaction without the
 * browser session's cookie value oidc-provider copies into it (nothing reads it back).
 */
function withoutSecrets(payload: Payload): Payload {
  const { jti: _id, ...rest } = payload;
  const session = rest.session as Record<string, unknown> | undefined;
  if (session && typeof session === "object" && "cookie" in session) {
    const { cookie: _cookie, ...kept } = session;
    rest.session = kept;
  }
  return rest;
}
