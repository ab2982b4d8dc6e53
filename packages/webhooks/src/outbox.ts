/**
 * A webhook outbox, the one delivery queue of our outbound webhooks (accounts' notices and
 * monitors' batches alike): per endpoint (its owner, e.g. an account or a monitor), a queue of
 * deliveries sent strictly in order, their records, and the delivery log of the last 30 days (every
 * attempt's status, time and error). One replica moves an owner's queue at a time (service-kit's
 * lease); every write it makes checks, in the same script, that it still holds it, so a replica
 * that stalled past its lease (another took over) cannot write stale state back. A delivery keeps
 * its id, its `webhook-id`, on every attempt and redelivery, so receivers de-duplicate by it.
 * outbox-loop.ts moves the queues along and draws a delivery's states.
 */
import { LEASE_STILL_HELD, type Lease, luaScript, type Redis, takeLease } from "@rda/service-kit";
import {
  type AttemptOptions,
  attemptOnce,
  DELIVERY_LOG_MS,
  type DeliveryAttempt,
  type SealedSecrets,
} from "./schedule.ts";

export interface OutboxDelivery {
  readonly id: string;
  /** The endpoint's owner. */
  readonly owner: string;
  /** The event type, e.g. `balance.low`. */
  readonly type: string;
  /** What the receiver gets as the body's `data`. */
  readonly data: Record<string, unknown>;
  readonly created_at: number;
  /** `accepted`: the receiver answered 2xx and what follows (a settle) is not done yet. */
  readonly state: "pending" | "accepted" | "delivered" | "failed";
  readonly round: number;
  readonly round_started_at: number;
  readonly next_attempt_at: number;
  /** The newest attempts, oldest first. */
  readonly attempts: readonly DeliveryAttempt[];
}

/** Where an owner's deliveries go: the URL and its sealed signing secrets. */
export type OutboxEndpoint = SealedSecrets & { readonly url: string };

/** The Redis keys of one outbox; an owner's keys share its hash tag (one Redis Cluster slot). */
export interface OutboxKeys {
  /** List: ids of deliveries waiting to be sent, the head first (the one in flight). */
  queue(owner: string): string;
  /** String: one delivery's record (JSON), kept for the log's retention. */
  delivery(owner: string, id: string): string;
  /** Sorted set: the owner's deliveries by creation time (ms), the log's index. */
  log(owner: string): string;
  /** String: the replica moving the owner's queue now (service-kit's lease). */
  lease(owner: string): string;
  /** Set: the owners each replica's loop walks. */
  readonly owners: string;
}

/**
 * Where a batch cut by the loop came from: a hash in the owner's slot (a monitor's webhook, its item
 * stream cursor) whose `field` must still hold `expected` (null: unset), and the fields written to
 * it in the step that queues the batch, so the cursor never moves without its batch nor a batch
 * queues twice.
 */
export interface BatchSource {
  readonly key: string;
  readonly field: string;
  readonly expected: string | null;
  readonly set: Readonly<Record<string, string | number>>;
}

type Transaction = ReturnType<Redis["multi"]>;

const LOG_TTL_SECONDS = Math.ceil(DELIVERY_LOG_MS / 1000);

