/**
 * Every Redis key, built in one place. One API key's ledger data shares the hash tag `{key id}`, so a
 * Lua script touching its balance, journal and debit markers stays in one Redis Cluster slot.
 * The namespace prefix isolates tests (and several stacks) sharing one Redis.
 *
 * The developer portal's own data (accounts, login links, sessions, mail counters, its OAuth
 * authorization server's records) lives under
 * `…:portal:…`, apart from the ledger, which only billing writes. Secrets (login tokens, session ids)
 * appear in key names only as their SHA-256, and email addresses only as theirs.
 */
import { sha256Hex } from "./api-keys.ts";

export interface RedisKeys {
  /** Set of every key id, for listing and `ledger verify`. */
  readonly keyIds: string;
  /** String: key id of the API key whose secret hashes to `hash`. */
  keyIdByHash(hash: string): string;
  /** Hash: label, rate limit, revoked flag, creation time and balance of one key. */
  keyRecord(keyId: string): string;
  /** Stream: the key's journal, one entry per balance change. */
  journal(keyId: string): string;
  /**
   * String: one request's debit record (pending, then settled, refunded or voided), for exactly-once
   * settlement and refunds; its one reader and writer are billing's DEBIT_RECORD (lua-helpers.ts).
   */
  debitMarker(keyId: string, requestId: string): string;
  /** String: result of one top-up request (credits added, balance after), so a retried top-up adds once. */
  topUpMarker(keyId: string, requestId: string): string;
  /**
   * Hash: one UTC day (YYYY-MM-DD) of the key's usage, written in the same script as the balance
   * change it counts: `charged:<operation>`, `refunded:<operation>`, `credits_bought`,
   * `credits_granted`, `paid_cents`.
   */
  usageDay(keyId: string, day: string): string;
  /**
   * Hash: one card payment credited to the key (amount, credits, refunded and disputed cents,
   * credits taken back, session, receipt), the guard that applies each payment and reversal once.
   * Kept forever, like the journal: a refund can come months later.
   */
  payment(keyId: string, paymentId: string): string;
  /** Sorted set: the key's payment ids, scored by the epoch ms they were first seen. */
  keyPayments(keyId: string): string;
  /**
   * Hash: the key's spend per calendar month (UTC), field `YYYY-MM` → credits debited and not
   * refunded, changed in the same script as the journal entry it counts and checked against the
   * record's `monthly_cap` at admission. Kept like the journal (one field a month).
   */
  monthlySpend(keyId: string): string;
  /** List: ids of every key a portal account created, oldest first (revoked ones included). */
  accountKeys(accountId: string): string;
  /** Hash: an account's key counters, `active` and `created` (lifetime), checked against its limits. */
  accountKeyCounts(accountId: string): string;
  /**
   * Hash: the request an `Idempotency-Key` (by its hash) named for this API key, and once served,
   * the response to replay. Written by the gateway; it is not ledger data, and lives in a family of
   * its own (`…:idempotency:…`): every record expires, so it may be evicted or kept elsewhere.
   */
  idempotentRequest(keyId: string, idempotencyKeyHash: string): string;
  /** Hash: bytes of stored responses of one API key, by hour bucket (its idempotency quota). */
  idempotencyKeyBytes(keyId: string): string;
  /** Counter (expiring): bytes stored by all keys in one hour bucket of the replay window. */
  idempotencyStoreBytes(bucket: number): string;
  /** Token bucket of one key's rate limit. */
  keyRateBucket(keyId: string): string;
  /**
   * Sorted set: every pending debit (`<key id>|<request id>`) scored by the epoch ms past which billing
   * voids it. Global: a sweep must find due debits of every key.
   */
  readonly pendingDebits: string;
  /** The adapters' shared pacing of upstream requests (written only by their pacer's scripts). */
  readonly upstreamPacer: UpstreamPacerKeys;
  /**
   * The adapters' shared response cache and their coalescing of identical upstream calls: a family of
   * its own (`<root>:upstream-cache:*`), so it can live in a Redis of its own and no other service's
   * rights reach it.
   */
  readonly upstreamCache: UpstreamCacheKeys;
  /** The developer portal's own keys. */
  readonly portal: PortalRedisKeys;
}

/** One hash tag, so the pacer's scripts stay in one Redis Cluster slot. */
export interface UpstreamPacerKeys {
  /** Hash: when the next request may go (`next_at`), and the upstream's window as last reported. */
  readonly state: string;
  /** Sorted set: the requests in flight upstream (lease ids), scored by the epoch ms their lease ends. */
  readonly leases: string;
  /** Sorted set: interactive callers waiting for a turn now, scored by when their wait lapses. */
  readonly waiting: string;
  /** Sorted set: the background requests (monitors, exports) among `leases`. */
  readonly background: string;
  /**
   * Hash: each flow's (`<class>|<account>`) fair-queuing tag: the turns it was given, as virtual
   * time, so the flow furthest behind its fair share goes first (docs/upstream.md#fair-shares).
   */
  readonly shares: string;
  /** Sorted set: the flows with a caller waiting for a turn now, scored by when their wait lapses. */
  readonly queued: string;
}

