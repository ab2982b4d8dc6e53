import { admitReplySchema, buildSubjects } from "@rda/contracts";
import { jetstreamManager, openRedis, redisKeys, requestJson } from "@rda/service-kit";
import { connectTestNats, silentLogger, testNamespace, testRedisUrl } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Billing, startBilling } from "../src/index.ts";
import { type Harness, startHarness, TEST_SETTINGS } from "./harness.ts";
import { createKey, newRequestId } from "./ops.ts";

describe("billing without its Redis", () => {
  const namespace = testNamespace("noredis");
  const subjects = buildSubjects(namespace);
  let nats: Awaited<ReturnType<typeof connectTestNats>>;
  let billing: Billing;

  beforeAll(async () => {
    nats = await connectTestNats();
    const logger = silentLogger();
    const redis = await openRedis(testRedisUrl(), "billing-test", logger);
    // A closed client fails every command at once, as when Redis is down (no offline queue).
    redis.disconnect();
    billing = await startBilling({
      nats,
      redis,
      subjects,
      keys: redisKeys(namespace),
      logger,
      settings: TEST_SETTINGS,
    });
  });

  afterAll(async () => {
    await billing.stop();
    await (await jetstreamManager(nats)).streams.delete(subjects.refundStream).catch(() => false);
    await nats.close();
  });

  it("answers an admission with service error 503 and a message, so the gateway can answer 503", async () => {
    const reply = await requestJson(
      nats,
      subjects.billing.admit,
      {
        key_id: "key_0000000000000000",
        key_hash: "0".repeat(64),
        request_id: "r-1",
        operation: "listPosts",
        credits: 1,
        pending_ms: 30_000,
      },
      admitReplySchema,
      2_000,
    );
    expect(reply).toMatchObject({
      ok: false,
      error: { kind: "service_error", code: 503, message: expect.stringMatching(/ledger store/) },
    });
  });

  it("refuses a malformed request with service error 400 instead of silence", async () => {
    const reply = await requestJson(
      nats,
      subjects.billing.admit,
      { key_id: "nope" },
      admitReplySchema,
      2_000,
    );
    expect(reply).toMatchObject({
      ok: false,
      error: { kind: "service_error", code: 400, message: expect.stringMatching(/invalid request/) },
    });
  });
});

describe("billing with a bug in how it uses its store", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness("billing-bug");
  });
  afterAll(() => h.close());

  it("answers service error 500, not an outage, and logs and counts it", async () => {
    const key = await createKey(h, { credits: 5 });
    // A record of the wrong type: the admission script's first read fails, as a bug would make it.
    await h.redis.del(h.keys.keyRecord(key.id));
    await h.redis.set(h.keys.keyRecord(key.id), "not a hash");
    const reply = await requestJson(
      h.nats,
      h.subjects.billing.admit,
      {
        key_id: key.id,
        request_id: newRequestId(),
        operation: "listPosts",
        credits: 1,
        pending_ms: 30_000,
      },
      admitReplySchema,
      5_000,
    );
    expect(reply).toMatchObject({ ok: false, error: { kind: "service_error", code: 500 } });
    expect(await h.metric("billing_internal_errors_total", { subject: h.subjects.billing.admit })).toBe(1);
    expect(h.logLines()).toMatch(/billing operation failed unexpectedly/);
  });
});
