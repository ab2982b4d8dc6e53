/**
 * The client's monitor calls against the running gateway and monitors service: create, list, read,
 * change, pull page by page with `limit`, a refusal as a value, and delete; a webhook's test
 * event, delivery log, redelivery and new secret; and a create retried after its answer was lost,
 * under one `Idempotency-Key`, that makes one monitor.
 */

import { createGatewayClient, type GatewayClient } from "@rda/sdk";
import { waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningMonitors } from "../../services/monitors/src/index.ts";
import { type Stack, startStack } from "../support/stack.ts";
import { type Receiver, startMonitorsBeside, startReceiver } from "./monitor-webhooks.support.ts";

let stack: Stack;
let monitors: RunningMonitors;
let api: GatewayClient;
let keyId: string;
let receiver: Receiver;

beforeAll(async () => {
  stack = await startStack();
  // Webhooks to a loopback receiver allowed, as a test's receiver listens on 127.0.0.1.
  monitors = await startMonitorsBeside(stack);
  receiver = await startReceiver();
  const created = await stack.createKey({ credits: 50 });
  keyId = created.id;
  api = createGatewayClient({ baseUrl: stack.gatewayUrl, apiKey: created.key });
}, 120_000);
afterAll(async () => {
  await receiver?.stop();
  await monitors?.stop();
  await stack?.stop();
});