/** `hash`: the SHA-256 of one upstream request path (path and query: no caller data). */
export interface UpstreamCacheKeys {
  /** String: one cached answer (when it was fetched, its bound, the body). */
  entry(hash: string): string;
  /**
   * String: one operation's final answer, the adapter's reply frame as it was sent (its head says
   * when the upstream produced it and how long it may be served), named by `answerRequestHash`.
   * Written by the adapters, read by the gateway in one GET (docs/upstream.md#cached-answers-and-the-budget).
   */
  answer(requestHash: string): string;
  /** String: the token of the replica fetching this request right now (coalescing). */
  lock(hash: string): string;
  /** String: the outcome of one fetch, for the replicas that waited on it; seconds-long. */
  outcome(hash: string, token: string): string;
  /** Integer: bytes of the entries that expire within one minute (the cache's size cap). */
  bytes(minute: number): string;
}

export interface PortalRedisKeys {
  /** Hash: one account's `email` and `created_at`. */
  account(accountId: string): string;
  /** String: id of the account of the address whose normalised form hashes to `emailHash`. */
  accountByEmail(emailHash: string): string;
  /** Set: hashes of the account's live sessions, so "log out everywhere" can end them all. */
  accountSessions(accountId: string): string;
  /** String (JSON, expiring): the pending sign-in link whose token hashes to `tokenHash`; single use. */
  loginLink(tokenHash: string): string;
  /** String (JSON, expiring): the session whose id hashes to `sessionHash`. */
  session(sessionHash: string): string;
  /**
   * String (expiring, single use): a key's new secret waiting to be shown once, after the redirect
   * that follows its creation or rotation; encrypted with a key only the session's cookie yields,
   * and named by a hash of the session id and the key id.
   */
  pendingSecret(handleHash: string): string;
  /** Counter (expiring): sign-in emails sent to one address in the current window. */
  mailsToAddress(emailHash: string): string;
  /**
   * Counter (expiring): sign-in emails sent to one address at the request of one client address,
   * or of one known browser (`device:<id>`), in the current window.
   */
  mailsToAddressFrom(emailHash: string, requester: string): string;
  /**
   * String (expiring): the hash of the address a browser signed in to, for the device cookie whose
   * value hashes to `deviceHash` (the owner's own browser passes the address-wide mail limit).
   */
  knownDevice(deviceHash: string): string;
  /** Counter (expiring): sign-in emails requested from one client address in the current window. */
  mailsFromClient(ip: string): string;
  /**
   * String (JSON, expiring): one artefact of the OAuth authorization server (`model`: Client,
   * Grant, AuthorizationCode, RefreshToken, Session, Interaction), named by the SHA-256 of its id:
   * codes and refresh tokens are stored only as hashes. Access tokens are signed and never stored.
   */
  oauthRecord(model: string, idHash: string): string;
  /** String: the id hash of the authorization server's browser session whose uid hashes to `uidHash`. */
  oauthSessionByUid(uidHash: string): string;
  /** Set: `<model>:<id hash>` of every code and refresh token a grant issued, so revoking it ends them. */
  oauthGrantTokens(grantId: string): string;
  /** Counter (expiring): dynamic client registrations from one client address in the current hour. */
  registrationsFromClient(ip: string): string;
  /** Hash: one connection, an OAuth client an account allowed to spend one of its keys (by grant id). */
  oauthConnection(grantId: string): string;
  /** Set: grant ids of an account's connections. */
  accountConnections(accountId: string): string;
  /**
   * Hash: an account's notice settings: `webhook_url`, `webhook_secret` (sealed, never plain),
   * `low_balance_threshold`, and `off:<kind>` for each optional kind switched off.
   */
  noticeSettings(accountId: string): string;
  /**
   * Hash (expiring): one notice's sending, by the SHA-256 of its account, kind and crossing: `email`
   * once mailed, `webhook` once tried, `admitted` once counted against the hourly limit, `done`
   * (sent, or dropped) when nothing is left to do. Once per crossing, whatever fails on the way.
   */
  notice(crossingHash: string): string;
  /** String (expiring): the replica sending that notice right now (a lease, so one sends at a time). */
  noticeClaim(crossingHash: string): string;
  /** Counter (expiring): optional notices sent to an account in the current hour. */
  noticesThisHour(accountId: string): string;
  /**
   * The notice webhook's outbox (@rda/webhooks outbox.ts), per account under its hash tag: the
   * queue of deliveries, each delivery's record, the delivery log (sorted set) and the sending
   * replica's lease; `noticeWebhookOwners` is the set of accounts with deliveries queued.
   */
  noticeWebhookQueue(accountId: string): string;
  noticeWebhookDelivery(accountId: string, deliveryId: string): string;
  noticeWebhookLog(accountId: string): string;
  noticeWebhookLease(accountId: string): string;
  readonly noticeWebhookOwners: string;
}

/**
 * The name of one operation's request, as the gateway validated it and the adapter decoded it again:
 * the SHA-256 of the operation and its parameters as JSON with sorted keys (absent values left out),
 * so both sides name the same request alike whatever order its fields were built in.
 */
