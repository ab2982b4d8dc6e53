/**
 * The monitors service's identities as shipped (deploy/nats/auth.conf, deploy/redis/users.acl): on a
 * private nats-server and redis-server with the real configuration, the service does its whole job
 * as its own NATS and Redis user (serving the gateway's requests, asking adapter-posts, keeping its
 * sources' leases in its key-value bucket, its monitors in its Redis family), and is refused
 * everything else: billing's subjects, serving the adapters, deleting its bucket, the ledger's keys.
 * The portal's identity is refused every monitors subject: its pages are the gateway's clients.
 */

import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import { buildSubjects, MONITORS_RPC, type MonitorAction } from "@rda/contracts";
import { connectNats, type NatsConnection, openRedis, type Redis, requestJson } from "@rda/service-kit";
import { silentLogger, waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAdapterPosts } from "../../services/adapter-posts/src/index.ts";
import { type RunningMonitors, startMonitors } from "../../services/monitors/src/index.ts";
import { type RunningSimulator, startSimulator } from "../../services/upstream-sim/src/index.ts";
import {
  NATS_IDENTITIES,
  type NatsIdentityName,
  newPassword,
  REDIS_USERS,
  type RedisUserName,
  type ShippedServer,
  startShippedNats,
  startShippedRedis,
} from "../support/shipped-servers.ts";

const subjects = buildSubjects("");
const logger = silentLogger();
const natsPasswords = Object.fromEntries(
  Object.keys(NATS_IDENTITIES).map((user) => [user, newPassword()]),
) as Record<NatsIdentityName, string>;
const redisPasswords = Object.fromEntries(
  Object.keys(REDIS_USERS).map((user) => [user, newPassword()]),
) as Record<RedisUserName, string>;

let nats: ShippedServer;
let redisServer: ShippedServer;
let simulator: RunningSimulator;
let monitors: RunningMonitors;
const stoppers: (() => Promise<unknown>)[] = [];

async function natsAs(user: NatsIdentityName): Promise<NatsConnection> {
  const connection = await connectNats(nats.url, user, logger, { user, password: natsPasswords[user] });
  stoppers.push(() => connection.close());
  return connection;
}

async function redisAs(user: RedisUserName): Promise<Redis> {
  const url = redisServer.url.replace("redis://", `redis://${user}:${redisPasswords[user]}@`);
  const client = await openRedis(url, user, logger);
  stoppers.push(async () => client.disconnect());
  return client;
}

let gateway: NatsConnection;
let monitorsNats: NatsConnection;
const ask = async (action: MonitorAction, payload: unknown) => {
  const answer = await requestJson(
    gateway,
    subjects.monitors[action],
    payload,
    MONITORS_RPC[action].reply,
    15_000,
  );
  if (!answer.ok) throw new Error(answer.error.message);
  return answer.value;
};

beforeAll(async () => {
  nats = await startShippedNats(natsPasswords);
  redisServer = await startShippedRedis(redisPasswords);
  simulator = await startSimulator({ seed: 42 });
  const adapter = await startAdapterPosts({
    nats: await natsAs("adapter-posts"),
    subjects,
    upstreamUrl: simulator.url,
    logger,
  });
  stoppers.push(() => adapter.stop());
  monitorsNats = await natsAs("monitors");
  monitors = await startMonitors({
    nats: monitorsNats,
    redis: await redisAs("monitors"),
    namespace: "",
    subjects,
    logger,
    settings: {
      tickMs: 100,
      webhooks: { sealingKey: randomBytes(32), allowLoopback: true, tickMs: 100, creditsRetryMs: 60_000 },
    },
  });
  gateway = await natsAs("gateway");
}, 60_000);

afterAll(async () => {
  await monitors?.stop();
  for (const stop of stoppers.reverse()) await stop();
  await simulator?.close();
  await nats?.stop();
  await redisServer?.stop();
});

/** Resolves with the server's permissions error for a publish, or "allowed" when none comes. */
async function publishOutcome(connection: NatsConnection, subject: string): Promise<string> {
  const errors: string[] = [];
  const watching = (async () => {
    for await (const status of connection.status())
      if (status.type === "error") errors.push(String(status.error));
  })();
  void watching;
  connection.publish(subject, "{}");
  await connection.flush();
  const refusal = await waitFor(
    () => errors.find((error) => error.includes(subject)),
    `a refusal of ${subject}`,
    5_000,
  );
  return refusal ?? "allowed";
}

