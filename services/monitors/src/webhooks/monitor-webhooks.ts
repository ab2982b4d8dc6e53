/**
 * A monitor's webhook as the API manages it: setting the receiver (its URL checked for safety, a
 * new secret made, sealed and shown once), changing or removing it, rotating the secret (the old one
 * still signs during the overlap), the status it gives the monitor, sending a test event, and
 * redelivering a batch. The API (api.ts) calls these; the delivery loop sends.
 *
 * A rotation or a redelivery under a request token (contracts' `requestTokenSchema`) is done once
 * per token: the rotation's new secret is kept sealed under the token beside the endpoint, written
 * in the step that rotates; the redelivery's token is marked in the round it starts. The same
 * command again answers the same secret, or the batch as it is now.
 */
import {
  MONITOR_DELIVERY_ID,
  type MonitorsRpcReply,
  REQUEST_TOKEN_SECONDS,
  monitorRefusal as refused,
} from "@rda/contracts";
import { type Logger, markedBy, type Redis, withMark } from "@rda/service-kit";
import { newWebhookSecret, openSecret, sealSecret, urlProblem, type WebhookOutbox } from "@rda/webhooks";
import { isRunning, type MonitorRecord } from "../monitor.ts";
import type { DeliveryBilling } from "./delivery-billing.ts";
import {
  type DeliveryRecord,
  newDelivery,
  nextRound,
  publicDelivery,
  testDeliveryIdOf,
} from "./delivery-record.ts";
import { refundRound } from "./delivery-worker.ts";
import type { EndpointStatus, WebhookEndpoints } from "./webhook-endpoints.ts";
import { attemptOptionsOf, type WebhookSettings } from "./webhook-settings.ts";

/** A test event's attempt waits at most this long, so its answer fits the API's own deadline. */
const TEST_TIMEOUT_MS = 5_000;
/** Deliveries a log page lists at most. */
const LOG_PAGE = 100;

export class MonitorWebhooks {
  readonly #endpoints: WebhookEndpoints;
  readonly #outbox: WebhookOutbox<DeliveryRecord>;
  readonly #settings: WebhookSettings;
  readonly #redis: Redis;
  readonly #itemsKey: (monitorId: string) => string;
  readonly #billing: DeliveryBilling;
  readonly #logger: Logger;

  constructor(deps: {
    logger: Logger;
    endpoints: WebhookEndpoints;
    outbox: WebhookOutbox<DeliveryRecord>;
    settings: WebhookSettings;
    redis: Redis;
    itemsKey: (monitorId: string) => string;
    billing: DeliveryBilling;
  }) {
    this.#endpoints = deps.endpoints;
    this.#outbox = deps.outbox;
    this.#settings = deps.settings;
    this.#redis = deps.redis;
    this.#itemsKey = deps.itemsKey;
    this.#billing = deps.billing;
    this.#logger = deps.logger;
  }