export function answerRequestHash(operation: string, params: unknown): string {
  return sha256Hex(`${operation}\n${canonicalJson(params)}`);
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value !== "object" || value === null) return JSON.stringify(value) ?? "null";
  const fields = Object.entries(value)
    .filter(([, field]) => field !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, field]) => `${JSON.stringify(name)}:${canonicalJson(field)}`);
  return `{${fields.join(",")}}`;
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
    usageDay: (keyId: string, day: string) => `${root}:key:{${keyId}}:usage:${day}`,
    payment: (keyId: string, paymentId: string) => `${root}:key:{${keyId}}:payment:${paymentId}`,
    keyPayments: (keyId: string) => `${root}:key:{${keyId}}:payments`,
    monthlySpend: (keyId: string) => `${root}:key:{${keyId}}:monthly-spend`,
    accountKeys: (accountId: string) => `${root}:account:{${accountId}}:keys`,
    accountKeyCounts: (accountId: string) => `${root}:account:{${accountId}}:key-counts`,
    keyRateBucket: (keyId: string) => `${root}:ratelimit:{${keyId}}`,
    idempotentRequest: (keyId: string, hash: string) => `${root}:idempotency:{${keyId}}:${hash}`,
    idempotencyKeyBytes: (keyId: string) => `${root}:idempotency:{${keyId}}:bytes`,
    idempotencyStoreBytes: (bucket: number) => `${root}:idempotency:store-bytes:${bucket}`,
    pendingDebits: `${root}:pending-debits`,
    upstreamPacer: Object.freeze({
      state: `${root}:upstream:{pacer}:state`,
      leases: `${root}:upstream:{pacer}:leases`,
      waiting: `${root}:upstream:{pacer}:waiting`,
      background: `${root}:upstream:{pacer}:background`,
      shares: `${root}:upstream:{pacer}:shares`,
      queued: `${root}:upstream:{pacer}:queued`,
    }),
    upstreamCache: upstreamCacheKeys(`${root}:upstream-cache`),
    portal: portalKeys(`${root}:portal`),
  });
}

function upstreamCacheKeys(root: string): UpstreamCacheKeys {
  return Object.freeze({
    entry: (hash: string) => `${root}:entry:${hash}`,
    answer: (requestHash: string) => `${root}:answer:{${requestHash}}`,
    lock: (hash: string) => `${root}:lock:${hash}`,
    outcome: (hash: string, token: string) => `${root}:outcome:${hash}:${token}`,
    bytes: (minute: number) => `${root}:bytes:${minute}`,
  });
}

function portalKeys(root: string): PortalRedisKeys {
  return Object.freeze({
    account: (accountId: string) => `${root}:account:{${accountId}}`,
    accountByEmail: (emailHash: string) => `${root}:account-email:${emailHash}`,
    accountSessions: (accountId: string) => `${root}:account:{${accountId}}:sessions`,
    loginLink: (tokenHash: string) => `${root}:login-link:${tokenHash}`,
    session: (sessionHash: string) => `${root}:session:${sessionHash}`,
    pendingSecret: (handleHash: string) => `${root}:pending-secret:${handleHash}`,
    mailsToAddress: (emailHash: string) => `${root}:mail-limit:address:${emailHash}`,
    mailsToAddressFrom: (emailHash: string, requester: string) =>
      `${root}:mail-limit:address-from:${emailHash}:${requester}`,
    knownDevice: (deviceHash: string) => `${root}:device:${deviceHash}`,
    mailsFromClient: (ip: string) => `${root}:mail-limit:client:${ip}`,
    oauthRecord: (model: string, idHash: string) => `${root}:oauth:${model}:${idHash}`,
    oauthSessionByUid: (uidHash: string) => `${root}:oauth:session-uid:${uidHash}`,
    oauthGrantTokens: (grantId: string) => `${root}:oauth:grant-tokens:${grantId}`,
    oauthConnection: (grantId: string) => `${root}:oauth:connection:${grantId}`,
    registrationsFromClient: (ip: string) => `${root}:oauth:registrations-from:${ip}`,
    accountConnections: (accountId: string) => `${root}:account:{${accountId}}:connections`,
    noticeSettings: (accountId: string) => `${root}:account:{${accountId}}:notices`,
    notice: (crossingHash: string) => `${root}:notice:${crossingHash}`,
    noticeClaim: (crossingHash: string) => `${root}:notice-claim:${crossingHash}`,
    noticesThisHour: (accountId: string) => `${root}:notice-limit:{${accountId}}`,
    noticeWebhookQueue: (accountId: string) => `${root}:account:{${accountId}}:notice-webhook:queue`,
    noticeWebhookDelivery: (accountId: string, deliveryId: string) =>
      `${root}:account:{${accountId}}:notice-webhook:delivery:${deliveryId}`,
    noticeWebhookLog: (accountId: string) => `${root}:account:{${accountId}}:notice-webhook:log`,
    noticeWebhookLease: (accountId: string) => `${root}:account:{${accountId}}:notice-webhook:lease`,
    noticeWebhookOwners: `${root}:notice-webhook:accounts`,
  });
}
