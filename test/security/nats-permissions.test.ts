/**
 * The NATS plane with the permissions this repository ships (deploy/nats/auth.conf): a private
 * nats-server runs the real config with test passwords in its environment, and the real services
 * connect to it each as its own identity. Every flow the product needs works; every identity is
 * denied what it must not do: create, top up or revoke keys, forge refunds, impersonate billing or
 * another adapter, use JetStream's API, or read anyone else's replies (a new key's secret among them).
 */

import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import {
  admitReplySchema,
  buildSubjects,
  createKeyReplySchema,
  lookupKeyReplySchema,
  revokeKeyReplySchema,
  showKeyReplySchema,
  topUpReplySchema,
} from "@rda/contracts";
import {
  connectNats,
  ensureNoticeConsumer,
  ensureNoticeStream,
  hashApiKey,
  jetstream,
  jetstreamManager,
  type NatsConnection,
  openRedis,
  publishNoticeEvent,
  publishRefund,
  type Redis,
  Registry,
  redisKeys,
  requestJson,
} from "@rda/service-kit";
import {
  deleteNamespaceKeys,
  silentLogger,
  testNamespace,
  testRedisUrl,
  waitFor,
} from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAdapterPosts } from "../../services/adapter-posts/src/index.ts";
import { startAdapterUsers } from "../../services/adapter-users/src/index.ts";
import { type Billing, billingSettingsFromEnv, startBilling } from "../../services/billing/src/index.ts";
import {
  gatewaySettingsFromEnv,
  type RunningGateway,
  startGateway,
} from "../../services/gateway/src/index.ts";
import { startMonitors } from "../../services/monitors/src/index.ts";
import { createPortalBilling } from "../../services/portal/src/billing-client.ts";
import { createPortalGateway } from "../../services/portal/src/gateway-client.ts";
import { type RunningSimulator, startSimulator } from "../../services/upstream-sim/src/index.ts";
import {
  NATS_IDENTITIES,
  type NatsIdentityName,
  newPassword,
  type ShippedServer,
  startShippedNats,
} from "../support/shipped-servers.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const execFileAsync = promisify(execFile);
const TIMEOUT_MS = 5_000;
/** Production's subjects: the shipped permissions are written for the empty namespace. */
const subjects = buildSubjects("");
/** Redis keys in a namespace of their own on the shared test Redis (Redis ACLs: redis-acl.test.ts). */
const namespace = testNamespace("netsec");
const keys = redisKeys(namespace);
const logger = silentLogger();

const passwords = Object.fromEntries(
  Object.keys(NATS_IDENTITIES).map((user) => [user, newPassword()]),
) as Record<NatsIdentityName, string>;

let nats: ShippedServer;
let redis: Redis;
let simulator: RunningSimulator;
let gateway: RunningGateway;
/** The portal's and the gateway's secret for the portal's credentials at the internal listener. */
const portalSecret = randomBytes(32).toString("base64url");
const billings: Billing[] = [];
const connections = new Map<NatsIdentityName, NatsConnection>();
const stoppers: (() => Promise<unknown>)[] = [];

/** One connection per identity, as the services make them (service-kit's connectNats). */
async function as(user: NatsIdentityName): Promise<NatsConnection> {
  const known = connections.get(user);
  if (known) return known;
  const connection = await connectNats(nats.url, user, logger, { user, password: passwords[user] });
  connections.set(user, connection);
  const errors: string[] = [];
  serverErrors.set(connection, errors);
  void (async () => {
    for await (const status of connection.status()) {
      if (status.type === "error") errors.push(String(status.error));
    }
  })();
  return connection;
}

/** What the server told each connection was refused, as it arrives (the `-ERR` lines). */
const serverErrors = new Map<NatsConnection, string[]>();

/**
 * A plain publish the server refuses, as anyone holding the identity could send it (no reply
 * needed: a message on a stream's subject is stored as it is). Resolves with the server's error.
 */
async function publishRefused(user: NatsIdentityName, subject: string, payload: unknown = {}) {
  const connection = await as(user);
  connection.publish(subject, JSON.stringify(payload));
  const wanted = permissionDenied("Publish", subject);
  return waitFor(
    () => serverErrors.get(connection)?.find((error) => wanted.test(error)),
    `the server refusing ${user} a publish to ${subject}`,
    TIMEOUT_MS,
  );
}