describe("monitors through the SDK", () => {
  it("creates, follows, pulls small pages in order, changes and deletes a monitor", async () => {
    const subreddit = stack.simulator.corpus.subreddits[0]!.name;
    // The estimate a create would answer, and nothing created.
    const estimate = await api.estimateMonitor({ kind: "post", subreddit, backfill_from: "3d" });
    if (!estimate.ok) throw new Error(estimate.error.message);
    expect(estimate.value.data.backfill_estimate.upstream_pages).toBeGreaterThan(0);
    expect(estimate.value._service.credits_used).toBe(0);
    expect(await api.listMonitors()).toMatchObject({ ok: true, value: { data: { monitors: [] } } });
    const created = await api.createMonitor({
      kind: "post",
      subreddit,
      backfill_from: "3d",
      interval_seconds: 60,
    });
    if (!created.ok) throw new Error(created.error.message);
    const { id } = created.value.data.monitor;
    expect(created.value._service.credits_used).toBe(0);
    await waitFor(async () => {
      const read = await api.getMonitor(id);
      return read.ok && read.value.data.monitor.status === "live";
    }, "the backfill");

    const first = await api.pullMonitorItems(id, { limit: 2 });
    if (!first.ok) throw new Error(first.error.message);
    expect(first.value.data.items).toHaveLength(2);
    expect(first.value._service.credits_used).toBe(1);
    const second = await api.pullMonitorItems(id, { cursor: first.value.data.cursor, limit: 2 });
    if (!second.ok) throw new Error(second.error.message);
    const whole = await api.pullMonitorItems(id, { limit: 4 });
    if (!whole.ok) throw new Error(whole.error.message);
    expect([...first.value.data.items, ...second.value.data.items]).toEqual(whole.value.data.items);

    // Each item counts once as pulled, however often a pull returns it again.
    const read = await api.getMonitor(id);
    expect(read.ok && read.value.data.monitor.items_pulled).toBe(4);
    expect(read.ok && read.value.data.monitor.items_collected).toBeGreaterThanOrEqual(4);
    const listed = await api.listMonitors();
    expect(listed.ok && listed.value.data.monitors.map((monitor) => monitor.id)).toEqual([id]);
    const changed = await api.updateMonitor(id, { paused: true });
    expect(changed.ok && changed.value.data.monitor.status).toBe("paused");
    const bad = await api.pullMonitorItems(id, { limit: 500 });
    expect(bad.ok ? undefined : bad.error).toMatchObject({ kind: "bad_request", status: 400 });
    expect((await api.deleteMonitor(id)).ok).toBe(true);
    const gone = await api.getMonitor(id);
    expect(gone.ok ? undefined : gone.error.status).toBe(404);
    await waitFor(async () => (await stack.balanceOf(keyId)) === 47, "three charged pages");
  }, 60_000);

  it("sends a test event, lists it in the delivery log, refuses an unknown redelivery and rotates the secret", async () => {
    const created = await api.createMonitor({
      kind: "comment",
      subreddit: stack.simulator.corpus.subreddits[0]!.name,
      webhook_url: receiver.url,
    });
    if (!created.ok) throw new Error(created.error.message);
    const { id } = created.value.data.monitor;
    const secret = created.value.data.webhook_secret;
    expect(secret).toMatch(/^whsec_/);

    const tested = await api.testMonitorWebhook(id);
    if (!tested.ok) throw new Error(tested.error.message);
    expect(tested.value.data.delivery).toMatchObject({ type: "monitor.test", state: "delivered" });
    expect(receiver.received.some((request) => request.body.includes('"monitor.test"'))).toBe(true);
    const log = await api.listMonitorDeliveries(id);
    if (!log.ok) throw new Error(log.error.message);
    expect(log.value.data.deliveries.map((delivery) => delivery.id)).toContain(tested.value.data.delivery.id);

    const unknown = await api.redeliverMonitorBatch(id, `msg_${id}_999`);
    expect(unknown.ok ? undefined : unknown.error.status).toBe(404);
    const rotated = await api.rotateMonitorWebhookSecret(id);
    if (!rotated.ok) throw new Error(rotated.error.message);
    expect(rotated.value.data.webhook_secret).toMatch(/^whsec_/);
    expect(rotated.value.data.webhook_secret).not.toBe(secret);
    expect(rotated.value._service.credits_used).toBe(0);
    expect((await api.deleteMonitor(id)).ok).toBe(true);
  }, 60_000);

  it("retries a create whose answer a proxy lost (503 after the gateway served it) under one Idempotency-Key: one monitor", async () => {
    const { key } = await stack.createKey({ credits: 5 });
    const served: { idempotencyKey: string | null; replayed: string | null; body: string }[] = [];
    // Stands for a proxy in front of the API whose wait for the gateway ran out: the gateway
    // served the first create, and the client was answered 503 with Retry-After instead.
    const throughLosingProxy: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (init?.method !== "POST" || !String(input).endsWith("/v1/monitors")) return response;
      const body = await response.text();
      served.push({
        idempotencyKey: new Headers(init.headers).get("idempotency-key"),
        replayed: response.headers.get("idempotent-replayed"),
        body,
      });
      if (served.length > 1)
        return new Response(body, { status: response.status, headers: response.headers });
      return new Response(JSON.stringify({ error: "no answer from upstream", code: "service_unavailable" }), {
        status: 503,
        headers: { "content-type": "application/json", "retry-after": "1" },
      });
    };
    const retrying = createGatewayClient({
      baseUrl: stack.gatewayUrl,
      apiKey: key,
      retry: { retries: 2 },
      fetch: throughLosingProxy,
    });
    const subreddit = stack.simulator.corpus.subreddits[0]!.name;
    const created = await retrying.createMonitor({ kind: "post", subreddit, interval_seconds: 60 });
    if (!created.ok) throw new Error(created.error.message);

    expect(served).toHaveLength(2);
    expect(served[0]?.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(served[1]?.idempotencyKey).toBe(served[0]?.idempotencyKey);
    // The retry was answered with the first, lost answer: the same monitor, not a second one.
    expect(served[1]?.replayed).toBe("true");
    const first = JSON.parse(served[0]!.body) as { data: { monitor: { id: string } } };
    expect(created.value.data.monitor.id).toBe(first.data.monitor.id);
    const listed = await retrying.listMonitors();
    expect(listed.ok && listed.value.data.monitors.map((monitor) => monitor.id)).toEqual([
      first.data.monitor.id,
    ]);
    expect((await retrying.deleteMonitor(first.data.monitor.id)).ok).toBe(true);
  }, 60_000);
});
