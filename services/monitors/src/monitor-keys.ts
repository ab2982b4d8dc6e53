/**
 * The monitors service's Redis keys, its own family `…:monitors:…` (the service's ACL user holds
 * exactly this pattern: deploy/redis/users.acl). One monitor's keys share the hash tag `{id}`, so
 * the append script touching its items and its delivered ids stays in one Redis Cluster slot.
 */
export interface MonitorKeys {
  /** String: a monitor's record (JSON). */
  monitor(id: string): string;
  /** Stream: a monitor's matched items in delivery order; the pull cursor is an entry id. */
  items(id: string): string;
  /**
   * Sorted set: ids of the items appended to a monitor, scored by `created_utc` and trimmed to the
   * newest (monitor-store.ts), so an item is delivered once.
   */
  delivered(id: string): string;
  /** Hash: how far pulls have read a monitor's items (`through`, an entry id) and how many (`items`). */
  pulled(id: string): string;
  /** Set: the monitor ids of one API key. */
  ownedBy(keyId: string): string;
  /** Set: the monitor ids of one portal account (all its keys), which its limit counts. */
  ownedByAccount(accountId: string): string;
  /** Set: the monitor ids watching one source. */
  watching(sourceKey: string): string;
  /** Set: every source some monitor watches. */
  readonly sources: string;
  /** Hash: a source's poll state (`hwm`, `next_poll_at`, `swept_at`; source-leases.ts). */
  poll(sourceKey: string): string;
  /** String: the lease of the replica polling a source (service-kit's lease), beside its state. */
  pollLease(sourceKey: string): string;
  /**
   * String: what a create with this request token made (JSON: the monitor's id, the backfill's
   * estimate, the webhook's secret sealed), for the replay window.
   */
  requested(keyId: string, token: string): string;
}

export function monitorKeys(namespace = ""): MonitorKeys {
  const root = `${namespace === "" ? "rda" : `${namespace}:rda`}:monitors`;
  return Object.freeze({
    monitor: (id: string) => `${root}:monitor:{${id}}`,
    items: (id: string) => `${root}:monitor:{${id}}:items`,
    // `delivered-ids`: a sorted set; the plain set once kept at `delivered` grew without bound.
    delivered: (id: string) => `${root}:monitor:{${id}}:delivered-ids`,
    pulled: (id: string) => `${root}:monitor:{${id}}:pulled`,
    ownedBy: (keyId: string) => `${root}:owner:${keyId}`,
    ownedByAccount: (accountId: string) => `${root}:account:${accountId}`,
    watching: (sourceKey: string) => `${root}:source:${sourceKey}`,
    sources: `${root}:sources`,
    // One hash tag per source: the script writing the state under the lease touches both.
    poll: (sourceKey: string) => `${root}:poll:{${sourceKey}}`,
    pollLease: (sourceKey: string) => `${root}:poll:{${sourceKey}}:lease`,
    requested: (keyId: string, token: string) => `${root}:requested:${keyId}:${token}`,
  });
}
