/**
 * Resolves an API key to its id and rate limit: sha256 → in-memory cache → `billing.keys.lookup` on a
 * miss. A revocation or a rotation must take effect within one second on every gateway
 * (docs/api.md#authentication), so an entry is dropped on billing's `key_changed` event (fan-out, no
 * queue group), on a `revoked` or `unknown_key` debit or balance reply, and the whole cache on a NATS
 * reconnect (events may have been missed while away). Entries also expire after `ttlMs`, bounding
 * staleness should an event still be missed; billing itself refuses a rotated key's old secret.
 *
 * A key billing does not know (or knows revoked) is remembered too, for `negativeTtlMs` (5 s), so the
 * same bad key sent again and again costs billing one lookup per 5 s, not one per request. A new key
 * is never held up by it: its secret is random, so nobody could have sent it before it existed; and
 * even so it would be served at most 5 s later (docs/api.md#authentication).
 */
import { decodeJson, keyChangedEventSchema, type Subjects } from "@rda/contracts";
import { hashApiKey, type Logger, type NatsConnection } from "@rda/service-kit";
import type { BillingClient } from "./admission.ts";
import { fail, type Step, succeed } from "./context.ts";

export interface KeyInfo {
  readonly id: string;
  /**
   * The hash of the secret presented, which billing checks against the key's current one; absent for
   * a caller bound to the key id (an OAuth grant, the MCP service's internal credential).
   */
  readonly hash?: string;
  readonly rate_limit: { readonly qps: number; readonly burst: number };
  /** The portal account owning the key; null for an operator's key. */
  readonly account_id: string | null;
}

interface CacheEntry {
  readonly key: KeyInfo;
  readonly hash: string;
  readonly expiresAt: number;
}

export interface KeyDirectory {
  resolve(apiKey: string): Promise<Step<KeyInfo>>;
  /**
   * Whether this key was found valid here and not revoked since, even if its entry has expired: a
   * key that needs no benefit of the doubt (http/authenticate.ts).
   */
  knownValid(apiKey: string): boolean;
  /** A key by its id, for callers bound to it rather than holding its secret (OAuth). */
  resolveById(keyId: string): Promise<Step<KeyInfo>>;
  evict(keyId: string): void;
  stop(): Promise<void>;
}

/** How long a valid key's lookup is cached when no revocation event arrives. */
export const KEY_CACHE_TTL_MS = 30_000;

export interface KeyDirectoryOptions {
  nats: NatsConnection;
  subjects: Subjects;
  billing: BillingClient;
  logger: Logger;
  ttlMs?: number;
  /** How long a key billing refused is refused without asking again; default 5 s. */
  negativeTtlMs?: number;
  maxEntries?: number;
  /**
   * Told how each resolution was answered, for the metrics: from the cache of valid keys (hit), from
   * the cache of refused keys (refused_hit), or by billing (miss).
   */
  onLookup?: (result: "hit" | "refused_hit" | "miss") => void;
}

export function createKeyDirectory(options: KeyDirectoryOptions): KeyDirectory {
  const { billing, logger } = options;
  const ttlMs = options.ttlMs ?? KEY_CACHE_TTL_MS;
  const negativeTtlMs = options.negativeTtlMs ?? 5_000;
  const maxEntries = options.maxEntries ?? 100_000;
  const byHash = new Map<string, CacheEntry>();
  const hashById = new Map<string, string>();
  /** Hashes billing refused, with when that answer stops counting. */
  const refused = new Map<string, number>();
  const byId = new Map<string, CacheEntry>();

  const evict = (keyId: string) => {
    byId.delete(keyId);
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
  const rememberRefused = (hash: string) => {
    if (refused.size >= maxEntries) refused.delete(refused.keys().next().value ?? "");
    refused.set(hash, Date.now() + negativeTtlMs);
  };
  const stopEvents = watchRevocations(options, evict, () => {
    byHash.clear();
    hashById.clear();
    byId.clear();
  });

  return {
    evict,
    stop: stopEvents,
    knownValid: (apiKey) => byHash.has(hashApiKey(apiKey)),
    async resolve(apiKey) {
      const hash = hashApiKey(apiKey);
      const cached = byHash.get(hash);
      if (cached && cached.expiresAt > Date.now()) {
        options.onLookup?.("hit");
        return succeed(cached.key);
      }
      if ((refused.get(hash) ?? 0) > Date.now()) {
        options.onLookup?.("refused_hit");
        return fail("invalid_api_key");
      }
      options.onLookup?.("miss");
      const reply = await billing.lookup({ key_hash: hash });
      if (!reply.ok) {
        logger.warn({ billing: reply.error.message }, "billing could not look up a key");
        return fail("service_unavailable", { retryAfterSeconds: 1 });
      }
      const value = reply.value;
      if (!value.found || value.key.revoked) {
        if (cached) evict(cached.key.id);
        rememberRefused(hash);
        return fail("invalid_api_key");
      }
      refused.delete(hash);
      const key = {
        id: value.key.id,
        hash,
        rate_limit: value.key.rate_limit,
        account_id: value.key.account_id,
      };
      remember(hash, key);
      return succeed(key);
    },
    async resolveById(keyId) {
      const cached = byId.get(keyId);
      if (cached && cached.expiresAt > Date.now()) return succeed(cached.key);
      const reply = await billing.lookup({ key_id: keyId });
      if (!reply.ok) {
        logger.warn({ billing: reply.error.message }, "billing could not look up a key");
        return fail("service_unavailable", { retryAfterSeconds: 1 });
      }
      const value = reply.value;
      if (!value.found || value.key.revoked) {
        return fail("invalid_token", { detail: "the API key this app may spend was revoked" });
      }
      const key = { id: value.key.id, rate_limit: value.key.rate_limit, account_id: value.key.account_id };
      if (byId.size >= maxEntries) byId.delete(byId.keys().next().value ?? "");
      byId.set(keyId, { key, hash: "", expiresAt: Date.now() + ttlMs });
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
  const subscription = nats.subscribe(subjects.billing.keyChanged, {
    callback: (error, message) => {
      if (error) return;
      const event = decodeJson(message.data, keyChangedEventSchema);
      if (event.ok) evict(event.value.key_id);
      else logger.warn({ problem: event.error }, "ignored a malformed key_changed event");
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
