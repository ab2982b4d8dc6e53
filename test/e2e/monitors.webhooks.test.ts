/**
 * Monitors' webhook delivery over the whole stack (gateway, billing, adapters, portal and its mail
 * inbox, the upstream simulator), to real HTTP receivers that verify every signature with the
 * `standardwebhooks` package: batches in order and once, retries with the same `webhook-id` charged
 * once, following live after the backfill, a receiver that always fails refunded and its monitor
 * paused with an email, secret rotation, refused targets, and a key at zero balance pausing and
 * resuming without losing an item.
 */
import { randomBytes } from "node:crypto";
import { lookup } from "node:dns/promises";
import { hostname } from "node:os";
import { topUpReplySchema } from "@rda/contracts";
import { isPublicAddress, requestJson } from "@rda/service-kit";
import { testNatsUrl, testRedisUrl, waitFor } from "@rda/service-kit/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { monitorKeys, type RunningMonitors } from "../../services/monitors/src/index.ts";
import { BrowserlessClient } from "../../services/portal/test/support/client.ts";
import { spawnService } from "../support/service-processes.ts";
import { type Stack, startStack } from "../support/stack.ts";
import { verifyLedger } from "./exports.support.ts";
import {
  batchesReceived,
  call,
  deliveriesOf,
  FAST_WEBHOOKS,
  pullAll,
  type Receiver,
  SEALING_KEY,
  startConnectionCounter,
  startMonitorsBeside,
  startReceiver,
  statusOf,
  verified,
  waitForAllDelivered,
} from "./monitor-webhooks.support.ts";

let stack: Stack;
let monitors: RunningMonitors | undefined;
/** How far the simulator's clock is ahead of ours: moving it makes the posts of those hours appear. */
let simulatorAheadMs = 0;
const simulatorNow = () => Date.now() + simulatorAheadMs;
const receivers: Receiver[] = [];

beforeAll(async () => {
  stack = await startStack({
    portal: true,
    defaultRateLimit: { qps: 10_000, burst: 10_000 },
    simulator: { clock: simulatorNow },
  });
}, 90_000);

afterEach(async () => {
  await monitors?.stop();
  monitors = undefined;
  for (const receiver of receivers.splice(0)) await receiver.stop();
});

afterAll(async () => {
  await stack?.stop();
});

async function receiver(): Promise<Receiver> {
  const started = await startReceiver();
  receivers.push(started);
  return started;
}

const DAY = 86_400;

/** Communities by how many posts they had in the `days` before `now`, busiest first. */
function busiest(days: number, now = Math.floor(simulatorNow() / 1000)): { name: string; posts: number }[] {
  const { corpus } = stack.simulator;
  const counts = new Map<string, number>();
  for (let post = 0; post < corpus.posts.count; post += 1) {
    const created = corpus.anchor + (corpus.posts.created[post] as number);
    if (created > now - days * DAY && created <= now) {
      const name = corpus.subreddits[corpus.posts.sub[post] as number]!.name;
      counts.set(name, (counts.get(name) ?? 0) + 1);
    }
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([name, posts]) => ({ name, posts }));
}

async function createMonitor(key: string, body: Record<string, unknown>) {
  const created = await call(stack, key, "POST", "/v1/monitors", {
    kind: "post",
    interval_seconds: 1,
    ...body,
  });
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  return created.json.data as { monitor: { id: string }; webhook_secret: string };
}

