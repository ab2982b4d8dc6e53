/**
 * A monitor's webhook as the API manages it: setting the receiver (its URL checked for safety, a
 * new secret made, sealed and shown once), changing or removing it, rotating the secret (the old one
 * still signs during the overlap), the status it gives the monitor, sending a test event, and
 * redelivering a batch. The API (api.ts) calls these; the delivery loop sends.
 */
import { MONITOR_DELIVERY_ID, type MonitorsRpcReply, monitorRefusal as refused } from "@rda/contracts";
import type { Logger, Redis } from "@rda/service-kit";
import { newWebhookSecret, sealSecret, urlProblem, type WebhookOutbox } from "@rda/webhooks";
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
  async configure(monitor: MonitorRecord, url: string, fromStart: boolean): Promise<string> {
    const key = this.#sealingKey();
    const secret = newWebhookSecret();
    const cursor = fromStart ? null : await this.#newestItem(monitor.id);
    await this.#endpoints.configure(monitor.id, url, sealSecret(key, secret), cursor);
    return secret;
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

  async rotateSecret(monitor: MonitorRecord): Promise<MonitorsRpcReply<"rotate_secret">> {
    const endpoint = await this.#endpoints.endpoint(monitor.id);
    if (endpoint === undefined) return refused("state_conflict", "the monitor has no webhook_url");
    const secret = newWebhookSecret();
    const until = Date.now() + this.#settings.secretOverlapMs;
    await this.#endpoints.rotate(monitor.id, sealSecret(this.#sealingKey(), secret), endpoint.secret, until);
    return {
      ok: true,
      value: { webhook_secret: secret, previous_secret_expires_at: Math.floor(until / 1000) },
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
  async redeliver(
    monitor: MonitorRecord,
    deliveryId: string | undefined,
  ): Promise<MonitorsRpcReply<"redeliver">> {
    if (deliveryId === undefined || !MONITOR_DELIVERY_ID.test(deliveryId))
      return refused("resource_not_found", "delivery not found", "delivery_id");
    const record = await this.#outbox.delivery(monitor.id, deliveryId);
    if (record === undefined || record.owner !== monitor.id)
      return refused("resource_not_found", "delivery not found", "delivery_id");
    if (record.type === "monitor.test")
      return refused("state_conflict", "a test event is not redelivered: send another test");
    if ((await this.#endpoints.endpoint(monitor.id)) === undefined)
      return refused("state_conflict", "the monitor has no webhook_url");
    if (record.state === "failed" && (await this.#outbox.head(monitor.id)) === record.id) {
      await this.#resume(monitor);
      return { ok: true, value: { delivery: publicDelivery(nextRound(record, Date.now())) } };
    }
    if (record.state !== "delivered" || !(await this.#outbox.enqueue(nextRound(record, Date.now()), true)))
      return refused("state_conflict", "the delivery is being sent already");
    return { ok: true, value: { delivery: publicDelivery(nextRound(record, Date.now())) } };
  }

  /** A failing monitor goes on: the batch it stopped at starts a new round. */
  async #resume(monitor: MonitorRecord): Promise<void> {
    const endpoint = await this.#endpoints.endpoint(monitor.id);
    if (endpoint?.status !== "failing") return;
    const record = await this.#head(monitor.id);
    if (record?.state === "failed") await this.#outbox.rewrite(nextRound(record, Date.now()));
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
