/**
 * Redis with the ACL users this repository ships (deploy/redis/users.acl, rendered with test
 * passwords by deploy/redis/render-acl.sh as compose's redis container renders it): each service's
 * real code does its whole job as its own user, and is refused the others' keys and every command
 * it does not need — the gateway cannot write a balance, the portal cannot read the ledger, billing
 * cannot read the portal's sessions, the adapters touch only the upstream pacer, nobody but the
 * operator can flush, configure or list keys.
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  admitReplySchema,
  applyPaymentReplySchema,
  buildSubjects,
  createKeyReplySchema,
  encodeAdapterReply,
  keyUsageReplySchema,
  listKeysReplySchema,
  listPaymentsReplySchema,
  lookupKeyReplySchema,
  refundReplySchema,
  reversePaymentReplySchema,
  revokeKeyReplySchema,
  rotateKeyReplySchema,
  settleReplySchema,
  showKeyReplySchema,
  topUpReplySchema,
  verifyLedgerReplySchema,
} from "@rda/contracts";
import {
  answerRequestHash,
  hashApiKey,
  jetstreamManager,
  type NatsConnection,
  openRedis,
  publishRefund,
  type Redis,
  redisKeys,
  requestJson,
} from "@rda/service-kit";
import { connectTestNats, freePort, silentLogger, testNamespace, waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRedisCacheStore, createRedisPacer } from "../../packages/upstream-client/src/index.ts";
import {
  DEFAULT_RETRY_SCHEDULE,
  newOutboxDelivery,
  newWebhookSecret,
  sealSecret,
  sendDue,
} from "../../packages/webhooks/src/index.ts";
import { type Billing, billingSettingsFromEnv, startBilling } from "../../services/billing/src/index.ts";
import {
  exportKeys,
  type JobRecord,
  jobLeases,
  redisJobStore,
} from "../../services/exports/src/job-store.ts";
import { createCachedAnswers } from "../../services/gateway/src/core/adapter-client.ts";
import { createIdempotencyStore } from "../../services/gateway/src/core/idempotency.ts";
import { createMetrics } from "../../services/gateway/src/core/metrics.ts";
import { noticeWebhookOutbox } from "../../services/portal/src/notices/notice-webhook.ts";
import { createAccountStore } from "../../services/portal/src/store/accounts.ts";
import { createDeviceStore } from "../../services/portal/src/store/devices.ts";
import { createLoginLinks } from "../../services/portal/src/store/login-links.ts";
import { createMailLimiter } from "../../services/portal/src/store/mail-limits.ts";
import { createSessionStore } from "../../services/portal/src/store/sessions.ts";
import {
  newPassword,
  REDIS_USERS,
  type RedisUserName,
  SHIPPED,
  type ShippedServer,
  startShippedRedis,
} from "../support/shipped-servers.ts";

const logger = silentLogger();
/** Production's key names: the shipped ACL patterns are written for the empty namespace. */
const keys = redisKeys("");
/** Billing's subjects on the shared test NATS, in a namespace of their own (NATS: nats-permissions.test.ts). */
const subjects = buildSubjects(testNamespace("redisacl"));
const passwords = Object.fromEntries(Object.keys(REDIS_USERS).map((user) => [user, newPassword()])) as Record<
  RedisUserName,
  string
>;

let server: ShippedServer;
let nats: NatsConnection;
let billing: Billing;
const clients = new Map<RedisUserName, Redis>();

/** A connection as a service makes it (service-kit's openRedis), with the user in REDIS_URL. */
async function as(user: RedisUserName): Promise<Redis> {
  const known = clients.get(user);
  if (known) return known;
  const url = server.url.replace("redis://", `redis://${user}:${passwords[user]}@`);
  const client = await openRedis(url, user, logger);
  clients.set(user, client);
  return client;
}

/** One inline command on a fresh connection with no credentials at all: Redis' raw answer. */
async function rawCommand(line: string): Promise<string> {
  const port = Number(new URL(server.url).port);
  const socket = createConnection({ port, host: "127.0.0.1" });
  socket.write(`${line}\r\n`);
  const [answer] = (await once(socket, "data")) as [Buffer];
  socket.destroy();
  return answer.toString();
}

/** The error Redis answers a command with, or "allowed". */
async function outcome(command: Promise<unknown>): Promise<string> {
  try {
    await command;
    return "allowed";
  } catch (error) {
    return String(error);
  }
}
const NOPERM = /NOPERM/;

