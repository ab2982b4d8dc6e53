/**
 * A webhook outbox: per endpoint (its owner, e.g. an account), a queue of deliveries sent strictly in
 * order, each retried on the shared schedule (schedule.ts) until its retry window is over, and the
 * delivery log of the last 30 days (every attempt's status, time and error), with redelivery. One
 * replica sends an endpoint's deliveries at a time (service-kit's lease), every write checking in
 * the same script that it still holds it; the loop is service-kit's. A delivery keeps its id, its
 * `webhook-id`, on every attempt and redelivery, so receivers de-duplicate by it.
 *
 *   pending ──2xx──► delivered ──redeliver──► pending (next round)
 *      │  └─failure─► pending (next_attempt_at later, within the retry window)
 *      └─window over─► failed (out of the queue, kept in the log) ──redeliver──► pending
 */
import {
  LEASE_STILL_HELD,
  type Lease,
  type Logger,
  type Loop,
  luaScript,
  type Redis,
  startLoop,
  takeLease,
} from "@rda/service-kit";
import {
  type AttemptOptions,
  attemptOnce,
  DELIVERY_LOG_MS,
  type DeliveryAttempt,
  nextAttemptAt,
  type RetrySchedule,
  type SealedSecrets,
  withAttemptKept,
} from "./schedule.ts";

export interface OutboxDelivery {
  readonly id: string;
  /** The endpoint's owner. */
  readonly owner: string;
  /** The event type, e.g. `balance.low`. */
  readonly type: string;
  readonly data: Record<string, unknown>;
  readonly created_at: number;
  readonly state: "pending" | "delivered" | "failed";
  readonly round: number;
  readonly round_started_at: number;
  readonly next_attempt_at: number;
  readonly attempts: readonly DeliveryAttempt[];
}

/** The Redis keys of one outbox; an owner's keys share its hash tag (one Redis Cluster slot). */
export interface OutboxKeys {
  queue(owner: string): string;
  delivery(owner: string, id: string): string;
  log(owner: string): string;
  lease(owner: string): string;
  /** Set: every owner with deliveries queued, walked by each replica's loop. */
  readonly owners: string;
}

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
// KEYS: queue, owners. ARGV: owner. Forgets the owner only while its queue is empty, in one step: an
// ENQUEUE landing between a separate length check and the removal would leave its delivery queued
// under an owner no loop walks.
const FORGET_IF_IDLE = `
if redis.call('LLEN', KEYS[1]) == 0 then return redis.call('SREM', KEYS[2], ARGV[1]) end
return 0
`;
const saveScript = luaScript(SAVE);
const enqueueScript = luaScript(ENQUEUE);
const forgetIfIdleScript = luaScript(FORGET_IF_IDLE);

/**
 * Writes a delivery's record (kept for the log's 30 days) while `holder` still holds its endpoint's
 * lease, in one script; `dequeue` also takes it out of the queue. False when the lease is gone
 * (another replica took over): the caller's state is stale and is not written. Monitors' batch
 * store writes through it too.
 */
export async function saveUnderLease(
  redis: Redis,
  keys: { readonly lease: string; readonly delivery: string; readonly queue: string },
  holder: string,
  record: { readonly id: string },
  dequeue: boolean,
): Promise<boolean> {
  const saved = await saveScript.run(
    redis,
    [keys.lease, keys.delivery, keys.queue],
    [holder, JSON.stringify(record), LOG_TTL_SECONDS, dequeue ? "1" : "0", record.id],
  );
  return saved === 1;
}

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

export class WebhookOutbox {
  readonly #redis: Redis;
  readonly #keys: OutboxKeys;

  constructor(redis: Redis, keys: OutboxKeys) {
    this.#redis = redis;
    this.#keys = keys;
  }

