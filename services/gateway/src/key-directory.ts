/**
 * Resolves an API key to its id and rate limit: sha256 → in-memory cache → `billing.keys.lookup` on a
 * miss. Spec §5 / issue 6: a revocation must take effect within one second on every gateway, so an
 * entry is dropped on billing's `key_revoked` event (fan-out, no queue group), on a `revoked` debit or
 * balance reply, and the whole cache on a NATS reconnect (events may have been missed while away).
 * Entries also expire after `ttlMs`, bounding staleness should an event still be missed.
 */
import { keyRevokedEventSchema, type Subjects } from "@rda/contracts";
import type { Logger, NatsConnection } from "@rda/service-kit";
import { hashApiKey } from "./api-key.ts";
import type { BillingClient } from "./billing-client.ts";
import { fail, type Step, succeed } from "./http/failure.ts";

export interface KeyInfo {
  readonly id: string;
  readonly rate_limit: { readonly qps: number; readonly burst: number };
}

interface CacheEntry {
  readonly key: KeyInfo;
  readonly hash: string;
  readonly expiresAt: number;
}

export interface KeyDirectory {
  resolve(apiKey: string): Promise<Step<KeyInfo>>;
  evict(keyId: string): void;
  stop(): Promise<void>;
}

export interface KeyDirectoryOptions {
  nats: NatsConnection;
  subjects: Subjects;
  billing: BillingClient;
  logger: Logger;
  ttlMs?: number;
  maxEntries?: number;
}

export function createKeyDirectory(options: KeyDirectoryOptions): KeyDirectory {
  const { billing, logger } = options;
  const ttlMs = options.ttlMs ?? 30_000;
  const maxEntries = options.maxEntries ?? 100_000;
  const byHash = new Map<string, CacheEntry>();
  const hashById = new Map<string, string>();

  const evict = (keyId: string) => {
    const hash = hashById.get(keyId);
    hashById.delete(keyId);
    if (hash !== undefined) byHash.delete(hash);
  };
  const remember = (hash: string, key: KeyInfo) => {
    // Oldest-first eviction keeps memory bounded even under a flood of distinct valid keys.
    if (byHash.size >= maxEntries) evict(byHash.values().next().value?.key.id ?? "");
    byHash.set(hash, { key, hash, expiresAt: Date.now() + ttlMs });
    hashById.set(key.id, hash);
  };
  const stopEvents = watchRevocations(options, evict, () => {
    byHash.clear();
    hashById.clear();
  });

  return {
    evict,
    stop: stopEvents,
    async resolve(apiKey) {
      const hash = hashApiKey(apiKey);
      const cached = byHash.get(hash);
      if (cached && cached.expiresAt > Date.now()) return succeed(cached.key);
      const reply = await billing.lookup(hash);
      if (!reply.ok) return fail("service_unavailable", { retryAfterSeconds: 1 });
      const value = reply.value;
      if ("outcome" in value) {
        logger.warn({ billing: value.message }, "billing could not look up a key");
        return fail("service_unavailable", { retryAfterSeconds: 1 });
      }
      if (!value.found || value.key.revoked) return fail("invalid_api_key");
      const key = { id: value.key.id, rate_limit: value.key.rate_limit };
      remember(hash, key);
      return succeed(key);
    },
  };
}

function watchRevocations(
  options: KeyDirectoryOptions,
  evict: (keyId: string) => void,
  clear: () => void,
): () => Promise<void> {
  const { nats, subjects, logger } = options;
  const subscription = nats.subscribe(subjects.billing.keyRevoked, {
    callback: (error, message) => {
      if (error) return;
      try {
        evict(keyRevokedEventSchema.parse(message.json()).key_id);
      } catch {
        logger.warn("ignored a malformed key_revoked event");
      }
    },
  });
  let watching = true;
  void (async () => {
    for await (const status of nats.status()) {
      if (!watching) break;
      if (status.type === "reconnect") clear();
    }
  })();
  return async () => {
    watching = false;
    subscription.unsubscribe();
  };
}
