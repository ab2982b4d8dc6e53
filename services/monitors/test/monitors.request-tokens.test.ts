/**
 * A create, a new secret and a redelivery sent again with the same request token (what the gateway
 * sends for a request under `Idempotency-Key`, docs/api.md#idempotency) are done once, over real
 * NATS and Redis: the second is answered with what the first made (the same monitor and webhook
 * secret, the same new secret, the same round), whether it arrives alongside the first or after it,
 * and another token is another command.
 */
import { randomBytes } from "node:crypto";
import { openSecret, WebhookOutbox } from "@rda/webhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { monitorKeys, webhookKeys } from "../src/index.ts";
import { type DeliveryRecord, deliveryIdOf, newDelivery } from "../src/webhooks/delivery-record.ts";
import { WebhookEndpoints } from "../src/webhooks/webhook-endpoints.ts";
import { attemptOptionsOf, DEFAULT_WEBHOOK_SETTINGS } from "../src/webhooks/webhook-settings.ts";
import { type Harness, startHarness } from "./harness.ts";
import { startReceiver } from "./support/fake-delivery.ts";

const SEALING_KEY = Buffer.alloc(32, 7);
const WEBHOOKS = { ...DEFAULT_WEBHOOK_SETTINGS, sealingKey: SEALING_KEY, allowLoopback: true };
const KEY_ID = "key_tokens0000000000";

let harness: Harness;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  harness = await startHarness();
  receiver = await startReceiver(200);
  await harness.startReplica({ webhooks: WEBHOOKS });
}, 60_000);

afterAll(async () => {
  await harness?.stop();
  await receiver?.stop();
});

const newToken = () => randomBytes(32).toString("hex");
/** A live monitor (no backfill) with a webhook: nothing arrives unless the simulator's clock moves. */
const definition = () => ({
  kind: "post",
  subreddit: harness.simulator.corpus.subreddits[0]!.name,
  interval_seconds: 60,
  webhook_url: receiver.url,
});

// biome-ignore lint/suspicious/noExplicitAny: the test reads each answer's fields as the API documents them
async function ask(action: Parameters<Harness["ask"]>[0], request: Record<string, unknown>): Promise<any> {
  const answer = await harness.ask(action, { key_id: KEY_ID, ...request });
  if (!answer.ok) throw new Error(`monitors.${action}: ${answer.status} ${answer.error}`);
  return answer.value;
}

async function listed(): Promise<string[]> {
  return (await ask("list", {})).monitors.map((monitor: { id: string }) => monitor.id);
}

describe("a command sent again with its request token", () => {
  it("creates one monitor for a create sent twice at once and again later, with the same webhook secret", async () => {
    const before = await listed();
    const token = newToken();
    const create = () => ask("create", { body: definition(), request_token: token });
    const [first, second] = await Promise.all([create(), create()]);
    const again = await create();
    expect(second.monitor.id).toBe(first.monitor.id);
    expect(again.monitor.id).toBe(first.monitor.id);
    expect(first.webhook_secret).toMatch(/^whsec_/);
    expect(second.webhook_secret).toBe(first.webhook_secret);
    expect(again.webhook_secret).toBe(first.webhook_secret);
    expect(again.backfill_estimate).toEqual(first.backfill_estimate);
    expect(await listed()).toEqual([...before, first.monitor.id]);
    // What the token keeps holds the secret sealed only: a copy of Redis reveals none.
    const kept = await harness.redis.get(monitorKeys(harness.namespace).requested(KEY_ID, token));
    expect(kept).toContain(first.monitor.id);
    expect(kept).not.toContain(first.webhook_secret);

    const other = await ask("create", { body: definition(), request_token: newToken() });
    expect(other.monitor.id).not.toBe(first.monitor.id);
    expect(other.webhook_secret).not.toBe(first.webhook_secret);
    expect(await listed()).toEqual([...before, first.monitor.id, other.monitor.id]);
  });

  it("answers a create whose monitor was deleted since with 409 state_conflict, creating none", async () => {
    const token = newToken();
    const { monitor } = await ask("create", { body: definition(), request_token: token });
    await ask("delete", { id: monitor.id });
    const before = await listed();
    const answer = await harness.ask("create", { key_id: KEY_ID, body: definition(), request_token: token });
    expect(answer).toMatchObject({ ok: false, status: 409, code: "state_conflict" });
    expect(await listed()).toEqual(before);
  });

  it("rotates the secret once for a rotation sent twice at once and again later: the same new secret", async () => {
    const created = await ask("create", { body: definition() });
    const id = created.monitor.id;
    const token = newToken();
    const rotate = () => ask("rotate_secret", { id, request_token: token });
    const [first, second] = await Promise.all([rotate(), rotate()]);
    const again = await rotate();
    expect(first.webhook_secret).not.toBe(created.webhook_secret);
    expect(second).toEqual(first);
    expect(again).toEqual(first);
    // Rotated once: the secret before it is the one the create made, and it still signs.
    const endpoint = await harness.redis.hgetall(webhookKeys(harness.namespace).endpoint(id));
    expect(openSecret(SEALING_KEY, endpoint.secret!)).toBe(first.webhook_secret);
    expect(openSecret(SEALING_KEY, endpoint.previous_secret!)).toBe(created.webhook_secret);

    const next = await ask("rotate_secret", { id, request_token: newToken() });
    expect(next.webhook_secret).not.toBe(first.webhook_secret);
    const after = await harness.redis.hgetall(webhookKeys(harness.namespace).endpoint(id));
    expect(openSecret(SEALING_KEY, after.previous_secret!)).toBe(first.webhook_secret);
  });

  it("starts one new round for a redelivery sent twice at once and again later", async () => {
    const { monitor } = await ask("create", { body: definition() });
    const keys = webhookKeys(harness.namespace);
    const outbox = new WebhookOutbox<DeliveryRecord>(harness.redis, keys);
    const endpoint = await new WebhookEndpoints(harness.redis, keys, outbox).endpoint(monitor.id);
    if (endpoint === undefined) throw new Error("the monitor's webhook was not set up");
    // A batch the receiver accepted, logged as the delivery loop leaves it.
    const batch = newDelivery(
      deliveryIdOf(monitor.id, 1),
      monitor.id,
      "monitor.items",
      [{ id: "t3_a" }],
      Date.now(),
    );
    const delivered = await outbox.sendOnce(
      { ...batch, debited_round: 0 },
      endpoint,
      attemptOptionsOf(WEBHOOKS),
    );
    expect(delivered.state).toBe("delivered");

    const token = newToken();
    const redeliver = () => ask("redeliver", { id: monitor.id, delivery_id: batch.id, request_token: token });
    const [first, second] = await Promise.all([redeliver(), redeliver()]);
    const again = await redeliver();
    for (const answer of [first, second, again]) expect(answer.delivery.id).toBe(batch.id);
    expect((await outbox.delivery(monitor.id, batch.id))?.round).toBe(1);
    expect(await harness.redis.lrange(keys.queue(monitor.id), 0, -1)).toEqual([batch.id]);
  });
});
