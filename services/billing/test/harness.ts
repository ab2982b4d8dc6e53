/**
 * Starts billing in-process against the real Redis and NATS, in a namespace of its own, and gives
 * tests typed requests, a raw Redis client for inspection, and a cleanup that removes the test's
 * stream and keys.
 */
import { buildSubjects, type Subjects } from "@rda/contracts";
import {
  jetstreamManager,
  type Logger,
  type NatsConnection,
  openRedis,
  type Redis,
  type RedisKeys,
  Registry,
  redisKeys,
  requestJson,
} from "@rda/service-kit";
import {
  capturingLogger,
  connectTestNats,
  connectTestRedis,
  deleteNamespaceKeys,
  testNamespace,
  testRedisUrl,
} from "@rda/service-kit/testing";
import type { z } from "zod";
import { type Billing, type BillingSettings, billingSettingsFromEnv, startBilling } from "../src/index.ts";

/** Production's settings: what billing runs with under an empty environment. */
export const TEST_SETTINGS: BillingSettings = billingSettingsFromEnv({});

export interface Harness {
  readonly namespace: string;
  readonly subjects: Subjects;
  readonly keys: RedisKeys;
  readonly nats: NatsConnection;
  /** A plain client for the test's own reads, separate from billing's. */
  readonly redis: Redis;
  readonly logger: Logger;
  /** Everything billing logged so far. */
  logLines(): string;
  /** One metric's value with these labels, summed over this harness's billing replicas (0 if absent). */
  metric(name: string, labels?: Record<string, string>): Promise<number>;
  /** Starts billing (again, or one more replica) in this namespace. */
  start(): Promise<Billing>;
  /** Stops every billing replica this harness started. */
  stop(): Promise<void>;
  request<T>(subject: string, payload: unknown, schema: z.ZodType<T>, timeoutMs?: number): Promise<T>;
  close(): Promise<void>;
}

/** `now`: billing's clock for journal times, usage days and spend months (tests move it across a month). */
export async function startHarness(
  label: string,
  settings = TEST_SETTINGS,
  options: { now?: () => number } = {},
): Promise<Harness> {
  const namespace = testNamespace(label);
  const subjects = buildSubjects(namespace);
  const keys = redisKeys(namespace);
  const { logger, lines } = capturingLogger("billing");
  const [nats, redis, billingRedis] = await Promise.all([
    connectTestNats(),
    connectTestRedis(),
    openRedis(testRedisUrl(), "billing-test", logger),
  ]);
  const running: Billing[] = [];
  const registries: Registry[] = [];
  const harness: Harness = {
    namespace,
    subjects,
    keys,
    nats,
    redis,
    logger,
    logLines: lines,
    async metric(name, labels = {}) {
      let sum = 0;
      for (const registry of registries) {
        const values = (await registry.getSingleMetric(name)?.get())?.values ?? [];
        for (const value of values) {
          const matches = Object.entries(labels).every(([label, wanted]) => value.labels[label] === wanted);
          if (matches) sum += value.value;
        }
      }
      return sum;
    },
    async start() {
      const registry = new Registry();
      registries.push(registry);
      const billing = await startBilling({
        nats,
        redis: billingRedis,
        subjects,
        keys,
        logger,
        settings,
        registry,
        now: options.now,
      });
      running.push(billing);
      return billing;
    },
    async stop() {
      await Promise.all(running.splice(0).map((billing) => billing.stop()));
    },
    // Generous: tests assert outcomes, not latency, and share a busy two-core machine.
    request: (subject, payload, schema, timeoutMs = 15_000) =>
      request(nats, subject, payload, schema, timeoutMs),
    async close() {
      await harness.stop();
      const jsm = await jetstreamManager(nats);
      await jsm.streams.delete(subjects.refundStream).catch(() => false);
      await jsm.streams.delete(subjects.noticeStream).catch(() => false);
      await deleteNamespaceKeys(redis, namespace);
      await nats.close();
      redis.disconnect();
      billingRedis.disconnect();
    },
  };
  await harness.start();
  return harness;
}

/** A billing request whose reply must match `schema`; a transport problem or a billing failure throws. */
async function request<T>(
  nats: NatsConnection,
  subject: string,
  payload: unknown,
  schema: z.ZodType<T>,
  timeoutMs: number,
): Promise<T> {
  const answer = await requestJson(nats, subject, payload, schema, timeoutMs);
  if (!answer.ok) throw new Error(answer.error.message);
  return answer.value;
}

/** How many entries of each type a key's journal holds. */
export async function journalTypes(harness: Harness, keyId: string): Promise<Record<string, number>> {
  const entries = await harness.redis.xrange(harness.keys.journal(keyId), "-", "+");
  const counts: Record<string, number> = {};
  for (const [, fields] of entries) {
    const type = fields[fields.indexOf("type") + 1] ?? "?";
    counts[type] = (counts[type] ?? 0) + 1;
  }
  return counts;
}

/** True once the durable refund consumer has nothing pending or unacknowledged. */
export async function refundsDrained(harness: Harness): Promise<boolean> {
  const jsm = await jetstreamManager(harness.nats);
  const info = await jsm.consumers.info(harness.subjects.refundStream, harness.subjects.refundConsumer);
  return info.num_pending === 0 && info.num_ack_pending === 0;
}
