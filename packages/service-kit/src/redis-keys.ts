/**
 * Every Redis key, built in one place. One API key's ledger data shares the hash tag `{key id}`, so a
 * Lua script touching its balance, journal and debit markers stays in one Redis Cluster slot.
 * The namespace prefix isolates tests (and several stacks) sharing one Redis.
 */

export interface RedisKeys {
  /** Set of every key id, for listing and `ledger verify`. */
  readonly keyIds: string;
  /** String: key id of the API key whose secret hashes to `hash`. */
  keyIdByHash(hash: string): string;
  /** Hash: label, rate limit, revoked flag, creation time and balance of one key. */
  keyRecord(keyId: string): string;
  /** Stream: the key's journal, one entry per balance change. */
  journal(keyId: string): string;
  /** String: state of one request's debit (debited / refunded), for exactly-once refunds. */
  debitMarker(keyId: string, requestId: string): string;
  /** String: result of one top-up request (credits added, balance after), so a retried top-up adds once. */
  topUpMarker(keyId: string, requestId: string): string;
  /** Token bucket of one key's rate limit. */
  keyRateBucket(keyId: string): string;
  /** Token bucket of the shared upstream reserve. */
  readonly globalReserveBucket: string;
}

export function redisKeys(namespace = ""): RedisKeys {
  const root = namespace === "" ? "rda" : `${namespace}:rda`;
  return Object.freeze({
    keyIds: `${root}:keys`,
    keyIdByHash: (hash: string) => `${root}:keyhash:${hash}`,
    keyRecord: (keyId: string) => `${root}:key:{${keyId}}`,
    journal: (keyId: string) => `${root}:key:{${keyId}}:journal`,
    debitMarker: (keyId: string, requestId: string) => `${root}:key:{${keyId}}:debit:${requestId}`,
    topUpMarker: (keyId: string, requestId: string) => `${root}:key:{${keyId}}:topup:${requestId}`,
    keyRateBucket: (keyId: string) => `${root}:ratelimit:{${keyId}}`,
    globalReserveBucket: `${root}:ratelimit:global`,
  });
}