  /** Queues a delivery (last, or `first` for a redelivery); false when it is queued already. */
  async enqueue(record: OutboxDelivery, first = false): Promise<boolean> {
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

  /** Sends a logged delivery again as a new round, first in line; false when unknown or queued. */
  async redeliver(owner: string, id: string, now: number): Promise<boolean> {
    const record = await this.delivery(owner, id);
    if (record === undefined || record.state === "pending") return false;
    const next: OutboxDelivery = {
      ...record,
      state: "pending",
      round: record.round + 1,
      round_started_at: now,
      next_attempt_at: 0,
    };
    return this.enqueue(next, true);
  }

  /** Writes the record while `holder` holds the owner's lease; `dequeue` also takes it out of line. */
  save(holder: string, record: OutboxDelivery, dequeue = false): Promise<boolean> {
    const { owner, id } = record;
    const keys = {
      lease: this.#keys.lease(owner),
      delivery: this.#keys.delivery(owner, id),
      queue: this.#keys.queue(owner),
    };
    return saveUnderLease(this.#redis, keys, holder, record, dequeue);
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

  async delivery(owner: string, id: string): Promise<OutboxDelivery | undefined> {
    const raw = await this.#redis.get(this.#keys.delivery(owner, id));
    return raw === null ? undefined : (JSON.parse(raw) as OutboxDelivery);
  }

  /** The newest `limit` deliveries of the last 30 days, newest first. */
  async log(owner: string, limit: number, now: number): Promise<OutboxDelivery[]> {
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
    return raws.filter((raw): raw is string => raw !== null).map((raw) => JSON.parse(raw) as OutboxDelivery);
  }
}

export interface OutboxLoopDeps {
  readonly outbox: WebhookOutbox;
  /** Where the owner's deliveries go now; undefined: it has no endpoint (its queue is dropped). */
  readonly endpoint: (owner: string) => Promise<(SealedSecrets & { readonly url: string }) | undefined>;
  readonly schedule: RetrySchedule;
  readonly attempt: AttemptOptions;
  readonly logger: Logger;
  /** This replica's name in leases. */
  readonly holder: string;
  readonly leaseMs: number;
  readonly tickMs: number;
  /** What the loop is, for its log lines. */
  readonly name: string;
}

export function startOutboxLoop(deps: OutboxLoopDeps): Loop {
  return startLoop({
    name: deps.name,
    everyMs: deps.tickMs,
    turn: (isStopped) => sendDue(deps, isStopped),
    logger: deps.logger,
  });
}

/** One turn: each owner whose lease this replica wins moves its head delivery one step. */
export async function sendDue(deps: OutboxLoopDeps, isStopped: () => boolean): Promise<void> {
  for (const owner of await deps.outbox.owners()) {
    if (isStopped()) return;
    const lease = await deps.outbox.claim(owner, deps.holder, deps.leaseMs);
    if (lease === undefined) continue;
    try {
      await step(deps, owner);
    } catch (error) {
      deps.logger.warn({ err: error, owner }, `${deps.name} step failed; retried`);
    } finally {
      await lease.release();
    }
  }
}

async function step(deps: OutboxLoopDeps, owner: string): Promise<void> {
  const { outbox } = deps;
  const headId = await outbox.head(owner);
  if (headId === null) return outbox.forgetIfIdle(owner);
  const record = await outbox.delivery(owner, headId);
  if (record === undefined || record.state !== "pending") {
    // Expired or finished by a replica that died before dequeuing it: out of line.
    if (record !== undefined) await outbox.save(deps.holder, record, true);
    else await outbox.dropMissing(owner, headId);
    return;
  }
  if (record.next_attempt_at > Date.now()) return;
  const endpoint = await deps.endpoint(owner);
  if (endpoint === undefined) {
    const failed = withAttemptKept(record, {
      at: Date.now(),
      round: record.round,
      status: null,
      latency_ms: 0,
      error: "no webhook URL is set",
    });
    await outbox.save(deps.holder, { ...failed, state: "failed" }, true);
    return;
  }
  const message = { id: record.id, type: record.type, data: record.data };
  const attempt = await attemptOnce(endpoint, message, record.round, deps.attempt);
  // The window runs from the round's first attempt, not from when it was queued: a delivery that
  // waited behind a failing one still gets its whole window.
  const first = !record.attempts.some((each) => each.round === record.round);
  const started = first ? { ...record, round_started_at: attempt.at } : record;
  const tried = withAttemptKept(started, attempt);
  if (attempt.error === null) {
    await outbox.save(deps.holder, { ...tried, state: "delivered" }, true);
    return;
  }
  const failedInRound = tried.attempts.filter((each) => each.round === tried.round).length;
  const at = nextAttemptAt(tried.round_started_at, failedInRound, deps.schedule, Date.now());
  if (at !== undefined) {
    await outbox.save(deps.holder, { ...tried, next_attempt_at: at });
    return;
  }
  await outbox.save(deps.holder, { ...tried, state: "failed" }, true);
  deps.logger.warn({ owner, delivery_id: record.id }, `${deps.name}: a delivery failed for good`);
}