/** A billing request over NATS, as its callers make it; a failure fails the test. */
async function ask<S extends Parameters<typeof requestJson>[3]>(
  subject: string,
  payload: unknown,
  schema: S,
) {
  const answer = await requestJson(nats, subject, payload, schema, 10_000);
  if (!answer.ok) throw new Error(`${subject}: ${answer.error.message}`);
  return answer.value;
}

beforeAll(async () => {
  server = await startShippedRedis(passwords);
  nats = await connectTestNats();
  billing = await startBilling({
    nats,
    redis: await as("billing"),
    subjects,
    keys,
    logger,
    settings: billingSettingsFromEnv({
      FREE_CREDITS: "10",
      RATE_LIMIT_QPS: "100",
      RATE_LIMIT_BURST: "100",
      PENDING_SWEEP_MS: "100",
    }),
  });
});

afterAll(async () => {
  await billing?.stop();
  const jsm = await jetstreamManager(nats);
  await jsm.streams.delete(subjects.refundStream).catch(() => false);
  await nats.close();
  for (const client of clients.values()) client.disconnect();
  await server.stop();
});

describe("Redis with the shipped ACL users", () => {
  it("lets billing, as its own user, run the whole ledger: keys, admissions, settlements, refunds, top-ups, voids, verify", async () => {
    const account = `acct_${randomBytes(8).toString("hex")}`;
    const created = await ask(
      subjects.billing.createKey,
      { account_id: account, label: "acl" },
      createKeyReplySchema,
    );
    if (created.outcome !== "created") throw new Error("no key");
    const presented = { id: created.id, hash: hashApiKey(created.key) };
    const admit = (requestId: string, pendingMs = 60_000) =>
      ask(
        subjects.billing.admit,
        {
          key_id: presented.id,
          key_hash: presented.hash,
          request_id: requestId,
          operation: "listPosts",
          credits: 1,
          pending_ms: pendingMs,
        },
        admitReplySchema,
      );

    expect(
      await ask(subjects.billing.lookupKey, { key_hash: presented.hash }, lookupKeyReplySchema),
    ).toMatchObject({
      found: true,
    });
    expect(await admit("acl-settled")).toMatchObject({ outcome: "admitted", balance: 9 });
    expect(
      await ask(
        subjects.billing.settle,
        { debits: [{ key_id: presented.id, request_id: "acl-settled" }] },
        settleReplySchema,
      ),
    ).toEqual({ settled: 1, ignored: 0, ends: ["settled"] });
    await admit("acl-refunded");
    expect(
      await ask(
        subjects.billing.refund,
        { key_id: presented.id, request_id: "acl-refunded", reason: "x" },
        refundReplySchema,
      ),
    ).toEqual({ outcome: "refunded", balance: 9 });
    await admit("acl-streamed");
    await publishRefund(nats, subjects, { key_id: presented.id, request_id: "acl-streamed", reason: "x" });
    await admit("acl-voided", 1_000);
    const show = () => ask(subjects.billing.showKey, { id: presented.id }, showKeyReplySchema);
    await waitFor(async () => {
      const shown = await show();
      return shown.found && shown.key.credits_balance === 9;
    }, "the streamed refund and the void applied");
    expect(
      await ask(
        subjects.billing.topUp,
        { id: presented.id, usd_cents: 500, request_id: "acl-topup" },
        topUpReplySchema,
      ),
    ).toEqual({ outcome: "ok", credits_added: 3_333, credits_balance: 3_342 });
    expect(await ask(subjects.billing.listKeys, { account_id: account }, listKeysReplySchema)).toMatchObject({
      keys: [{ id: presented.id }],
    });
    const payment = { payment_id: "pi_aclpayment01", key_id: presented.id, account_id: account };
    expect(
      await ask(
        subjects.billing.applyPayment,
        {
          ...payment,
          checkout_session_id: "cs_test_aclsession01",
          amount_cents: 500,
          currency: "usd",
          paid_at: 1_800_000_000,
          receipt_url: null,
        },
        applyPaymentReplySchema,
      ),
    ).toMatchObject({ outcome: "applied", credits: 3_333 });
    expect(
      await ask(
        subjects.billing.reversePayment,
        { ...payment, kind: "refund", amount_cents: 500 },
        reversePaymentReplySchema,
      ),
    ).toMatchObject({ outcome: "reversed", credits_removed: 3_333 });
    expect(
      await ask(subjects.billing.listPayments, { key_id: presented.id }, listPaymentsReplySchema),
    ).toMatchObject({ payments: [{ status: "refunded" }] });
    expect(
      await ask(subjects.billing.keyUsage, { id: presented.id, days: 2 }, keyUsageReplySchema),
    ).toMatchObject({
      found: true,
    });
    expect(await ask(subjects.billing.rotateKey, { id: presented.id }, rotateKeyReplySchema)).toMatchObject({
      outcome: "rotated",
    });
    expect(await ask(subjects.billing.revokeKey, { id: presented.id }, revokeKeyReplySchema)).toEqual({
      outcome: "revoked",
    });
    expect(await ask(subjects.billing.verifyLedger, {}, verifyLedgerReplySchema)).toMatchObject({
      ok: true,
      mismatches: [],
    });
  });

  it("lets the gateway, as its own user, claim, complete, replay and release Idempotency-Key records, and nothing else", async () => {
    const gateway = await as("gateway");
    const store = createIdempotencyStore(gateway, keys, { limits: { maxResponseBytes: 16 } });
    const first = await store.claim("key_acl0000000000001", "retry-1", "GET /v1/posts", 5_000);
    if (first.kind !== "claimed") throw new Error(`not claimed: ${first.kind}`);
    await first.claim.complete({ body: Buffer.from("{}"), creditsUsed: 1, creditsRemaining: 9 });
    // Its size counters too: a response over the size limit leaves a record that it was not kept.
    const large = await store.claim("key_acl0000000000001", "retry-3", "GET /v1/posts", 5_000);
    if (large.kind !== "claimed") throw new Error(`not claimed: ${large.kind}`);
    await large.claim.complete({ body: Buffer.alloc(64, 0x20), creditsUsed: 1, creditsRemaining: 8 });
    expect(await store.claim("key_acl0000000000001", "retry-3", "GET /v1/posts", 5_000)).toEqual({
      kind: "not_kept",
    });
    expect(await store.storedBytes()).toBeGreaterThan(0);
    expect(await store.claim("key_acl0000000000001", "retry-1", "GET /v1/posts", 5_000)).toMatchObject({
      kind: "replay",
      response: { creditsUsed: 1, creditsRemaining: 9 },
    });
    const other = await store.claim("key_acl0000000000001", "retry-2", "GET /v1/posts", 5_000);
    if (other.kind !== "claimed") throw new Error(`not claimed: ${other.kind}`);
    await other.claim.release();

    const ledgerKey = keys.keyRecord("key_acl0000000000001");
    expect(await outcome(gateway.hset(ledgerKey, "balance", "1000000000"))).toMatch(NOPERM);
    expect(await outcome(gateway.hgetall(ledgerKey))).toMatch(NOPERM);
    expect(await outcome(gateway.get(keys.keyIdByHash("0".repeat(64))))).toMatch(NOPERM);
    expect(await outcome(gateway.del(keys.pendingDebits))).toMatch(NOPERM);
    expect(await outcome(gateway.get(keys.portal.session("0".repeat(64))))).toMatch(NOPERM);
    // A script may declare an idempotency record and still not touch a balance inside.
    const sneaky = `redis.call('HSET', ARGV[1], 'balance', '1000000000') return 1`;
    const declared = keys.idempotentRequest("key_acl0000000000001", "x");
    expect(await outcome(gateway.eval(sneaky, 1, declared, ledgerKey))).toMatch(/can't access/);
    // Even a command allowed on its own record is refused on a ledger key.
    expect(await outcome(gateway.hmget(keys.journal("key_acl0000000000001"), "x"))).toMatch(NOPERM);
  });

  it("lets the portal, as its own user, keep accounts, sessions, sign-in links and mail counters, and nothing else", async () => {
    const portal = await as("portal");
    const context = { redis: portal, keys: keys.portal, now: Date.now };
    const email = `acl-${randomBytes(4).toString("hex")}@example.com`;
    const { account } = await createAccountStore(context).findOrCreate(email);
    expect(await createAccountStore(context).get(account.id)).toMatchObject({ email });
    const sessions = createSessionStore(context, 60_000);
    const session = await sessions.start({ accountId: account.id, email });
    expect(await sessions.resolve(session)).toEqual({ accountId: account.id, email });
    expect(await sessions.endAll(account.id)).toBe(1);
    const links = createLoginLinks(context, 60_000);
    const token = await links.issue({ email, next: "/" });
    expect(await links.redeem(token)).toMatchObject({ ok: true });
    const limiter = createMailLimiter(context, { perAddress: 1, perClient: 5, windowSeconds: 60 });
    expect((await limiter.allowSignInMail(email, "192.0.2.1")).ok).toBe(true);
    expect((await limiter.allowSignInMail(email, "192.0.2.1")).ok).toBe(false);
    const devices = createDeviceStore(context);
    const device = await devices.remember(undefined, email);
    const known = await devices.knownFor(device, email);
    expect(known).toEqual(expect.any(String));
    expect((await limiter.allowSignInMail(email, "192.0.2.1", known)).ok).toBe(true);

    expect(await outcome(portal.hgetall(keys.keyRecord("key_acl0000000000001")))).toMatch(NOPERM);
    expect(await outcome(portal.set(keys.keyIdByHash("0".repeat(64)), "key_acl0000000000001"))).toMatch(
      NOPERM,
    );
    expect(await outcome(portal.sadd(keys.keyIds, "key_acl0000000000001"))).toMatch(NOPERM);
    expect(
      await outcome(portal.hset(keys.idempotentRequest("key_acl0000000000001", "x"), "state", "served")),
    ).toMatch(NOPERM);
  });

  it("lets the notices worker, as the portal's user, queue, send and log an account's notice webhook through the outbox", async () => {
    const portal = await as("portal");
    const outbox = noticeWebhookOutbox(portal, keys.portal);
    const received: string[] = [];
    const receiver = createServer((request, response) => {
      received.push(String(request.headers["webhook-id"]));
      request.resume();
      request.on("end", () => response.writeHead(204).end());
    });
    const port = await freePort();
    await new Promise<void>((resolve) => receiver.listen(port, "127.0.0.1", resolve));
    try {
      const sealingKey = randomBytes(32);
      const sealed = sealSecret(sealingKey, newWebhookSecret());
      const account = `acct_${randomBytes(8).toString("hex")}`;
      const id = `ntc_${randomBytes(8).toString("hex")}`;
      expect(await outbox.enqueue(newOutboxDelivery(account, id, "notice.test", {}, Date.now()))).toBe(true);
      const loop = {
        name: "notice webhooks (acl)",
        outbox,
        endpoint: async () => ({
          url: `http://127.0.0.1:${port}/notices`,
          secret: sealed,
          previous_secret: null,
          previous_until: 0,
        }),
        schedule: DEFAULT_RETRY_SCHEDULE,
        attempt: { sealingKey, allowLoopback: true, timeoutMs: 2_000, maxResponseBytes: 1_024 },
        logger,
        holder: "notices-acl",
        leaseMs: 5_000,
        tickMs: 10,
      };
      // A step that Redis refused would be logged and retried: the log says whether it went.
      await sendDue(loop, () => false);
      await sendDue(loop, () => false);
      expect(received).toEqual([id]);
      expect((await outbox.log(account, 10, Date.now())).map((record) => record.state)).toEqual([
        "delivered",
      ]);
      expect(await outbox.owners()).not.toContain(account);
    } finally {
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    }
  });

  it("lets the exports service, as its own user, keep its jobs through its scripts, run them under their leases and count quotes, and nothing else", async () => {
    const exportsUser = await as("exports");
    const jobs = redisJobStore(exportsUser, exportKeys(""));
    const id = `exp_${randomBytes(12).toString("hex")}`;
    const record = { version: 1, id, keyId: "key_acl0000000000009", state: "quoted", run: 0 } as JobRecord;
    await jobs.create(record, 60);
    await jobs.remember(record, Date.now());
    // A compare-and-set script run by its SHA (EVALSHA), as every Lua call is (service-kit's luaScript).
    expect(await jobs.update(id, (current) => ({ ...current, run: current.run + 1 }), 60)).toMatchObject({
      run: 1,
    });
    // A worker takes the job's lease, writes under it, keeps it and frees it.
    const held = await jobLeases(exportsUser, exportKeys(""), 60_000).take(id);
    expect(await held?.jobs.update(id, (current) => ({ ...current, run: current.run + 1 }))).toMatchObject({
      run: 2,
    });
    expect(await held?.renew()).toBe(true);
    await held?.release();
    expect(await jobLeases(exportsUser, exportKeys(""), 60_000).take(id)).toBeDefined();
    expect(await jobs.activate("acct_acl000000000009", id, 3)).toBe(true);
    expect((await jobs.listForKey(record.keyId, 10)).map((job) => job.id)).toEqual([id]);
    expect(await jobs.countQuote(record.keyId, Date.now())).toBe(1);
    await jobs.deactivate({ ...record, owner: "acct_acl000000000009" });
    expect(await outcome(exportsUser.hgetall(keys.keyRecord("key_acl0000000000001")))).toMatch(NOPERM);
    expect(await outcome(exportsUser.get("rda:monitors:monitor:x"))).toMatch(NOPERM);
  });

  it("lets the adapters, as their own user, pace the upstream through the pacer's scripts, and nothing else", async () => {
    const adapter = await as("adapter");
    const pacer = createRedisPacer(adapter, keys.upstreamPacer, { requestsPerSecond: 100, concurrency: 2 });
    const turn = await pacer.turn({ waitUntilMs: Date.now() + 5_000 });
    if (!turn.granted) throw new Error(`no turn: ${turn.reason}`);
    turn.finish({ rateLimited: false, remaining: 0, resetAtMs: Date.now() + 3_000 });
    // The window the upstream reported spent was recorded: the next turn is refused, nothing sent.
    await waitFor(async () => {
      const next = await pacer.turn({ waitUntilMs: Date.now() + 1_000 });
      if (!next.granted) return next.reason === "window_spent" || undefined;
      next.finish();
      return undefined;
    }, "the spent window recorded");

    expect(await outcome(adapter.hgetall(keys.keyRecord("key_acl0000000000001")))).toMatch(NOPERM);
    expect(await outcome(adapter.get(keys.portal.session("0".repeat(64))))).toMatch(NOPERM);
    expect(await outcome(adapter.del(keys.upstreamPacer.state))).toMatch(NOPERM);
    const sneaky = `redis.call('HSET', ARGV[1], 'balance', '1000000000') return 1`;
    const ledgerKey = keys.keyRecord("key_acl0000000000001");
    expect(await outcome(adapter.eval(sneaky, 1, keys.upstreamPacer.state, ledgerKey))).toMatch(
      /can't access/,
    );
  });

  it("lets the adapters keep the response cache and its fetch claims, and refuses everyone else its entries", async () => {
    const adapter = await as("adapter");
    const limits = { maxBytes: 1024 * 1024, maxEntryBytes: 64 * 1024, longestTtlS: 3_600 };
    const cache = createRedisCacheStore(adapter, keys.upstreamCache, limits);
    const entry = {
      fetchedAtMs: Date.now(),
      maxAgeS: 60,
      query: { subreddit: "pics" },
      body: '{"data":[1]}',
    };
    expect(await cache.store("acl-entry", entry)).toBe(true);
    // Replaced before it expires (a page fetched anew): its bytes are given back, under the same user.
    expect(await cache.store("acl-entry", entry)).toBe(true);
    expect(await cache.read("acl-entry")).toEqual(entry);
    expect(await cache.claim("acl-entry", "token-a", 5_000)).toBe("");
    expect(await cache.claim("acl-entry", "token-b", 5_000)).toBe("token-a");
    await cache.finish("acl-entry", "token-a", "outcome", 5_000);
    expect(await cache.watch("acl-entry", "token-a")).toEqual({ outcome: "outcome", claimed: false });

    expect(await outcome(adapter.del(keys.upstreamCache.entry("acl-entry")))).toMatch(NOPERM);
    expect(await outcome(adapter.set(keys.keyRecord("key_acl0000000000001"), "x"))).toMatch(NOPERM);
    for (const user of ["billing", "gateway", "portal"] as const) {
      const other = await as(user);
      expect(await outcome(other.get(keys.upstreamCache.entry("acl-entry")))).toMatch(NOPERM);
    }
  });

  it("lets the adapters keep final answers that the gateway may only read, and refuses the portal and billing them", async () => {
    const adapter = await as("adapter");
    const gateway = await as("gateway");
    const limits = { maxBytes: 1024 * 1024, maxEntryBytes: 64 * 1024, longestTtlS: 3_600 };
    const cache = createRedisCacheStore(adapter, keys.upstreamCache, limits);
    const params = { subreddit: "pics", limit: 5 };
    const frame = encodeAdapterReply(
      { outcome: "ok", cursor: null, has_more: false, fetched_at_ms: Date.now(), max_age_s: 60 },
      "[1]",
    );
    expect(await cache.storeAnswer(answerRequestHash("listPosts", params), frame, 60_000)).toBe(true);
    const answers = createCachedAnswers({
      redis: gateway,
      keys: keys.upstreamCache,
      metrics: createMetrics(),
    });
    const read = await answers.read({ operation: "listPosts", params, maxAgeS: undefined });
    expect(Buffer.from(read?.data ?? []).toString()).toBe("[1]");

    const answerKey = keys.upstreamCache.answer(answerRequestHash("listPosts", params));
    expect(await outcome(gateway.set(answerKey, "forged"))).toMatch(NOPERM);
    expect(await outcome(gateway.del(answerKey))).toMatch(NOPERM);
    expect(await outcome(gateway.get(keys.upstreamCache.entry("acl-entry")))).toMatch(NOPERM);
    for (const user of ["billing", "portal"] as const) {
      expect(await outcome((await as(user)).get(answerKey))).toMatch(NOPERM);
    }
  });

  it("refuses billing the portal's sessions, and every application user the operator's commands", async () => {
    const billingUser = await as("billing");
    expect(await outcome(billingUser.get(keys.portal.session("0".repeat(64))))).toMatch(NOPERM);
    expect(await outcome(billingUser.smembers(keys.portal.accountSessions("acct_0000000000000000")))).toMatch(
      NOPERM,
    );
    for (const user of ["billing", "gateway", "portal", "adapter"] as const) {
      const client = await as(user);
      for (const command of [
        () => client.flushall(),
        () => client.flushdb(),
        () => client.keys("*"),
        () => client.scan("0"),
        () => client.config("GET", "requirepass"),
        () => client.call("ACL", "LIST"),
        () => client.call("MONITOR"),
        () => client.script("FLUSH"),
        () => client.call("SHUTDOWN", "NOSAVE"),
      ]) {
        expect(await outcome(command()), user).toMatch(NOPERM);
      }
    }
  });

  it("refuses a client without a password, or with another user's password, and lets the operator in", async () => {
    expect(await rawCommand("GET rda:keys")).toMatch(/^-NOAUTH/);
    const impostor = server.url.replace("redis://", `redis://billing:${passwords.gateway}@`);
    expect(await outcome(openRedis(impostor, "impostor", logger, { connectTimeoutMs: 2_000 }))).toMatch(
      /WRONGPASS/,
    );
    const operator = await as("default");
    expect(await operator.dbsize()).toBeGreaterThan(0);
  });

  it("refuses to render the ACL file when a password is missing or guessable, naming the variable", () => {
    const dir = mkdtempSync(join(tmpdir(), "rda-acl-"));
    const output = join(dir, "users.acl");
    try {
      const env = { ...process.env, REDIS_PASSWORD: newPassword(), REDIS_PASSWORD_BILLING: newPassword() };
      const render = (extra: Record<string, string>) =>
        spawnSync("sh", [SHIPPED.redisAclRenderer, SHIPPED.redisAclTemplate, output], {
          env: { ...env, ...extra },
          encoding: "utf8",
        });
      const missing = render({ REDIS_PASSWORD_PORTAL: newPassword() });
      expect(missing.status).not.toBe(0);
      expect(missing.stderr).toMatch(/REDIS_PASSWORD_GATEWAY must be a letter, then at least 15/);
      const guessable = render({ REDIS_PASSWORD_GATEWAY: "secret", REDIS_PASSWORD_PORTAL: newPassword() });
      expect(guessable.stderr).toMatch(/REDIS_PASSWORD_GATEWAY/);
      expect(existsSync(output)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("lets each service end its connection as its shutdown does (QUIT)", async () => {
    for (const user of ["billing", "gateway", "portal", "adapter"] as const) {
      const client = await as(user);
      if (user === "billing") await billing.stop();
      expect(await client.quit(), user).toBe("OK");
      clients.delete(user);
    }
  });
});