/** A subscription the server refuses: it closes with the server's permissions error. */
async function subscriptionRefused(user: NatsIdentityName, subject: string, queue?: string) {
  const connection = await as(user);
  const received: string[] = [];
  const subscription = connection.subscribe(subject, {
    ...(queue && { queue }),
    callback: (error, message) => {
      if (!error) received.push(message.subject);
    },
  });
  let closedWith: string | undefined;
  void subscription.closed.then((reason) => {
    closedWith = String(reason);
  });
  await waitFor(
    () => closedWith !== undefined,
    `the server closing ${user}'s subscription to ${subject}`,
    TIMEOUT_MS,
  );
  return { closedWith, received };
}

const permissionDenied = (kind: "Publish" | "Subscription", subject: string) =>
  new RegExp(`Permissions Violation for ${kind} to "${subject.replace(/[.*>$]/g, "\\$&")}"`);

/** A request as `user` makes it; the answer, or the failure's message. */
async function ask(user: NatsIdentityName, subject: string, payload: unknown) {
  const answer = await requestJson(
    await as(user),
    subject,
    payload,
    topUpReplySchema.or(createKeyReplySchema),
    TIMEOUT_MS,
  );
  return answer.ok ? "answered" : answer.error.message;
}

const keyCount = () => redis.scard(keys.keyIds);

async function createKeyAsAdmin(credits = 10) {
  const reply = await requestJson(
    await as("admin"),
    subjects.billing.createKey,
    { credits, label: "netsec" },
    createKeyReplySchema,
    TIMEOUT_MS,
  );
  if (!reply.ok || reply.value.outcome !== "created") throw new Error(`no key: ${JSON.stringify(reply)}`);
  return reply.value;
}

async function balanceOf(id: string): Promise<number> {
  const reply = await requestJson(
    await as("admin"),
    subjects.billing.showKey,
    { id },
    showKeyReplySchema,
    TIMEOUT_MS,
  );
  if (!reply.ok || !reply.value.found) throw new Error(`no key ${id}`);
  return reply.value.key.credits_balance;
}

/** A debit as the gateway asks for it, left pending. */
async function pendingDebit(key: { id: string; key: string }, requestId: string) {
  const reply = await requestJson(
    await as("gateway"),
    subjects.billing.admit,
    {
      key_id: key.id,
      key_hash: hashApiKey(key.key),
      request_id: requestId,
      operation: "listPosts",
      credits: 1,
      pending_ms: 60_000,
    },
    admitReplySchema,
    TIMEOUT_MS,
  );
  if (!reply.ok || reply.value.outcome !== "admitted")
    throw new Error(`not admitted: ${JSON.stringify(reply)}`);
}

beforeAll(async () => {
  nats = await startShippedNats(passwords);
  stoppers.push(() => nats.stop());
  redis = await openRedis(testRedisUrl(), "netsec-test", logger);
  stoppers.push(async () => {
    await deleteNamespaceKeys(redis, namespace);
    redis.disconnect();
  });
  // Two billing replicas, as in production: the second finds the refund stream and its consumer made.
  for (const registry of [new Registry(), new Registry()]) {
    const connection = await connectNats(nats.url, "billing", logger, {
      user: "billing",
      password: passwords.billing,
    });
    stoppers.push(() => connection.close());
    const billing = await startBilling({
      nats: connection,
      redis,
      subjects,
      keys,
      logger,
      registry,
      settings: billingSettingsFromEnv({ FREE_CREDITS: "5", RATE_LIMIT_QPS: "100", RATE_LIMIT_BURST: "100" }),
    });
    billings.push(billing);
  }
  simulator = await startSimulator({ seed: 42, port: 0, host: "127.0.0.1" });
  stoppers.push(() => simulator.close());
  const adapter = await startAdapterPosts({
    nats: await as("adapter-posts"),
    subjects,
    upstreamUrl: simulator.url,
    logger,
    upstream: { deadlineMs: 2_000 },
  });
  stoppers.push(() => adapter.stop());
  // User profiles come from an upstream that takes longer than the gateway's patience with a silent
  // adapter: only the adapter's progress messages, sent under its permissions, keep the request alive.
  const slowSimulator = await startSimulator({ seed: 42, port: 0, host: "127.0.0.1", latencyMs: 2_500 });
  stoppers.push(() => slowSimulator.close());
  const slowAdapter = await startAdapterUsers({
    nats: await as("adapter-users"),
    subjects,
    upstreamUrl: slowSimulator.url,
    logger,
    upstream: { deadlineMs: 3_500, attemptTimeoutMs: 3_500 },
  });
  stoppers.push(() => slowAdapter.stop());
  gateway = await startGateway(
    {
      redis,
      nats: await as("gateway"),
      subjects,
      keys,
      logger,
      settings: gatewaySettingsFromEnv({
        TOPUP_URL: "https://example.com/topup",
        UPSTREAM_DEADLINE_MS: "2000",
        ADAPTER_TIMEOUT_MS: "4000",
        MCP_URL: "http://127.0.0.1:9",
        PORTAL_GATEWAY_SECRET: portalSecret,
      }),
    },
    { port: 0, host: "127.0.0.1" },
  );
  stoppers.push(() => gateway.stop());
});

