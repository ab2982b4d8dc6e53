/**
 * Sessions: the cookie carries a random id; Redis keeps only its SHA-256, with the account it
 * belongs to, until it expires. Each account lists its sessions' hashes so that "log out
 * everywhere" can end every one of them.
 */
import { z } from "zod";
import type { StoreContext } from "./context.ts";
import { newSecretToken, SECRET_TOKEN_PATTERN, sha256 } from "./secrets.ts";

const sessionRecordSchema = z.object({
  account_id: z.string(),
  email: z.string(),
  expires_at: z.number(),
});

export interface Session {
  readonly accountId: string;
  readonly email: string;
}

export interface SessionStore {
  /** A new session; the returned id goes into the cookie and nowhere else. */
  start(session: Session): Promise<string>;
  resolve(sessionId: string): Promise<Session | undefined>;
  end(sessionId: string): Promise<void>;
  /** Ends every session of the account, the caller's included; returns how many there were. */
  endAll(accountId: string): Promise<number>;
}

export function createSessionStore(context: StoreContext, ttlMs: number): SessionStore {
  const { redis, keys, now } = context;
  return {
    async start(session) {
      const id = newSecretToken();
      const hash = sha256(id);
      const record = { account_id: session.accountId, email: session.email, expires_at: now() + ttlMs };
      await redis.set(keys.session(hash), JSON.stringify(record), "PX", ttlMs);
      await redis.sadd(keys.accountSessions(session.accountId), hash);
      // The list lives as long as its newest session; ended or expired members are harmless.
      await redis.pexpire(keys.accountSessions(session.accountId), ttlMs);
      return id;
    },
    async resolve(sessionId) {
      if (!SECRET_TOKEN_PATTERN.test(sessionId)) return undefined;
      const stored = await redis.get(keys.session(sha256(sessionId)));
      if (stored === null) return undefined;
      const record = sessionRecordSchema.safeParse(JSON.parse(stored)).data;
      if (!record || record.expires_at <= now()) return undefined;
      return { accountId: record.account_id, email: record.email };
    },
    async end(sessionId) {
      if (!SECRET_TOKEN_PATTERN.test(sessionId)) return;
      const hash = sha256(sessionId);
      const stored = await redis.getdel(keys.session(hash));
      const record = stored === null ? undefined : sessionRecordSchema.safeParse(JSON.parse(stored)).data;
      if (record) await redis.srem(keys.accountSessions(record.account_id), hash);
    },
    async endAll(accountId) {
      const hashes = await redis.smembers(keys.accountSessions(accountId));
      // One key per command: sessions live in different Redis Cluster slots.
      const ended = await Promise.all(hashes.map((hash) => redis.unlink(keys.session(hash))));
      await redis.unlink(keys.accountSessions(accountId));
      return ended.reduce((sum, count) => sum + count, 0);
    },
  };
}