describe("the monitors service's shipped identities", () => {
  it("does its whole job: serves the gateway, pages through adapter-posts, leases its sources", async () => {
    const subreddit = simulator.corpus.subreddits[0]!.name;
    const created = await ask("create", {
      key_id: "key_netsec0000000000",
      body: { kind: "post", subreddit, interval_seconds: 60, backfill_from: "3d" },
    });
    expect(created.ok).toBe(true);
    const id = created.ok ? (created.value as { monitor: { id: string } }).monitor.id : "";
    await waitFor(
      async () => {
        const answer = await ask("get", { key_id: "key_netsec0000000000", id });
        return answer.ok && (answer.value as { monitor: { status: string } }).monitor.status === "live";
      },
      "the backfill through the shipped permissions",
      30_000,
    );
    const page = await ask("items", { key_id: "key_netsec0000000000", id });
    expect(page.ok && (page.value as { items: unknown[] }).items.length).toBeGreaterThan(0);
    // A change goes through the compare-and-set script; a list counts each monitor's items.
    expect(
      await ask("update", { key_id: "key_netsec0000000000", id, body: { phrase: "the" } }),
    ).toMatchObject({
      ok: true,
    });
    const listed = await ask("list", { key_id: "key_netsec0000000000" });
    expect(
      listed.ok && (listed.value as { monitors: { items_collected: number }[] }).monitors[0]?.items_collected,
    ).toBeGreaterThan(0);
  }, 90_000);

  it("keeps a webhook's receiver, sends a test event and queues batches under its own identities", async () => {
    const received: string[] = [];
    const receiver = createServer((request, response) => {
      received.push(String(request.headers["webhook-id"]));
      request.resume().on("end", () => response.writeHead(204).end());
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    stoppers.push(() => new Promise((resolve) => receiver.close(resolve)));
    const port = (receiver.address() as { port: number }).port;
    const created = await ask("create", {
      key_id: "key_hooks00000000000",
      body: {
        kind: "post",
        subreddit: simulator.corpus.subreddits[0]!.name,
        backfill_from: "3d",
        webhook_url: `http://127.0.0.1:${port}/hooks`,
      },
    });
    if (!created.ok) throw new Error(created.error);
    const id = (created.value as { monitor: { id: string } }).monitor.id;
    const test = await ask("test", { key_id: "key_hooks00000000000", id });
    expect(test.ok && (test.value as { delivery: { state: string } }).delivery.state).toBe("delivered");
    expect(received).toHaveLength(1);
    // Billing is not running here: the first batch is queued and waits for its debit.
    await waitFor(
      async () => {
        const log = await ask("deliveries", { key_id: "key_hooks00000000000", id });
        const deliveries = log.ok ? (log.value as { deliveries: { type: string }[] }).deliveries : [];
        return deliveries.some((delivery) => delivery.type === "monitor.items");
      },
      "a batch queued through the shipped permissions",
      60_000,
    );
  }, 90_000);

  it("is refused billing's subjects, the adapters' place, and making or deleting streams", async () => {
    for (const subject of [
      subjects.billing.admit,
      subjects.billing.refunds,
      "$JS.API.STREAM.CREATE.KV_MONITOR_SOURCES",
      "$JS.API.STREAM.DELETE.NOTICES",
      "$JS.API.STREAM.INFO.BILLING_REFUNDS",
    ])
      expect(await publishOutcome(monitorsNats, subject)).toMatch(/Permissions Violation for Publish/);
    const impostor = monitorsNats.subscribe(subjects.adapter.listPosts, { queue: "adapter-posts" });
    expect(String(await impostor.closed)).toMatch(/Permissions Violation for Subscription/);
  });

  it("refuses the portal every monitors subject: its pages ask the gateway instead", async () => {
    const portalNats = await natsAs("portal");
    for (const subject of Object.values(subjects.monitors))
      expect(await publishOutcome(portalNats, subject)).toMatch(/Permissions Violation for Publish/);
  });

  it("holds only its own Redis family, and nobody else holds it", async () => {
    const own = await redisAs("monitors");
    await expect(own.get("rda:key:{k1}")).rejects.toThrow(/NOPERM/);
    await expect(own.flushall()).rejects.toThrow(/NOPERM/);
    await expect(own.keys("*")).rejects.toThrow(/NOPERM/);
    for (const other of ["gateway", "portal", "adapter", "billing"] as const)
      await expect((await redisAs(other)).smembers("rda:monitors:sources")).rejects.toThrow(/NOPERM/);
  });
});