afterAll(async () => {
  await Promise.all(billings.map((billing) => billing.stop()));
  for (const stop of stoppers.reverse()) await stop();
  await Promise.all([...connections.values()].map((connection) => connection.close()));
});

describe("NATS with the shipped permissions: the flows the product needs", () => {
  it("lets the operator CLI create a key and read the reply on its private inbox, while no one else can", async () => {
    const sniffers = await Promise.all([
      subscriptionRefused("gateway", "_INBOX_admin.>"),
      subscriptionRefused("portal", "_INBOX_admin.>"),
      subscriptionRefused("billing", "_INBOX_admin.>"),
      subscriptionRefused("adapter-posts", "_INBOX.>"),
    ]);
    const env = {
      ...process.env,
      NATS_URL: nats.url,
      NATS_USER: "admin",
      NATS_PASSWORD: passwords.admin,
      RDA_NAMESPACE: "",
    };
    const cli = join(ROOT, "services", "billing", "src", "cli", "main.ts");
    const { stdout } = await execFileAsync(
      process.execPath,
      ["--import", "tsx", cli, "keys", "create", "--credits", "7", "--label", "ops", "--json"],
      { cwd: ROOT, env, timeout: 30_000 },
    );
    const created = JSON.parse(stdout) as { id: string; key: string; credits: number };

    expect(created).toMatchObject({ credits: 7, key: expect.stringMatching(/^rdk_/) });
    expect(await balanceOf(created.id)).toBe(7);
    for (const sniffer of sniffers) {
      expect(sniffer.closedWith).toMatch(/Permissions Violation for Subscription/);
      expect(sniffer.received).toEqual([]);
    }
  });

  it("serves a client's data request: the gateway's lookup and admission by billing, the data by the adapter", async () => {
    const key = await createKeyAsAdmin(10);

    const response = await fetch(`${gateway.url}/v1/posts?subreddit=typescript&limit=2`, {
      headers: { "x-api-key": key.key },
    });

    expect(response.status).toBe(200);
    expect(((await response.json()) as { data: unknown[] }).data.length).toBeGreaterThan(0);
    expect(response.headers.get("x-credits-remaining")).toBe("9");
  });

  it("lets an adapter on a slow upstream call send the gateway its progress until the answer", async () => {
    const key = await createKeyAsAdmin(10);
    const response = await fetch(`${gateway.url}/v1/users/someone`, { headers: { "x-api-key": key.key } });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-credits-remaining")).toBe("9");
  });

  it("drops a key the operator revokes from the gateway's cache: billing's event reaches the gateway", async () => {
    const key = await createKeyAsAdmin(10);
    const account = () => fetch(`${gateway.url}/v1/account`, { headers: { "x-api-key": key.key } });
    expect((await account()).status).toBe(200);

    const revoked = await requestJson(
      await as("admin"),
      subjects.billing.revokeKey,
      { id: key.id },
      revokeKeyReplySchema,
      TIMEOUT_MS,
    );

    expect(revoked).toEqual({ ok: true, value: { outcome: "revoked" } });
    await waitFor(
      async () => (await account()).status === 401,
      "the gateway refusing the revoked key",
      2_000,
    );
  });

  it("applies a refund the gateway queues in JetStream, through billing's durable consumer", async () => {
    const key = await createKeyAsAdmin(10);
    await pendingDebit(key, "netsec-refund-1");
    expect(await balanceOf(key.id)).toBe(9);

    const published = await publishRefund(await as("gateway"), subjects, {
      key_id: key.id,
      request_id: "netsec-refund-1",
      reason: "upstream_unavailable",
    });

    expect(published).toEqual({ ok: true, value: { duplicate: false } });
    await waitFor(async () => (await balanceOf(key.id)) === 10, "the refund applied by billing");
  });

  it("lets the portal create, list, cap, rotate and revoke an account's keys, and set its low-balance threshold", async () => {
    const portal = createPortalBilling({ nats: await as("portal"), subjects, timeoutMs: TIMEOUT_MS });
    const account = `acct_${"0".repeat(8)}${Date.now().toString(36).slice(-8).padStart(8, "0")}`;

    const created = await portal.createKey(account, "from the portal");
    const listed = await portal.listKeys(account);

    expect(created).toMatchObject({ ok: true, value: { outcome: "created", credits: 5 } });
    expect(listed.ok && listed.value.keys.map((key) => key.label)).toEqual(["from the portal"]);
    const id = created.ok && created.value.outcome === "created" ? created.value.id : "";
    expect(await portal.setSpendCap(account, id, 50)).toMatchObject({ ok: true, value: { outcome: "set" } });
    expect(await portal.setLowBalanceThreshold(account, 10)).toEqual({
      ok: true,
      value: { keys_updated: 1 },
    });
    expect(await portal.rotateKey(account, id)).toMatchObject({ ok: true, value: { outcome: "rotated" } });
    expect(await portal.revokeKey(account, id)).toEqual({ ok: true, value: "revoked" });
  });

  it("carries notice events from billing through the notice stream to the portal's durable consumer, and no one else publishes them", async () => {
    const event = {
      kind: "spending_paused",
      key_id: "key_netsecnotice0001",
      account_id: "acct_netsecnotice001",
      crossing: "netsec-notice-1",
      balance: 0,
    } as const;
    expect(await publishNoticeEvent(await as("billing"), subjects, event)).toEqual({
      ok: true,
      value: undefined,
    });
    const second = { ...event, crossing: "netsec-notice-2" };
    expect(await publishNoticeEvent(await as("billing"), subjects, second)).toEqual({
      ok: true,
      value: undefined,
    });
    const portal = await as("portal");
    const jsm = await jetstreamManager(portal);
    await ensureNoticeStream(jsm, subjects, 1);
    await ensureNoticeConsumer(jsm, subjects);
    const consumer = await jetstream(portal).consumers.get(subjects.noticeStream, subjects.noticeConsumer);
    const crossings: string[] = [];
    for (let taken = 0; taken < 2; taken++) {
      const message = await consumer.next({ expires: 5_000 });
      if (!message) break;
      crossings.push((message.json() as { crossing: string }).crossing);
      await message.ackAck();
    }
    expect(crossings.sort()).toEqual(["netsec-notice-1", "netsec-notice-2"]);
  });

  it("refused none of those flows anything (the server logs every refusal; only the sniffers' are there)", () => {
    const refusals = nats
      .log()
      .split("\n")
      .filter((line) => /Violation/.test(line) && !/Subject "_INBOX/.test(line));
    expect(refusals).toEqual([]);
  });
});

describe("NATS with the shipped permissions: what each identity is denied", () => {
  it("refuses key creation, top-ups, revocation and ledger verification to every identity but the operator (the portal only within an account)", async () => {
    const key = await createKeyAsAdmin(10);
    const before = await keyCount();
    const create = subjects.billing.createKey;
    const attempts: [NatsIdentityName, string, unknown][] = [
      ["gateway", create, { credits: 1_000_000_000 }],
      ["adapter-posts", create, { credits: 1_000_000_000 }],
      ["billing", create, { credits: 1_000_000_000 }],
      ["gateway", subjects.billing.topUp, { id: key.id, usd_cents: 1_000_000, request_id: "forged-topup" }],
      ["portal", subjects.billing.topUp, { id: key.id, usd_cents: 1_000_000, request_id: "forged-topup" }],
      ["adapter-posts", subjects.billing.revokeKey, { id: key.id }],
      ["gateway", subjects.billing.revokeKey, { id: key.id }],
      ["gateway", subjects.billing.verifyLedger, {}],
      ["portal", subjects.billing.verifyLedger, {}],
      // The operator's subjects, where leaving the account out reaches an operator's key.
      ["portal", create, { label: "outside any account" }],
      ["portal", subjects.billing.revokeKey, { id: key.id }],
      ["portal", subjects.billing.rotateKey, { id: key.id }],
      ["portal", subjects.billing.setSpendCap, { id: key.id, monthly_cap: 1 }],
      ["gateway", subjects.billing.setSpendCap, { id: key.id, monthly_cap: 1 }],
    ];

    for (const [user, subject, payload] of attempts) await publishRefused(user, subject, payload);
    // Asked as a request, the way the operator CLI asks, it is refused at once too.
    const asked = await ask("gateway", create, { credits: 1_000_000_000 });
    expect(asked).toMatch(permissionDenied("Publish", create));
    expect(await keyCount()).toBe(before);
    expect(await balanceOf(key.id)).toBe(10);
    const shown = await requestJson(
      await as("admin"),
      subjects.billing.showKey,
      { id: key.id },
      showKeyReplySchema,
      TIMEOUT_MS,
    );
    expect(shown.ok && shown.value.found && shown.value.key.revoked).toBe(false);
  });

  it("refuses to let an adapter or the gateway impersonate billing, or an adapter another adapter", async () => {
    const attempts = await Promise.all([
      subscriptionRefused("adapter-posts", subjects.billing.lookupKey, "billing"),
      subscriptionRefused("adapter-posts", subjects.billing.admit, "billing"),
      subscriptionRefused("gateway", subjects.billing.lookupKey, "billing"),
      subscriptionRefused("gateway", subjects.billing.admit),
      subscriptionRefused("portal", subjects.billing.createKey, "billing"),
      subscriptionRefused("adapter-posts", subjects.adapter.getUserProfile, "adapter-users"),
      subscriptionRefused("adapter-tree", subjects.adapter.listPosts, "adapter-posts"),
    ]);
    for (const attempt of attempts)
      expect(attempt.closedWith).toMatch(/Permissions Violation for Subscription/);

    // Billing alone still answers: a key that never existed stays unknown.
    const lookup = await requestJson(
      await as("gateway"),
      subjects.billing.lookupKey,
      { key_hash: hashApiKey("rdk_this-key-was-never-made-by-billing-000000000") },
      lookupKeyReplySchema,
      TIMEOUT_MS,
    );
    expect(lookup).toEqual({ ok: true, value: { found: false } });
  });

  it("refuses forged refunds on the refund stream from every identity but the gateway", async () => {
    const key = await createKeyAsAdmin(10);
    await pendingDebit(key, "netsec-forged-1");
    const jsm = await jetstreamManager(await as("billing"));
    const storedBefore = (await jsm.streams.info(subjects.refundStream)).state.messages;
    const forged = { key_id: key.id, request_id: "netsec-forged-1", reason: "upstream_unavailable" };

    for (const user of ["adapter-posts", "adapter-users", "portal", "admin", "billing"] as const) {
      await publishRefused(user, subjects.billing.refunds, forged);
      await publishRefused(user, subjects.billing.refund, forged);
    }
    for (const user of ["portal", "admin"] as const) {
      const published = await publishRefund(await as(user), subjects, forged, TIMEOUT_MS);
      expect(published.ok ? "published" : published.error, user).toMatch(
        permissionDenied("Publish", subjects.billing.refunds),
      );
    }

    expect((await jsm.streams.info(subjects.refundStream)).state.messages).toBe(storedBefore);
    expect(await balanceOf(key.id)).toBe(9);
  });

  it("refuses JetStream's API to every identity but billing: no one else reads, pulls or purges the refund stream", async () => {
    const stream = subjects.refundStream;
    const consumer = subjects.refundConsumer;
    const attempts: [NatsIdentityName, string][] = [
      ["gateway", `$JS.API.STREAM.INFO.${stream}`],
      ["gateway", `$JS.API.STREAM.PURGE.${stream}`],
      ["gateway", `$JS.API.CONSUMER.MSG.NEXT.${stream}.${consumer}`],
      ["portal", `$JS.API.STREAM.DELETE.${stream}`],
      ["adapter-posts", "$JS.API.INFO"],
      ["billing", `$JS.API.STREAM.PURGE.${stream}`],
      ["billing", `$JS.API.STREAM.DELETE.${stream}`],
      // Notices: billing (crossings) and whoever pauses work for credits (gateway, exports, monitors)
      // publish them; the portal reads them and cannot purge them; an adapter has nothing to tell.
      ["portal", subjects.billing.notice],
      ["adapter-users", subjects.billing.notice],
      ["adapter-posts", subjects.billing.notice],
      ["portal", `$JS.API.STREAM.PURGE.${subjects.noticeStream}`],
      ["portal", `$JS.API.STREAM.DELETE.${subjects.noticeStream}`],
    ];
    for (const [user, subject] of attempts) await publishRefused(user, subject);
    const asked = await ask("gateway", `$JS.API.STREAM.INFO.${stream}`, {});
    expect(asked).toMatch(permissionDenied("Publish", `$JS.API.STREAM.INFO.${stream}`));
  });

  it("lets the portal's monitor pages work through the gateway while its identity is refused the monitors subjects", async () => {
    const monitors = await startMonitors({
      nats: await as("monitors"),
      redis,
      namespace,
      subjects,
      logger,
      settings: { tickMs: 100 },
    });
    stoppers.push(() => monitors.stop());
    const accountId = `acct_${randomBytes(8).toString("hex")}`;
    const portalBilling = createPortalBilling({ nats: await as("portal"), subjects, timeoutMs: TIMEOUT_MS });
    const created = await portalBilling.createKey(accountId, "pages");
    if (!created.ok || created.value.outcome !== "created") throw new Error("no key");
    // As the portal's pages ask (services/portal/src/gateway-client.ts), with its own secret only.
    const pages = createPortalGateway({ url: gateway.internalUrl, secret: portalSecret });
    const caller = { keyId: created.value.id, accountId };
    const body = { kind: "post", subreddit: simulator.corpus.subreddits[0]!.name, interval_seconds: 60 };
    expect(await pages.call(caller, "POST", "/v1/monitors/estimate", { body })).toMatchObject({
      ok: true,
      data: { backfill_estimate: { max_credits: 0 } },
    });
    const made = await pages.call(caller, "POST", "/v1/monitors", { body, idempotencyKey: "form-1" });
    expect(made).toMatchObject({ ok: true, status: 201 });
    const id = (made as { data: { monitor: { id: string } } }).data.monitor.id;
    expect(await pages.call(caller, "GET", "/v1/monitors")).toMatchObject({
      ok: true,
      data: { monitors: [{ id }] },
    });
    expect(await pages.call(caller, "DELETE", `/v1/monitors/${id}`)).toMatchObject({ ok: true });
    for (const subject of [subjects.monitors.list, subjects.monitors.create, subjects.monitors.delete])
      await publishRefused("portal", subject, { key_id: caller.keyId, account_id: accountId });
  });

  it("refuses the portal every monitors and exports subject: its pages are clients of the gateway", async () => {
    const owned = [...Object.values(subjects.monitors), ...Object.values(subjects.exports.commands)];
    expect(owned.length).toBeGreaterThan(10);
    const payload = { key_id: "key_0000000000000000", account_id: `acct_${"0".repeat(16)}` };
    for (const subject of owned) await publishRefused("portal", subject, payload);
  });

  it("refuses every identity a subscription to everything, to the shared inbox, or to another's private inbox", async () => {
    const attempts = await Promise.all(
      [
        ...(Object.keys(NATS_IDENTITIES) as NatsIdentityName[]).flatMap((user) => [
          [user, ">"],
          [user, "_INBOX.>"],
        ]),
        ["gateway", "_INBOX_portal.>"],
        ["admin", "_INBOX_portal.>"],
        ["portal", "_INBOX_gateway.>"],
        ["billing", "_INBOX_admin.*"],
        ["adapter-users", "billing.>"],
      ].map(
        async ([user, subject]) =>
          [user, subject, await subscriptionRefused(user as NatsIdentityName, subject!)] as const,
      ),
    );
    for (const [user, subject, attempt] of attempts) {
      expect(attempt.closedWith, `${user} → ${subject}`).toMatch(permissionDenied("Subscription", subject!));
    }
  });

  it("refuses clients without credentials or with another identity's password", async () => {
    await expect(connectNats(nats.url, "anonymous", logger)).rejects.toThrow(/Authorization Violation/);
    const impostor = { user: "admin", password: passwords.portal };
    await expect(connectNats(nats.url, "impostor", logger, impostor)).rejects.toThrow(
      /Authorization Violation/,
    );
  });
});
