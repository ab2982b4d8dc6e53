/**
 * Billing: the only writer of ledger state. `startBilling` serves every billing subject in the
 * billing queue group and applies refunds from the shared durable JetStream consumer. It neither
 * reads the environment nor opens connections (main.ts does), so tests start it in-process.
 */
import { BALANCE_LIMITS, QUEUE_GROUPS, type Subjects } from "@rda/contracts";
import {
  ensureNoticeStream,
  jetstreamManager,
  type Logger,
  type NatsConnection,
  preloadScripts,
  type Redis,
  type RedisKeys,
  Registry,
  serveSubject,
} from "@rda/service-kit";
import { startDebitVoider } from "./debit-voider.ts";
import { billingEndpoints } from "./endpoints.ts";
import { type KeyDefaults, LEDGER_SCRIPTS, type LedgerContext, startRedisClock } from "./ledger/index.ts";
import { createBillingMetrics, registerRefundLag } from "./metrics.ts";
import { startRefundConsumer } from "./refund-consumer.ts";
import { ensureRefundConsumer, ensureRefundStream } from "./refund-stream.ts";
import type { BillingSettings } from "./settings.ts";

export {
  type BillingConfig,
  type BillingSettings,
  billingConfigShape,
  billingSettingsFromEnv,
  billingSettingsOf,
  loadBillingConfig,
} from "./settings.ts";

export interface BillingDeps {
  readonly nats: NatsConnection;
  readonly redis: Redis;
  readonly subjects: Subjects;
  readonly keys: RedisKeys;
  readonly logger: Logger;
  readonly settings: BillingSettings;
  /** Epoch milliseconds for journal entries; tests may pin it. */
  readonly now?: () => number;
  /** Where billing's metrics go (the process's registry); a private one when not given. */
  readonly registry?: Registry;
}

export interface Billing {
  /** Stops taking requests and refunds, and waits for those in flight. Connections stay open. */
  stop(): Promise<void>;
}

export async function startBilling(deps: BillingDeps): Promise<Billing> {
  const { nats, subjects, logger, settings } = deps;
  const context: LedgerContext = { redis: deps.redis, keys: deps.keys, now: deps.now ?? Date.now };
  await preloadLedgerScripts(deps.redis, logger);
  const jsm = await jetstreamManager(nats);
  await ensureRefundStream(jsm, subjects, settings.natsReplicas);
  await ensureRefundConsumer(jsm, subjects);
  // Crossings are published into it; it must exist before the first, whether or not a portal runs.
  await ensureNoticeStream(jsm, subjects, settings.natsReplicas);
  const redisClock = await startRedisClock(deps.redis, logger);
  const registry = deps.registry ?? new Registry();
  const metrics = createBillingMetrics(registry);
  registerRefundLag(registry, jsm, subjects);
  const endpoints = billingEndpoints({
    metrics,
    nats,
    subjects,
    context,
    logger,
    defaults: {
      freeCredits: settings.freeCredits,
      rateLimit: settings.defaultRateLimit,
      maxActiveKeysPerAccount: settings.maxActiveKeysPerAccount,
      maxKeysCreatedPerAccount: settings.maxKeysCreatedPerAccount,
      maxBalance: Math.min(settings.maxBalance, BALANCE_LIMITS.maxCredits),
    } satisfies KeyDefaults,
    storeTimeoutMs: settings.storeTimeoutMs,
    redisClock,
    webhookSecret: settings.stripeWebhookSecret,
  });
  const served = endpoints.map(({ subject, handler }) =>
    serveSubject(nats, { subject, queue: QUEUE_GROUPS.billing, logger, handler }),
  );
  const refunds = await startRefundConsumer(nats, subjects, context, logger, metrics);
  const voider = startDebitVoider(context, logger, settings.pendingSweepMs, metrics);
  logger.info({ subjects: served.length, refundStream: subjects.refundStream }, "billing started");
  let stopped: Promise<void> | undefined;
  const stopAll = async () => {
    await Promise.all(served.map((subject) => subject.stop()));
    await refunds.stop();
    await voider.stop();
    await redisClock.stop();
  };
  // Idempotent: a shutdown hook and a test may both stop the same instance.
  return { stop: () => (stopped ??= stopAll()) };
}

/** Loading the scripts up front saves the first requests a round trip; EVAL remains the fallback. */
async function preloadLedgerScripts(redis: Redis, logger: Logger): Promise<void> {
  try {
    await preloadScripts(redis, LEDGER_SCRIPTS);
  } catch (error) {
    logger.warn({ err: String(error) }, "could not preload ledger scripts; they load on first use");
  }
}
