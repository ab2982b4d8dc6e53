/**
 * Monitors' webhook receivers in Redis: each monitor's URL, sealed signing secrets, status, and the
 * cursor in its item stream its batches are cut from. Its deliveries are queued and logged in the
 * outbox (@rda/webhooks outbox.ts); setting a receiver up or removing it changes the hash and the
 * monitor's queue in one step.
 */
import { luaScript, type Redis } from "@rda/service-kit";
import type { BatchSource, WebhookOutbox } from "@rda/webhooks";
import type { DeliveryRecord } from "./delivery-record.ts";
import type { WebhookKeys } from "./webhook-keys.ts";

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

/** A rotation: the new secret (sealed) and until when the one before still signs (epoch ms). */
export interface Rotation {
  readonly secret: string;
  readonly until: number;
}

// KEYS: the endpoint, what the rotation's request token made (none: a rotation without one). ARGV:
// the new sealed secret, until (ms), the rotation as JSON, its ttl (s). The current secret becomes
// the previous one in the same step, so two rotations at once never both keep the same previous.
// Returns the rotation the token made before (nothing written), 'rotated', or 'none' without a webhook.
const ROTATE = `
if KEYS[2] then
  local made = redis.call('GET', KEYS[2])
  if made then return made end
end
local current = redis.call('HGET', KEYS[1], 'secret')
if not current or not redis.call('HGET', KEYS[1], 'url') then return 'none' end
redis.call('HSET', KEYS[1], 'secret', ARGV[1], 'previous_secret', current, 'previous_until', ARGV[2])
if KEYS[2] then redis.call('SET', KEYS[2], ARGV[3], 'EX', ARGV[4]) end
return 'rotated'
`;
const rotateScript = luaScript(ROTATE);

export class WebhookEndpoints {
  readonly #redis: Redis;
  readonly #keys: WebhookKeys;
  readonly #outbox: WebhookOutbox<DeliveryRecord>;

  constructor(redis: Redis, keys: WebhookKeys, outbox: WebhookOutbox<DeliveryRecord>) {
    this.#redis = redis;
    this.#keys = keys;
    this.#outbox = outbox;
  }

  /** A new receiver, its queue empty and walked by the delivery loop. */
  async configure(
    monitorId: string,
    url: string,
    sealedSecret: string,
    cursor: string | null,
  ): Promise<void> {
    const transaction = this.#redis
      .multi()
      .del(this.#keys.endpoint(monitorId))
      .hset(this.#keys.endpoint(monitorId), {
        url,
        secret: sealedSecret,
        previous_secret: "",
        previous_until: 0,
        status: "active",
        cursor: cursor ?? "",
        sequence: 0,
      });
    await this.#outbox.openQueue(transaction, monitorId).exec();
  }

  async setUrl(monitorId: string, url: string): Promise<void> {
    await this.#redis.hset(this.#keys.endpoint(monitorId), "url", url);
  }

  /**
   * Makes `rotation` the endpoint's secret, the current one signing until its `until`; with a
   * request token, only when that token rotated nothing before (then its rotation is answered).
   * Undefined when the monitor has no webhook.
   */
  async rotate(
    monitorId: string,
    rotation: Rotation,
    requested?: { readonly token: string; readonly ttlSeconds: number },
  ): Promise<Rotation | undefined> {
    const keys = [
      this.#keys.endpoint(monitorId),
      ...(requested === undefined ? [] : [this.#keys.rotation(monitorId, requested.token)]),
    ];
    const outcome = String(
      await rotateScript.run(this.#redis, keys, [
        rotation.secret,
        rotation.until,
        JSON.stringify(rotation),
        requested?.ttlSeconds ?? 0,
      ]),
    );
    if (outcome === "none") return undefined;
    return outcome === "rotated" ? rotation : (JSON.parse(outcome) as Rotation);
  }

  async setStatus(monitorId: string, status: EndpointStatus): Promise<void> {
    // Only while the endpoint exists: a webhook removed meanwhile stays removed.
    const key = this.#keys.endpoint(monitorId);
    if ((await this.#redis.exists(key)) === 1) await this.#redis.hset(key, "status", status);
  }

  /** Stops webhook delivery; `forgetLog` also drops the log (the monitor itself is deleted). */
  async remove(monitorId: string, forgetLog: boolean): Promise<void> {
    const transaction = this.#redis.multi().del(this.#keys.endpoint(monitorId));
    await this.#outbox.closeQueue(transaction, monitorId, forgetLog).exec();
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

  /** Where the next batch comes from: the cursor it starts after, and what it moves the cursor to. */
  batchSource(
    monitorId: string,
    expected: string | null,
    next: { cursor: string; sequence: number },
  ): BatchSource {
    return {
      key: this.#keys.endpoint(monitorId),
      field: "cursor",
      expected,
      set: { cursor: next.cursor, sequence: next.sequence },
    };
  }

  /** The next test event's number (its own sequence, apart from the batches'). */
  async nextTestSequence(monitorId: string): Promise<number> {
    return this.#redis.hincrby(this.#keys.endpoint(monitorId), "test_sequence", 1);
  }
}
