/**
 * Billing in front of a Redis that stalls (a private server, paused with CLIENT PAUSE): the admission
 * is answered 503 once the store timeout passes, and the script Redis runs only after the pause is
 * refused, so the 503's "nothing was charged" stays true.
 */
import { admitReplySchema, buildSubjects } from "@rda/contracts";
import {
  hashApiKey,
  jetstreamManager,
  openRedis,
  type Redis,
  redisKeys,
  redisResponds,
  requestJson,
} from "@rda/service-kit";
import {
  connectTestNats,
  freePort,
  type PrivateServer,
  silentLogger,
  startPrivateRedis,
  testNamespace,
  waitFor,
} from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Billing, startBilling } from "../src/index.ts";
import { TEST_SETTINGS } from "./harness.ts";
import { type Asker, balanceOf, createKey, newRequestId, verify } from "./ops.ts";

describe("billing while its Redis is paused", () => {
  const namespace = testNamespace("stall");
  const subjects = buildSubjects(namespace);
  const keys = redisKeys(namespace);
  let server: PrivateServer;
  let nats: Awaited<ReturnType<typeof connectTestNats>>;
  let redis: Redis;
  let billing: Billing;
  const h: Asker = {
    subjects,
    async request(subject, payload, schema, timeoutMs = 10_000) {
      const answer = await requestJson(nats, subject, payload, schema, timeoutMs);
      if (!answer.ok) throw new Error(answer.error.message);
      return answer.value;
    },
  };

  beforeAll(async () => {
    server = await startPrivateRedis(await freePort());
    nats = await connectTestNats();
    redis = await openRedis(server.url, "billing-stall", silentLogger(), { commandTimeoutMs: 300 });
    billing = await startBilling({
      nats,
      redis,
      subjects,
      keys,
      logger: silentLogger(),
      settings: { ...TEST_SETTINGS, storeTimeoutMs: 300 },
    });
  });

  afterAll(async () => {
    await billing.stop();
    await (await jetstreamManager(nats)).streams.delete(subjects.refundStream).catch(() => false);
    await nats.close();
    redis.disconnect();
    await server.remove();
  });

  it("answers an admission 503 within its store timeout, and never debits it when Redis runs it late", async () => {
    const key = await createKey(h, { credits: 10 });
    const pauser = await openRedis(server.url, "pauser", silentLogger());
    await pauser.call("CLIENT", "PAUSE", "1500", "ALL");

    const started = performance.now();
    const reply = await requestJson(
      nats,
      subjects.billing.admit,
      {
        key_id: key.id,
        key_hash: hashApiKey(key.key),
        request_id: newRequestId(),
        operation: "listPosts",
        credits: 1,
        tokens: 1,
        pending_ms: 60_000,
      },
      admitReplySchema,
      5_000,
    );
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(reply).toMatchObject({ ok: false, error: { kind: "service_error", code: 503 } });

    // A PING on billing's own connection answers only after the commands sent before it have run.
    await waitFor(() => redisResponds(redis), "Redis answering again", 5_000);
    expect(await balanceOf(h, key)).toBe(10);
    expect(await redis.xlen(keys.journal(key.id))).toBe(1);
    expect(await verify(h)).toMatchObject({ ok: true });
    pauser.disconnect();
  });
});
