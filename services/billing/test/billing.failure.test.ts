import { billingFailureSchema, buildSubjects, debitReplySchema } from "@rda/contracts";
import { jetstreamManager, openRedis, redisKeys, requestJson } from "@rda/service-kit";
import { connectTestNats, silentLogger, testNamespace, testRedisUrl } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { type Billing, startBilling } from "../src/index.ts";
import { TEST_SETTINGS } from "./harness.ts";

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

  it("answers a debit with outcome failure and a message, so the gateway can answer 503", async () => {
    const reply = await requestJson(
      nats,
      subjects.billing.debit,
      { key_id: "key_0000000000000000", request_id: "r-1" },
      z.union([billingFailureSchema, debitReplySchema]),
      2_000,
    );
    expect(reply.ok).toBe(true);
    expect(reply.ok && reply.value).toMatchObject({ outcome: "failure", message: expect.any(String) });
  });

  it("answers a malformed request with outcome failure instead of silence", async () => {
    const reply = await requestJson(
      nats,
      subjects.billing.debit,
      { key_id: "nope" },
      billingFailureSchema,
      2_000,
    );
    expect(reply.ok && reply.value.message).toMatch(/invalid request/);
  });
});
