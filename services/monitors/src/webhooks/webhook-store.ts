/**
 * Webhook delivery state in Redis: each monitor's receiver, its queue of deliveries, their records
 * (the delivery log, kept 30 days) and the lease of the replica sending them (service-kit's one
 * lease). Every write the delivery loop makes checks, in the same script, that its replica still
 * holds the monitor's lease (`LEASE_STILL_HELD`; a record's write is @rda/webhooks' `saveUnderLease`), so a replica that stalled past its lease (another
 * took over) cannot write stale state back.
 */
import { LEASE_STILL_HELD, type Lease, luaScript, type Redis, takeLease } from "@rda/service-kit";
import { saveUnderLease } from "@rda/webhooks";
import type { DeliveryRecord } from "./delivery-record.ts";
import type { WebhookKeys } from "./webhook-keys.ts";
import { DELIVERY_LOG_MS } from "./webhook-settings.ts";

export type EndpointStatus = "active" | "failing" | "paused_for_credits";

export interface Endpoint {
  readonly url: string;
  /** The signing secret, sealed (secrets.ts); never stored or logged in the clear. */
  readonly secret: string;
  /** The secret before the last rotation, sealed, and until when it still signs (epoch ms). */
  readonly previous_secret: string | null;
  readonly previous_until: number;
  readonly status: EndpointStatus;
  /** The items stream entry last put in a batch; null: from the stream's start. */
  readonly cursor: string | null;
  /** The last batch's sequence number (the next is one more). */
  readonly sequence: number;
}

const LOG_TTL_SECONDS = Math.ceil(DELIVERY_LOG_MS / 1000);

// KEYS: lease, endpoint, queue, delivery, log. ARGV: owner, expected cursor ('' for none), new
// cursor, sequence, record JSON, ttl (s), delivery id, created ms, oldest kept ms.
const CREATE_BATCH = `
${LEASE_STILL_HELD}
if (redis.call('HGET', KEYS[2], 'cursor') or '') ~= ARGV[2] then return 0 end
if redis.call('LLEN', KEYS[3]) > 0 then return 0 end
redis.call('SET', KEYS[4], ARGV[5], 'EX', ARGV[6])
redis.call('ZADD', KEYS[5], ARGV[8], ARGV[7])
redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', '(' .. ARGV[9])
redis.call('HSET', KEYS[2], 'cursor', ARGV[3], 'sequence', ARGV[4])
redis.call('RPUSH', KEYS[3], ARGV[7])
return 1
`;

// KEYS: queue, delivery. ARGV: delivery id, record JSON, ttl (s). Puts a redelivery first in line
// unless it is queued already.
const ENQUEUE_FIRST = `
if redis.call('LPOS', KEYS[1], ARGV[1]) then return 0 end
redis.call('SET', KEYS[2], ARGV[2], 'EX', ARGV[3])
redis.call('LPUSH', KEYS[1], ARGV[1])
return 1
`;

const createBatchScript = luaScript(CREATE_BATCH);
const enqueueFirstScript = luaScript(ENQUEUE_FIRST);

export class WebhookStore {
  readonly #redis: Redis;
  readonly #keys: WebhookKeys;

  constructor(redis: Redis, keys: WebhookKeys) {
    this.#redis = redis;
    this.#keys = keys;
  }

