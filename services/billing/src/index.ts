/**
 * Billing: the only writer of ledger state. `startBilling` serves every billing subject in the
 * billing queue group and applies refunds from the shared durable JetStream consumer. It neither
 * reads the environment nor opens connections (main.ts does), so tests start it in-process.
 */
import { QUEUE_GROUPS, type Subjects } from "@rda/contracts";
import {
  jetstreamManager,
  type Logger,
  type NatsConnection,
  type Redis,
  type RedisKeys,
  serveSubject,
} from "@rda/service-kit";
import { billingEndpoints } from "./endpoints.ts";
import { ALL_SCRIPTS, type KeyDefaults, type LedgerContext } from "./ledger/index.ts";
import { startRefundConsumer } from "./refund-consumer.ts";
import { ensureRefundConsumer, ensureRefundStream } from "./refund-stream.ts";

export { publishRefund } from "@rda/service-kit";
export { askBilling, type BillingAnswer } from "./cli/billing-client.ts";
export { creditsForCents, MINIMUM_TOP_UP_CENTS, parseUsdToCents } from "./pricing.ts";
export { REFUND_STREAM } from "./refund-stream.ts";
export { hashSecret } from "./secrets.ts";

export interface BillingSettings {
  /** Credits granted to a new key (FREE_CREDITS). */
  readonly freeCredits: number;
  /** Rate limit of new keys (RATE_LIMIT_QPS, RATE_LIMIT_BURST). */
  readonly defaultRateLimit: { readonly qps: number; readonly burst: number };
  /** How long the hot path waits for Redis before answering "failure"; default 2 s. */
  readonly storeTimeoutMs?: number;
  /**
   * Copies of the refund stream in a NATS cluster (REFUND_STREAM_REPLICAS, default 1). Set 3 on a
   * three-node cluster so pending refunds survive the loss of a node.
   */
  readonly refundStreamReplicas?: number;
}

export interface BillingDeps {
  readonly nats: NatsConnection;
  readonly redis: Redis;
  readonly subjects: Subjects;
  readonly keys: RedisKeys;
  readonly logger: Logger;
  readonly settings: BillingSettings;
  /** Epoch milliseconds for journal entries; tests may pin it. */
  readonly now?: () => number;
}

export interface Billing {
  /** Stops taking requests and refunds, and waits for those in flight. Connections stay open. */
  stop(): Promise<void>;
}

export async function startBilling(deps: BillingDeps): Promise<Billing> {
  const { nats, subjects, logger, settings } = deps;
  const context: LedgerContext = { redis: deps.redis, keys: deps.keys, now: deps.now ?? Date.now };
  await preloadScripts(deps.redis, logger);
  const jsm = await jetstreamManager(nats);
  await ensureRefundStream(jsm, subjects, settings.refundStreamReplicas ?? 1);
  await ensureRefundConsumer(jsm, subjects);
  const endpoints = billingEndpoints({
    nats,
    subjects,
    context,
    logger,
    defaults: {
      freeCredits: settings.freeCredits,
      rateLimit: settings.defaultRateLimit,
    } satisfies KeyDefaults,
    storeTimeoutMs: settings.storeTimeoutMs ?? 2_000,
  });
  const served = endpoints.map(({ subject, handler }) =>
    serveSubject(nats, { subject, queue: QUEUE_GROUPS.billing, logger, handler }),
  );
  const refunds = await startRefundConsumer(nats, subjects, context, logger);
  logger.info({ subjects: served.length, refundStream: subjects.refundStream }, "billing started");
  let stopped: Promise<void> | undefined;
  const stopAll = async () => {
    await Promise.all(served.map((subject) => subject.stop()));
    await refunds.stop();
  };
  // Idempotent: a shutdown hook and a test may both stop the same instance.
  return { stop: () => (stopped ??= stopAll()) };
}

/** Loading the scripts up front saves the first requests a round trip; EVAL remains the fallback. */
async function preloadScripts(redis: Redis, logger: Logger): Promise<void> {
  try {
    await Promise.all(ALL_SCRIPTS.map((script) => redis.script("LOAD", script.source)));
  } catch (error) {
    logger.warn({ err: String(error) }, "could not preload ledger scripts; they load on first use");
  }
}