// KEYS: lease, delivery, queue. ARGV: holder, record JSON, ttl (s), 1 to also dequeue, id.
const SAVE = `
${LEASE_STILL_HELD}
redis.call('SET', KEYS[2], ARGV[2], 'EX', ARGV[3])
if ARGV[4] == '1' then redis.call('LREM', KEYS[3], 1, ARGV[5]) end
return 1
`;
// KEYS: delivery, log, queue, owners. ARGV: record JSON, ttl (s), created ms, id, owner, oldest
// kept ms, 1 to put it first. Queues a delivery unless it is queued already.
const ENQUEUE = `
if redis.call('LPOS', KEYS[3], ARGV[4]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[6])
if ARGV[7] == '1' then redis.call('LPUSH', KEYS[3], ARGV[4]) else redis.call('RPUSH', KEYS[3], ARGV[4]) end
redis.call('SADD', KEYS[4], ARGV[5])
return 1
`;
// KEYS: lease, source, queue, delivery, log. ARGV: holder, source field, expected value ('' for
// none), record JSON, ttl (s), id, created ms, oldest kept ms, then field, value pairs for the
// source. Queues a cut batch only while the queue is empty and the source has not moved (it still
// exists: a webhook removed meanwhile is not written back).
const CUT = `
${LEASE_STILL_HELD}
if redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
if (redis.call('HGET', KEYS[2], ARGV[2]) or '') ~= ARGV[3] then return 0 end
if redis.call('LLEN', KEYS[3]) > 0 then return 0 end
redis.call('SET', KEYS[4], ARGV[4], 'EX', ARGV[5])
redis.call('ZADD', KEYS[5], ARGV[7], ARGV[6])
redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', '(' .. ARGV[8])
redis.call('HSET', KEYS[2], unpack(ARGV, 9))
redis.call('RPUSH', KEYS[3], ARGV[6])
return 1
`;
// KEYS: queue, owners. ARGV: owner. Forgets the owner only while its queue is empty, in one step: an
// ENQUEUE landing between a separate length check and the removal would leave its delivery queued
// under an owner no loop walks.
const FORGET_IF_IDLE = `
if redis.call('LLEN', KEYS[1]) == 0 then return redis.call('SREM', KEYS[2], ARGV[1]) end
return 0
`;
const saveScript = luaScript(SAVE);
const enqueueScript = luaScript(ENQUEUE);
const cutScript = luaScript(CUT);
const forgetIfIdleScript = luaScript(FORGET_IF_IDLE);

export function newOutboxDelivery(
  owner: string,
  id: string,
  type: string,
  data: Record<string, unknown>,
  now: number,
): OutboxDelivery {
  return {
    id,
    owner,
    type,
    data,
    created_at: now,
    state: "pending",
    round: 0,
    round_started_at: now,
    next_attempt_at: 0,
    attempts: [],
  };
}

/** A logged delivery as its next round: sent again from now, with the same id and a fresh window. */
export function nextRoundOf<R extends OutboxDelivery>(record: R, now: number): R {
  return { ...record, state: "pending", round: record.round + 1, round_started_at: now, next_attempt_at: 0 };
}

/** An owner's queue, its records and log; `R` is the record a user of the outbox keeps (its own fields beside). */
export class WebhookOutbox<R extends OutboxDelivery = OutboxDelivery> {
  readonly #redis: Redis;
  readonly #keys: OutboxKeys;

  constructor(redis: Redis, keys: OutboxKeys) {
    this.#redis = redis;
    this.#keys = keys;
  }