  async configure(
    monitorId: string,
    url: string,
    sealedSecret: string,
    cursor: string | null,
  ): Promise<void> {
    await this.#redis
      .multi()
      .del(this.#keys.endpoint(monitorId), this.#keys.queue(monitorId))
      .hset(this.#keys.endpoint(monitorId), {
        url,
        secret: sealedSecret,
        previous_secret: "",
        previous_until: 0,
        status: "active",
        cursor: cursor ?? "",
        sequence: 0,
      })
      .sadd(this.#keys.endpoints, monitorId)
      .exec();
  }

  async setUrl(monitorId: string, url: string): Promise<void> {
    await this.#redis.hset(this.#keys.endpoint(monitorId), "url", url);
  }

  async rotate(monitorId: string, sealedSecret: string, previous: string, until: number): Promise<void> {
    await this.#redis.hset(this.#keys.endpoint(monitorId), {
      secret: sealedSecret,
      previous_secret: previous,
      previous_until: until,
    });
  }

  async setStatus(monitorId: string, status: EndpointStatus): Promise<void> {
    // Only while the endpoint exists: a webhook removed meanwhile stays removed.
    const key = this.#keys.endpoint(monitorId);
    if ((await this.#redis.exists(key)) === 1) await this.#redis.hset(key, "status", status);
  }

  /** Stops webhook delivery; `forgetLog` also drops the log (the monitor itself is deleted). */
  async remove(monitorId: string, forgetLog: boolean): Promise<void> {
    const keys = [this.#keys.endpoint(monitorId), this.#keys.queue(monitorId)];
    if (forgetLog) keys.push(this.#keys.log(monitorId));
    await this.#redis
      .multi()
      .del(...keys)
      .srem(this.#keys.endpoints, monitorId)
      .exec();
  }

  async endpoint(monitorId: string): Promise<Endpoint | undefined> {
    const raw = await this.#redis.hgetall(this.#keys.endpoint(monitorId));
    if (raw.url === undefined || raw.secret === undefined) return undefined;
    return {
      url: raw.url,
      secret: raw.secret,
      previous_secret: raw.previous_secret ? raw.previous_secret : null,
      previous_until: Number(raw.previous_until ?? 0),
      status: (raw.status ?? "active") as EndpointStatus,
      cursor: raw.cursor ? raw.cursor : null,
      sequence: Number(raw.sequence ?? 0),
    };
  }

  monitorsWithEndpoints(): Promise<string[]> {
    return this.#redis.smembers(this.#keys.endpoints);
  }

  /** The lease on the monitor's deliveries for `owner`, when no other replica holds it. */
  claim(monitorId: string, owner: string, leaseMs: number): Promise<Lease | undefined> {
    return takeLease(this.#redis, this.#keys.lease(monitorId), owner, leaseMs);
  }

  async head(monitorId: string): Promise<string | null> {
    return this.#redis.lindex(this.#keys.queue(monitorId), 0);
  }

  async isQueued(monitorId: string, deliveryId: string): Promise<boolean> {
    return (await this.#redis.lpos(this.#keys.queue(monitorId), deliveryId)) !== null;
  }

  async delivery(monitorId: string, deliveryId: string): Promise<DeliveryRecord | undefined> {
    const raw = await this.#redis.get(this.#keys.delivery(monitorId, deliveryId));
    return raw === null ? undefined : (JSON.parse(raw) as DeliveryRecord);
  }

  /** Queues the next batch and moves the cursor past it; false when the state moved meanwhile. */
  async createBatch(
    owner: string,
    record: DeliveryRecord,
    expected: { cursor: string | null },
    next: { cursor: string; sequence: number },
  ): Promise<boolean> {
    const id = record.monitor_id;
    const keys = [
      this.#keys.lease(id),
      this.#keys.endpoint(id),
      this.#keys.queue(id),
      this.#keys.delivery(id, record.id),
      this.#keys.log(id),
    ];
    const created = await createBatchScript.run(this.#redis, keys, [
      owner,
      expected.cursor ?? "",
      next.cursor,
      next.sequence,
      JSON.stringify(record),
      LOG_TTL_SECONDS,
      record.id,
      record.created_at,
      record.created_at - DELIVERY_LOG_MS,
    ]);
    return created === 1;
  }

  /** Writes the record while `owner` holds the lease; `dequeue` also takes it out of the queue. */
  save(owner: string, record: DeliveryRecord, dequeue = false): Promise<boolean> {
    const id = record.monitor_id;
    const keys = {
      lease: this.#keys.lease(id),
      delivery: this.#keys.delivery(id, record.id),
      queue: this.#keys.queue(id),
    };
    return saveUnderLease(this.#redis, keys, owner, record, dequeue);
  }

  /** Puts a delivery first in the queue again; false when it is queued already. */
  async enqueueFirst(record: DeliveryRecord): Promise<boolean> {
    const id = record.monitor_id;
    const keys = [this.#keys.queue(id), this.#keys.delivery(id, record.id)];
    const queued = await enqueueFirstScript.run(this.#redis, keys, [
      record.id,
      JSON.stringify(record),
      LOG_TTL_SECONDS,
    ]);
    return queued === 1;
  }

  /** Overwrites a delivery the delivery loop leaves alone (the failed head of a failing monitor). */
  async rewrite(record: DeliveryRecord): Promise<void> {
    const key = this.#keys.delivery(record.monitor_id, record.id);
    await this.#redis.set(key, JSON.stringify(record), "EX", LOG_TTL_SECONDS);
  }

  /** Writes a delivery outside the queue (a test event), listed in the log. */
  async logDelivery(record: DeliveryRecord): Promise<void> {
    const id = record.monitor_id;
    await this.#redis
      .multi()
      .set(this.#keys.delivery(id, record.id), JSON.stringify(record), "EX", LOG_TTL_SECONDS)
      .zadd(this.#keys.log(id), record.created_at, record.id)
      .exec();
  }

  /** The next test event's number (its own sequence, apart from the batches'). */
  async nextTestSequence(monitorId: string): Promise<number> {
    return this.#redis.hincrby(this.#keys.endpoint(monitorId), "test_sequence", 1);
  }

  /** The newest `limit` deliveries of the last 30 days, newest first. */
  async log(monitorId: string, limit: number, now: number): Promise<DeliveryRecord[]> {
    const ids = await this.#redis.zrevrangebyscore(
      this.#keys.log(monitorId),
      "+inf",
      now - DELIVERY_LOG_MS,
      "LIMIT",
      0,
      limit,
    );
    if (ids.length === 0) return [];
    const raws = await this.#redis.mget(...ids.map((id) => this.#keys.delivery(monitorId, id)));
    return raws.filter((raw): raw is string => raw !== null).map((raw) => JSON.parse(raw) as DeliveryRecord);
  }
}