  /** Why `url` cannot be a receiver here (`webhook_url: …`), or undefined when it can. */
  problemWith(url: string): string | undefined {
    if (this.#settings.sealingKey === undefined)
      return "webhook_url: webhooks are not enabled on this deployment; pull the items instead";
    const problem = urlProblem(url, this.#settings.allowLoopback);
    if (problem === undefined) return undefined;
    return problem === "not https"
      ? "webhook_url: must be an https URL"
      : `webhook_url: must not be ${problem}`;
  }

  /** Sets the receiver with a new secret (returned, to be shown once); delivery starts at `fromStart`
   * or after the items the monitor already holds. */
  async configure(
    monitor: MonitorRecord,
    url: string,
    fromStart: boolean,
    secret = newWebhookSecret(),
  ): Promise<string> {
    const cursor = fromStart ? null : await this.#newestItem(monitor.id);
    await this.#endpoints.configure(monitor.id, url, this.seal(secret), cursor);
    return secret;
  }

  /** A secret as it is kept (sealed under WEBHOOK_SEALING_KEY), to be opened again only here. */
  seal(secret: string): string {
    return sealSecret(this.#sealingKey(), secret);
  }

  open(sealed: string): string {
    return openSecret(this.#sealingKey(), sealed);
  }

  /**
   * A PATCH's webhook part: a new URL (keeping the secret, or making one if there was none), null to
   * stop, `paused: false` resuming a failing monitor. Returns a new secret when one was made.
   */
  async update(
    monitor: MonitorRecord,
    change: { webhook_url?: string | null | undefined; paused?: boolean | undefined },
  ): Promise<string | undefined> {
    let secret: string | undefined;
    if (change.webhook_url === null) await this.#stop(monitor, false);
    else if (change.webhook_url !== undefined) {
      if (await this.#endpoints.endpoint(monitor.id))
        await this.#endpoints.setUrl(monitor.id, change.webhook_url);
      else secret = await this.configure(monitor, change.webhook_url, false);
    }
    if (change.paused === false || typeof change.webhook_url === "string") await this.#resume(monitor);
    return secret;
  }

  remove(monitor: MonitorRecord): Promise<void> {
    return this.#stop(monitor, true);
  }

  /**
   * Stops delivery. A batch already debited and not yet accepted will never be sent: its debit goes
   * back (billing refunds a round once, and a settle racing it finds it ended).
   */
  async #stop(monitor: MonitorRecord, forgetLog: boolean): Promise<void> {
    const record = await this.#head(monitor.id);
    await this.#endpoints.remove(monitor.id, forgetLog);
    if (record?.state === "pending" && record.debited_round === record.round)
      await refundRound({ billing: this.#billing, logger: this.#logger }, monitor, record, "webhook_removed");
  }

  /** The monitor's public fields that its webhook decides: its URL, and its status while stopped. */
  async view(
    monitor: MonitorRecord,
  ): Promise<{ webhook_url: string | null; status?: Exclude<EndpointStatus, "active"> }> {
    const endpoint = await this.#endpoints.endpoint(monitor.id);
    if (endpoint === undefined) return { webhook_url: null };
    if (!isRunning(monitor) || endpoint.status === "active") return { webhook_url: endpoint.url };
    return { webhook_url: endpoint.url, status: endpoint.status };
  }

  /** A new secret; under a request token a rotation it made before answers that one's secret again. */
  async rotateSecret(
    monitor: MonitorRecord,
    token: string | undefined,
  ): Promise<MonitorsRpcReply<"rotate_secret">> {
    const until = Date.now() + this.#settings.secretOverlapMs;
    const rotation = { secret: this.seal(newWebhookSecret()), until };
    const requested = token === undefined ? undefined : { token, ttlSeconds: REQUEST_TOKEN_SECONDS };
    const rotated = await this.#endpoints.rotate(monitor.id, rotation, requested);
    if (rotated === undefined) return refused("state_conflict", "the monitor has no webhook_url");
    return {
      ok: true,
      value: {
        webhook_secret: this.open(rotated.secret),
        previous_secret_expires_at: Math.floor(rotated.until / 1000),
      },
    };
  }

  async deliveries(monitor: MonitorRecord) {
    const records = await this.#outbox.log(monitor.id, LOG_PAGE, Date.now());
    return { deliveries: records.map(publicDelivery) };
  }

  /** Sends a test event now (one attempt, free) and logs it like any delivery. */
  async test(monitor: MonitorRecord): Promise<MonitorsRpcReply<"test">> {
    const endpoint = await this.#endpoints.endpoint(monitor.id);
    if (endpoint === undefined) return refused("state_conflict", "the monitor has no webhook_url");
    const sequence = await this.#endpoints.nextTestSequence(monitor.id);
    const record = newDelivery(
      testDeliveryIdOf(monitor.id, sequence),
      monitor.id,
      "monitor.test",
      [],
      Date.now(),
    );
    // Free: nothing was debited, so nothing is to go back.
    const test = { ...record, refunded: true };
    const sent = await this.#outbox.sendOnce(
      test,
      endpoint,
      attemptOptionsOf(this.#settings, TEST_TIMEOUT_MS),
    );
    return { ok: true, value: { delivery: publicDelivery(sent) } };
  }

  /**
   * Sends a logged batch again, with the same `webhook-id` (a new round, charged again once
   * accepted). The failed batch a failing monitor stopped at resumes the monitor.
   */
  /**
   * Under a request token, a redelivery it started before answers the batch as it is now; its new
   * round carries the token, written with the round.
   */
  async redeliver(
    monitor: MonitorRecord,
    deliveryId: string | undefined,
    token: string | undefined,
  ): Promise<MonitorsRpcReply<"redeliver">> {
    if (deliveryId === undefined || !MONITOR_DELIVERY_ID.test(deliveryId))
      return refused("resource_not_found", "delivery not found", "delivery_id");
    const record = await this.#outbox.delivery(monitor.id, deliveryId);
    if (record === undefined || record.owner !== monitor.id)
      return refused("resource_not_found", "delivery not found", "delivery_id");
    const now = Date.now();
    const sent = (delivery: DeliveryRecord) => ({
      ok: true as const,
      value: { delivery: publicDelivery(delivery) },
    });
    if (markedBy(record.request_tokens, token, now)) return sent(record);
    if (record.type === "monitor.test")
      return refused("state_conflict", "a test event is not redelivered: send another test");
    if ((await this.#endpoints.endpoint(monitor.id)) === undefined)
      return refused("state_conflict", "the monitor has no webhook_url");
    const next = { ...nextRound(record, now), request_tokens: withMark(record.request_tokens, token, now) };
    if (record.state === "failed" && (await this.#outbox.head(monitor.id)) === record.id) {
      await this.#resume(monitor, next);
      return sent(next);
    }
    if (record.state === "delivered" && (await this.#outbox.enqueue(next, true))) return sent(next);
    // The same redelivery under the same token, sent alongside, queued the round first.
    const current = await this.#outbox.delivery(monitor.id, deliveryId);
    if (current !== undefined && markedBy(current.request_tokens, token, now)) return sent(current);
    return refused("state_conflict", "the delivery is being sent already");
  }

  /**
   * A failing monitor goes on: the batch it stopped at starts a new round (`round`, a redelivery's
   * own, when it is that batch).
   */
  async #resume(monitor: MonitorRecord, round?: DeliveryRecord): Promise<void> {
    const endpoint = await this.#endpoints.endpoint(monitor.id);
    if (endpoint?.status !== "failing") return;
    const record = await this.#head(monitor.id);
    if (record?.state === "failed")
      await this.#outbox.rewrite(round?.id === record.id ? round : nextRound(record, Date.now()));
    await this.#endpoints.setStatus(monitor.id, "active");
  }

  /** The delivery first in the monitor's queue, if any. */
  async #head(monitorId: string): Promise<DeliveryRecord | undefined> {
    const head = await this.#outbox.head(monitorId);
    return head === null ? undefined : this.#outbox.delivery(monitorId, head);
  }

  async #newestItem(monitorId: string): Promise<string | null> {
    const newest = await this.#redis.xrevrange(this.#itemsKey(monitorId), "+", "-", "COUNT", 1);
    return newest[0]?.[0] ?? null;
  }

  #sealingKey(): Buffer {
    if (this.#settings.sealingKey === undefined) throw new Error("webhooks are not enabled");
    return this.#settings.sealingKey;
  }
}