describe("webhook delivery", () => {
  it("delivers a 30-day backfill in signed batches of at most 100, in order and exactly once, 1 credit a batch", async () => {
    monitors = await startMonitorsBeside(stack);
    const hooks = await receiver();
    const owner = await stack.createKey({ credits: 1_000, qps: 10_000, burst: 10_000 });
    const source = busiest(30).find((community) => community.posts > 100) ?? busiest(30)[0]!;
    const created = await createMonitor(owner.key, {
      subreddit: source.name,
      backfill_from: "30d",
      webhook_url: hooks.url,
    });
    expect(created.webhook_secret).toMatch(/^whsec_/);
    const { id } = created.monitor;
    const shown = await call(stack, owner.key, "GET", `/v1/monitors/${id}`);
    expect(shown.json.data.monitor.webhook_url).toBe(hooks.url);
    expect(JSON.stringify(shown.json)).not.toContain(created.webhook_secret);

    const log = await waitForAllDelivered(stack, owner.key, id);
    const batches = batchesReceived(created.webhook_secret, hooks.received);
    expect(batches.length).toBe(log.length);
    expect(hooks.received.length).toBe(log.length); // every batch accepted at its first attempt
    for (const batch of batches) expect(batch.data.items.length).toBeLessThanOrEqual(100);
    const delivered = batches.flatMap((batch) => batch.data.items.map((item) => item.id));
    expect(new Set(delivered).size).toBe(delivered.length);
    expect(await stack.balanceOf(owner.id)).toBe(1_000 - log.length);
    // Delivered by webhook, not pulled: the monitor says so.
    const counted = await call(stack, owner.key, "GET", `/v1/monitors/${id}`);
    expect(counted.json.data.monitor.items_pulled).toBe(0);
    expect(counted.json.data.monitor.items_collected).toBe(delivered.length);

    const held = await pullAll(stack, owner.key, id);
    expect(delivered).toEqual(held.map((item) => item.id));
    const times = batches.flatMap((batch) => batch.data.items.map((item) => item.created_utc));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(held.length).toBeGreaterThan(0);
    await call(stack, owner.key, "DELETE", `/v1/monitors/${id}`);
  }, 120_000);

  it("follows live after the backfill: posts that appear later come in new signed batches, once and in order", async () => {
    monitors = await startMonitorsBeside(stack);
    const hooks = await receiver();
    const owner = await stack.createKey({ credits: 1_000, qps: 10_000, burst: 10_000 });
    // The community with the most posts in the hours to come, so the live part is not empty.
    const later = 6 * 3600;
    const source = busiest(later / DAY, Math.floor(simulatorNow() / 1000) + later)[0]!;
    const created = await createMonitor(owner.key, {
      subreddit: source.name,
      backfill_from: "1d",
      webhook_url: hooks.url,
    });
    const { id } = created.monitor;
    await waitForAllDelivered(stack, owner.key, id);
    const backfilled = batchesReceived(created.webhook_secret, hooks.received).flatMap((batch) =>
      batch.data.items.map((item) => item.id),
    );

    simulatorAheadMs += later * 1000;
    const held = () => stack.redis.xlen(monitorKeys(stack.namespace).items(id));
    await waitFor(async () => (await held()) > backfilled.length || undefined, "the live posts", 90_000);
    const log = await waitForAllDelivered(stack, owner.key, id, 90_000);
    const batches = batchesReceived(created.webhook_secret, hooks.received);
    const delivered = batches.flatMap((batch) => batch.data.items.map((item) => item.id));
    expect(delivered.slice(0, backfilled.length)).toEqual(backfilled);
    expect(delivered.length).toBeGreaterThan(backfilled.length);
    expect(new Set(delivered).size).toBe(delivered.length);
    const times = batches.flatMap((batch) => batch.data.items.map((item) => item.created_utc));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect((await pullAll(stack, owner.key, id)).map((item) => item.id)).toEqual(delivered);
    expect(await stack.balanceOf(owner.id)).toBe(1_000 - log.length - Math.ceil(delivered.length / 100));
    await call(stack, owner.key, "DELETE", `/v1/monitors/${id}`);
  }, 240_000);

  it("sends a batch its receiver refused 3 times again with the same webhook-id, and charges it once", async () => {
    monitors = await startMonitorsBeside(stack);
    const hooks = await receiver();
    hooks.answer = (n) => (n < 3 ? 500 : 204);
    const owner = await stack.createKey({ credits: 100, qps: 10_000, burst: 10_000 });
    const source = busiest(3)[1]!;
    const created = await createMonitor(owner.key, {
      subreddit: source.name,
      backfill_from: "3d",
      webhook_url: hooks.url,
    });
    const log = await waitForAllDelivered(stack, owner.key, created.monitor.id);
    const first = hooks.received.slice(0, 4);
    const ids = first.map((request) => request.headers["webhook-id"]);
    expect(new Set(ids).size).toBe(1);
    const bodies = first.map((request) => verified(created.webhook_secret, request));
    for (const body of bodies) expect(body.data.items).toEqual(bodies[0]!.data.items);
    const retried = log.find((delivery) => delivery.id === ids[0])!;
    expect(retried.attempts.map((attempt) => attempt.status_code)).toEqual([500, 500, 500, 204]);
    for (const attempt of retried.attempts) expect(attempt.latency_ms).toBeGreaterThanOrEqual(0);
    expect(await stack.balanceOf(owner.id)).toBe(100 - log.length);
    await call(stack, owner.key, "DELETE", `/v1/monitors/${created.monitor.id}`);
  }, 120_000);

  it("refunds a batch whose receiver always fails, pauses the monitor as failing and emails its account holder", async () => {
    monitors = await startMonitorsBeside(stack, { ...FAST_WEBHOOKS, retryWindowMs: 1_500 });
    const hooks = await receiver();
    hooks.answer = () => 503;
    const portal = stack.portal!;
    const email = `hooks-${randomBytes(4).toString("hex")}@example.com`;
    const client = new BrowserlessClient(portal.url);
    await client.signUp(email, portal.inbox);
    const { id: keyId, secret } = await client.createKey("hooks");
    const before = await stack.balanceOf(keyId);
    const created = await createMonitor(secret, {
      subreddit: busiest(3)[0]!.name,
      backfill_from: "3d",
      webhook_url: hooks.url,
    });
    const { id } = created.monitor;
    await waitFor(
      async () => (await statusOf(stack, secret, id)) === "failing",
      "the monitor to pause",
      60_000,
    );
    const [failed] = (await deliveriesOf(stack, secret, id)).filter((d) => d.type === "monitor.items");
    expect(failed?.state).toBe("failed");
    expect(failed?.attempts.length).toBeGreaterThanOrEqual(2);
    expect(failed?.attempts.every((attempt) => attempt.status_code === 503)).toBe(true);
    expect(await stack.balanceOf(keyId)).toBe(before);
    const mails = await portal.inbox.waitForMessages(email, 2);
    expect(mails.some((mail) => /webhook kept failing/.test(mail.subject ?? ""))).toBe(true);

    // Fixed: redelivering the failed batch resumes the monitor, and that batch is charged once.
    const sentBefore = hooks.received.length;
    hooks.answer = () => 200;
    const again = await call(stack, secret, "POST", `/v1/monitors/${id}/deliveries/${failed!.id}/redeliver`);
    expect(again.status).toBe(202);
    const log = await waitForAllDelivered(stack, secret, id);
    expect(hooks.received[sentBefore]?.headers["webhook-id"]).toBe(failed!.id);
    expect(await stack.balanceOf(keyId)).toBe(before - log.length);
    expect(await verifyLedger(stack)).toMatchObject({ ok: true });
    await call(stack, secret, "DELETE", `/v1/monitors/${id}`);
  }, 120_000);

  it("refunds the batch in flight when its monitor is deleted", async () => {
    monitors = await startMonitorsBeside(stack);
    const hooks = await receiver();
    hooks.hold();
    const owner = await stack.createKey({ credits: 10, qps: 10_000, burst: 10_000 });
    const created = await createMonitor(owner.key, {
      subreddit: busiest(3)[0]!.name,
      backfill_from: "3d",
      webhook_url: hooks.url,
    });
    await waitFor(() => hooks.received.length > 0, "the first batch in flight", 60_000);
    expect(await stack.balanceOf(owner.id)).toBe(9);
    expect((await call(stack, owner.key, "DELETE", `/v1/monitors/${created.monitor.id}`)).status).toBe(200);
    expect(await stack.balanceOf(owner.id)).toBe(10);
    hooks.release();
    await monitors.stop();
    monitors = undefined;
    expect(await stack.balanceOf(owner.id)).toBe(10);
    expect(await verifyLedger(stack)).toMatchObject({ ok: true });
  }, 90_000);

  it("signs with both secrets during a rotation's overlap, and logs test events", async () => {
    monitors = await startMonitorsBeside(stack);
    const hooks = await receiver();
    const owner = await stack.createKey({ credits: 10, qps: 10_000, burst: 10_000 });
    const created = await createMonitor(owner.key, {
      subreddit: busiest(3)[0]!.name,
      webhook_url: hooks.url,
    });
    const { id } = created.monitor;
    const first = await call(stack, owner.key, "POST", `/v1/monitors/${id}/test`);
    expect(first.status).toBe(200);
    expect(first.json.data.delivery).toMatchObject({ type: "monitor.test", state: "delivered" });
    expect(verified(created.webhook_secret, hooks.received[0]!).type).toBe("monitor.test");

    const rotated = await call(stack, owner.key, "POST", `/v1/monitors/${id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    const next = rotated.json.data.webhook_secret as string;
    expect(next).toMatch(/^whsec_/);
    expect(next).not.toBe(created.webhook_secret);
    await call(stack, owner.key, "POST", `/v1/monitors/${id}/test`);
    const during = hooks.received[1]!;
    expect(String(during.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    expect(verified(next, during).type).toBe("monitor.test");
    expect(verified(created.webhook_secret, during).type).toBe("monitor.test");

    const log = await deliveriesOf(stack, owner.key, id);
    expect(log.map((delivery) => delivery.type)).toEqual(["monitor.test", "monitor.test"]);
    expect(log[0]!.attempts[0]).toMatchObject({ status_code: 204, error: null });
    expect(await stack.balanceOf(owner.id)).toBe(10);
    await call(stack, owner.key, "DELETE", `/v1/monitors/${id}`);
  }, 60_000);

  it("refuses private, loopback, link-local and metadata targets in production, and follows no redirect", async () => {
    monitors = await startMonitorsBeside(stack, { ...FAST_WEBHOOKS, allowLoopback: false });
    const owner = await stack.createKey({ credits: 10, qps: 10_000, burst: 10_000 });
    const subreddit = busiest(3)[0]!.name;
    const counter = await startConnectionCounter();
    try {
      for (const url of [
        `http://127.0.0.1:${counter.port}/hooks`,
        `https://127.0.0.1:${counter.port}/hooks`,
        "https://10.0.0.1/hooks",
        "https://169.254.169.254/latest/meta-data",
        `https://[::1]:${counter.port}/hooks`,
        "http://example.com/hooks",
      ]) {
        const refused = await call(stack, owner.key, "POST", "/v1/monitors", {
          kind: "post",
          subreddit,
          webhook_url: url,
        });
        expect(refused.status, url).toBe(400);
        expect(refused.json.error, url).toMatch(/^webhook_url: must/);
      }
      // A name that resolves to a non-public address (this machine's own name) passes the form
      // check, and is refused after DNS at each attempt.
      const name = hostname();
      expect(isPublicAddress((await lookup(name)).address)).toBe(false);
      const created = await createMonitor(owner.key, {
        subreddit,
        webhook_url: `https://${name}:${counter.port}/hooks`,
      });
      const test = await call(stack, owner.key, "POST", `/v1/monitors/${created.monitor.id}/test`);
      expect(test.json.data.delivery.state).toBe("failed");
      expect(test.json.data.delivery.attempts[0].error).toMatch(/non-public address/);
      expect(counter.count()).toBe(0);
      await call(stack, owner.key, "DELETE", `/v1/monitors/${created.monitor.id}`);
    } finally {
      await counter.stop();
    }
    await monitors.stop();

    // Redirects: only reachable with the local-development switch, and still never followed.
    monitors = await startMonitorsBeside(stack);
    const hooks = await receiver();
    const target = await receiver();
    hooks.answer = () => ({ status: 307, location: target.url });
    const created = await createMonitor(owner.key, { subreddit, webhook_url: hooks.url });
    const test = await call(stack, owner.key, "POST", `/v1/monitors/${created.monitor.id}/test`);
    expect(test.json.data.delivery.attempts[0]).toMatchObject({ status_code: 307 });
    expect(test.json.data.delivery.state).toBe("failed");
    expect(target.received).toHaveLength(0);
    await call(stack, owner.key, "DELETE", `/v1/monitors/${created.monitor.id}`);
  }, 60_000);

  it("pauses for credits at zero balance keeping its place, and after a top-up delivers every item in order", async () => {
    monitors = await startMonitorsBeside(stack);
    const hooks = await receiver();
    const owner = await stack.createKey({ credits: 1, qps: 10_000, burst: 10_000 });
    const source = busiest(30).find((community) => community.posts > 100) ?? busiest(30)[0]!;
    const created = await createMonitor(owner.key, {
      subreddit: source.name,
      backfill_from: "30d",
      webhook_url: hooks.url,
    });
    const { id } = created.monitor;
    await waitFor(
      async () => (await statusOf(stack, owner.key, id)) === "paused_for_credits",
      "the monitor to pause for credits",
      60_000,
    );
    expect(await stack.balanceOf(owner.id)).toBe(0);
    const sentWhilePaused = batchesReceived(created.webhook_secret, hooks.received).length;
    expect(sentWhilePaused).toBe(1);

    const topUp = await requestJson(
      stack.nats,
      stack.subjects.billing.topUp,
      { id: owner.id, usd_cents: 500, request_id: `topup-${id}` },
      topUpReplySchema,
      5_000,
    );
    if (!topUp.ok || topUp.value.outcome !== "ok")
      throw new Error(`top-up refused: ${JSON.stringify(topUp)}`);
    // The balance the top-up made, from its own answer: the paused monitor asks billing again on its
    // own schedule and may already have paid its next batch before a separate read of the balance.
    const toppedUp = topUp.value.credits_balance;
    expect(toppedUp).toBe(topUp.value.credits_added);
    const log = await waitForAllDelivered(stack, owner.key, id);
    const batches = batchesReceived(created.webhook_secret, hooks.received);
    expect(batches).toHaveLength(log.length);
    expect(await stack.balanceOf(owner.id)).toBe(toppedUp - (log.length - 1));
    const delivered = batches.flatMap((batch) => batch.data.items.map((item) => item.id));
    expect(delivered).toEqual((await pullAll(stack, owner.key, id)).map((item) => item.id));
    await call(stack, owner.key, "DELETE", `/v1/monitors/${id}`);
  }, 120_000);

  it("tells its account holder once each of the low balance, 80 % and 100 % of the cap its batches cross, and once of its pause", async () => {
    monitors = await startMonitorsBeside(stack);
    const hooks = await receiver();
    const portal = stack.portal!;
    const email = `paused-${randomBytes(4).toString("hex")}@example.com`;
    const client = new BrowserlessClient(portal.url);
    await client.signUp(email, portal.inbox);
    const { id: keyId, secret } = await client.createKey("spender");
    // The first batch takes the balance under the threshold and the month's spend to its cap of 1.
    const balance = await stack.balanceOf(keyId);
    await client.submit("/notifications", "/notifications/threshold", {
      low_balance_threshold: `${balance}`,
    });
    await client.submit(`/keys/${keyId}`, `/keys/${keyId}/cap`, { monthly_cap: "1" });
    const source = busiest(30).find((community) => community.posts > 100) ?? busiest(30)[0]!;
    const created = await createMonitor(secret, {
      subreddit: source.name,
      backfill_from: "30d",
      webhook_url: hooks.url,
    });
    const { id } = created.monitor;
    await waitFor(
      async () => (await statusOf(stack, secret, id)) === "paused_for_credits",
      "the monitor to pause at its cap",
      60_000,
    );
    expect(await stack.balanceOf(keyId)).toBe(balance - 1);
    const expected = [
      `Key ${keyId} is below`,
      `Key ${keyId} spent 80 % of its monthly spend cap`,
      `Key ${keyId} reached its monthly spend cap`,
      `Monitor ${id} paused: key ${keyId} reached its monthly spend cap`,
    ];
    const notices = (await portal.inbox.waitForMessages(email, 1 + expected.length, 30_000)).slice(1);
    for (const start of expected)
      expect(
        notices.filter((mail) => mail.subject?.startsWith(start)),
        start,
      ).toHaveLength(1);
    // The paused monitor keeps asking billing (every 300 ms here): once it asked twice more, a
    // test notice asked for now is the next and last message: nothing was told twice.
    const nextAttempt = async () =>
      (await deliveriesOf(stack, secret, id)).find((delivery) => delivery.state === "pending")
        ?.next_attempt_at;
    for (let asks = 0, last = await nextAttempt(); asks < 2; asks += 1)
      last = await waitFor(async () => {
        const next = await nextAttempt();
        return next !== last ? next : undefined;
      }, "the paused monitor to ask billing again");
    await client.submit("/notifications", "/notifications/test", {});
    const all = await portal.inbox.waitForMessages(email, 2 + expected.length, 30_000);
    expect(all.at(-1)!.subject).toBe("A test notice from the Reddit Data API");
    expect(all).toHaveLength(2 + expected.length);
    await call(stack, secret, "DELETE", `/v1/monitors/${id}`);
  }, 120_000);

  it("loses nothing and charges nothing twice when a replica is killed (-9) mid-delivery; the ledger verifies", async () => {
    const crashing = spawnService(
      "monitors",
      {
        ...process.env,
        RDA_NAMESPACE: stack.namespace,
        NATS_URL: testNatsUrl(),
        REDIS_URL: testRedisUrl(),
        HEALTH_PORT: "0",
        METRICS_PORT: "0",
        LOG_LEVEL: "info",
        MONITOR_MIN_INTERVAL_SECONDS: "1",
        WEBHOOK_SEALING_KEY: SEALING_KEY.toString("base64"),
        WEBHOOKS_ALLOW_LOOPBACK: "1",
        MONITOR_WEBHOOK_TIMEOUT_MS: "30000",
      },
      {
        entry: "services/monitors/test/support/replica-main.ts",
        args: [JSON.stringify({ tickMs: 100, leaseMs: 1_500, webhooks: { tickMs: 100, leaseMs: 1_500 } })],
      },
    );
    try {
      await crashing.waitForLine(/monitors ready/);
      expect(crashing.lines().some((line) => /WEBHOOKS_ALLOW_LOOPBACK is on/.test(line))).toBe(true);
      const hooks = await receiver();
      hooks.hold();
      const owner = await stack.createKey({ credits: 1_000, qps: 10_000, burst: 10_000 });
      const source = busiest(30).find((community) => community.posts > 100) ?? busiest(30)[0]!;
      const created = await createMonitor(owner.key, {
        subreddit: source.name,
        backfill_from: "30d",
        webhook_url: hooks.url,
      });
      await waitFor(() => hooks.received.length > 0, "the first batch in flight", 60_000);
      crashing.child.kill("SIGKILL");
      await new Promise((resolve) => crashing.child.once("exit", resolve));
      hooks.release();

      monitors = await startMonitorsBeside(stack);
      const log = await waitForAllDelivered(stack, owner.key, created.monitor.id);
      const inFlight = hooks.received[0]!.headers["webhook-id"];
      expect(hooks.received[1]?.headers["webhook-id"]).toBe(inFlight);
      const batches = batchesReceived(created.webhook_secret, hooks.received);
      expect(batches).toHaveLength(log.length);
      expect(await stack.balanceOf(owner.id)).toBe(1_000 - log.length);
      expect(await verifyLedger(stack)).toMatchObject({ ok: true });
      const delivered = batches.flatMap((batch) => batch.data.items.map((item) => item.id));
      expect(delivered).toEqual((await pullAll(stack, owner.key, created.monitor.id)).map((item) => item.id));
      await call(stack, owner.key, "DELETE", `/v1/monitors/${created.monitor.id}`);
    } finally {
      await crashing.stop();
    }
  }, 120_000);
});
