/**
 * A new secret between the form that made it (create, rotate) and the page that shows it: a key's
 * (named by the key's id), a monitor webhook's signing secret (named by the monitor's id), or the
 * account's notice webhook's (named `notice-webhook`).
 * The form's POST answers with a redirect, and the page it leads to takes the secret out of here:
 * a browser refresh of that page finds nothing (the secret is shown once), and never sends the form
 * again.
 *
 * Redis holds the secret for a few minutes at most, encrypted (AES-256-GCM) with a key derived from
 * the raw session id, which only the browser's cookie carries (Redis keeps its hash only): a copy of
 * Redis reveals no secret. The record's name is a hash of the session id and the key id, so only the
 * session that made the secret can find it.
 */
import { keyFromCallerSecrets, openBytes, sealBytes, sealedFromText, sealedText } from "@rda/service-kit";
import { z } from "zod";
import type { StoreContext } from "./context.ts";
import { sha256 } from "./secrets.ts";

/** Long enough for a slow redirect; a secret nobody came to see is gone soon after. */
const PENDING_TTL_SECONDS = 300;

const pendingSchema = z.object({
  secret: z.string(),
  /** A new key's first secret, or the new secret of a rotated key. */
  made: z.enum(["created", "rotated"]),
  /** A rotated webhook secret: until when (epoch seconds) the previous one still signs. */
  previous_expires_at: z.number().int().optional(),
});

export type PendingSecret = z.infer<typeof pendingSchema>;

export interface PendingSecrets {
  /** `ownerId`: the key's id, the monitor's (`mon_…`) for its webhook's secret, or `notice-webhook`. */
  keep(sessionId: string, ownerId: string, pending: PendingSecret): Promise<void>;
  /** The secret, once: a second call, another session, or one after the TTL finds nothing. */
  take(sessionId: string, ownerId: string): Promise<PendingSecret | undefined>;
}

function encryptionKey(sessionId: string): Buffer {
  return keyFromCallerSecrets("pending-secret", sessionId);
}

function recordName(sessionId: string, ownerId: string): string {
  return sha256(`${sessionId}\0${ownerId}`);
}

export function createPendingSecrets(context: StoreContext): PendingSecrets {
  const { redis, keys } = context;
  return {
    async keep(sessionId, ownerId, pending) {
      const stored = sealedText(sealBytes(encryptionKey(sessionId), JSON.stringify(pending)));
      await redis.set(keys.pendingSecret(recordName(sessionId, ownerId)), stored, "EX", PENDING_TTL_SECONDS);
    },
    async take(sessionId, ownerId) {
      const stored = await redis.getdel(keys.pendingSecret(recordName(sessionId, ownerId)));
      const sealed = stored === null ? undefined : sealedFromText(stored);
      const plain = sealed && openBytes(encryptionKey(sessionId), sealed);
      if (plain === undefined) return undefined;
      try {
        return pendingSchema.safeParse(JSON.parse(plain.toString("utf8"))).data;
      } catch {
        return undefined;
      }
    },
  };
}