  /**
   * Queues a delivery (last, or `first` for a redelivery) and has the owner walked; false when it is
   * queued already.
   */
  async enqueue(record: R, first = false): Promise<boolean> {
    const { owner, id } = record;
    const keys = [
      this.#keys.delivery(owner, id),
      this.#keys.log(owner),
      this.#keys.queue(owner),
      this.#keys.owners,
    ];
    const queued = await enqueueScript.run(this.#redis, keys, [
      JSON.stringify(record),
      LOG_TTL_SECONDS,
      record.created_at,
      id,
      owner,
      record.created_at - DELIVERY_LOG_MS,
      first ? "1" : "0",
    ]);
    return queued === 1;
  }

  /** Sends a delivered or failed delivery again as a new round, first in line; false otherwise. */
  async redeliver(owner: string, id: string, now: number): Promise<boolean> {
    const record = await this.delivery(owner, id);
    if (record === undefined || (record.state !== "delivered" && record.state !== "failed")) return false;
    return this.enqueue(nextRoundOf(record, now), true);
  }

  /** Writes the record while `holder` holds the owner's lease; `dequeue` also takes it out of line. */
  async save(holder: string, record: R, dequeue = false): Promise<boolean> {
    const { owner, id } = record;
    const keys = [this.#keys.lease(owner), this.#keys.delivery(owner, id), this.#keys.queue(owner)];
    const saved = await saveScript.run(this.#redis, keys, [
      holder,
      JSON.stringify(record),
      LOG_TTL_SECONDS,
      dequeue ? "1" : "0",
      id,
    ]);
    return saved === 1;
  }

  /**
   * Queues a batch the loop cut from `source` as the owner's only delivery and moves the source on,
   * in one step, while `holder` holds the lease; false when the queue is not empty or the source
   * moved or went meanwhile.
   */
  async cut(holder: string, record: R, source: BatchSource): Promise<boolean> {
    const { owner, id } = record;
    const keys = [
      this.#keys.lease(owner),
      source.key,
      this.#keys.queue(owner),
      this.#keys.delivery(owner, id),
      this.#keys.log(owner),
    ];
    const cut = await cutScript.run(this.#redis, keys, [
      holder,
      source.field,
      source.expected ?? "",
      JSON.stringify(record),
      LOG_TTL_SECONDS,
      id,
      record.created_at,
      record.created_at - DELIVERY_LOG_MS,
      ...Object.entries(source.set).flat(),
    ]);
    return cut === 1;
  }

  /**
   * Overwrites a queued delivery's record from outside the loop: only for one the loop leaves alone
   * (the failed head of a stopped queue, started again as its next round).
   */
  async rewrite(record: R): Promise<void> {
    const key = this.#keys.delivery(record.owner, record.id);
    await this.#redis.set(key, JSON.stringify(record), "EX", LOG_TTL_SECONDS);
  }

  /**
   * Sends a delivery once, now, outside the queue (a test event: one attempt, never retried), and
   * logs it like any other; the record as logged.
   */
  async sendOnce(record: R, endpoint: OutboxEndpoint, options: AttemptOptions): Promise<R> {
    const message = { id: record.id, type: record.type, data: record.data };
    const attempt = await attemptOnce(endpoint, message, record.round, options);
    const sent: R = {
      ...record,
      state: attempt.error === null ? "delivered" : "failed",
      attempts: [attempt],
    };
    await this.#redis
      .multi()
      .set(this.#keys.delivery(record.owner, record.id), JSON.stringify(sent), "EX", LOG_TTL_SECONDS)
      .zadd(this.#keys.log(record.owner), record.created_at, record.id)
      .exec();
    return sent;
  }

  /**
   * Adds to `transaction` what starts the owner with an empty queue, walked by the loop even while
   * empty (its batches are cut from a source), so a caller sets its endpoint up in the same step.
   */
  openQueue(transaction: Transaction, owner: string): Transaction {
    return transaction.del(this.#keys.queue(owner)).sadd(this.#keys.owners, owner);
  }

  /**
   * Adds to `transaction` what drops the owner's queue (and its log, with `forgetLog`) and stops
   * the loop walking it, so a caller removes its endpoint in the same step.
   */
  closeQueue(transaction: Transaction, owner: string, forgetLog: boolean): Transaction {
    const keys = [this.#keys.queue(owner), ...(forgetLog ? [this.#keys.log(owner)] : [])];
    return transaction.del(...keys).srem(this.#keys.owners, owner);
  }

  owners(): Promise<string[]> {
    return this.#redis.smembers(this.#keys.owners);
  }

  claim(owner: string, holder: string, leaseMs: number): Promise<Lease | undefined> {
    return takeLease(this.#redis, this.#keys.lease(owner), holder, leaseMs);
  }

  head(owner: string): Promise<string | null> {
    return this.#redis.lindex(this.#keys.queue(owner), 0);
  }

  /** Takes a delivery whose record expired out of line. */
  async dropMissing(owner: string, id: string): Promise<void> {
    await this.#redis.lrem(this.#keys.queue(owner), 1, id);
  }

  /** Drops the owner from the loop's walk once its queue is empty (a later enqueue adds it back). */
  async forgetIfIdle(owner: string): Promise<void> {
    await forgetIfIdleScript.run(this.#redis, [this.#keys.queue(owner), this.#keys.owners], [owner]);
  }

  async delivery(owner: string, id: string): Promise<R | undefined> {
    const raw = await this.#redis.get(this.#keys.delivery(owner, id));
    return raw === null ? undefined : (JSON.parse(raw) as R);
  }

  /** The newest `limit` deliveries of the last 30 days, newest first. */
  async log(owner: string, limit: number, now: number): Promise<R[]> {
    const ids = await this.#redis.zrevrangebyscore(
      this.#keys.log(owner),
      "+inf",
      now - DELIVERY_LOG_MS,
      "LIMIT",
      0,
      limit,
    );
    if (ids.length === 0) return [];
    const raws = await this.#redis.mget(...ids.map((id) => this.#keys.delivery(owner, id)));
    return raws.filter((raw): raw is string => raw !== null).map((raw) => JSON.parse(raw) as R);
  }
}
