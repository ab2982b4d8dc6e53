/**
 * Billing: the only writer of ledger state. `startBilling` serves every billing subject in the
 * billing queue group and applies refunds from the shared durable JetStream consumer. It neither
 * reads the environment nor opens connections (main.ts does), so tests start it in-process.
 */
import { BALANCE_LIMITS, QUEUE_GROUPS, type Subjects, UPSTREAM_BUDGET_DEFAULTS } from "@rda/contracts";
import {
  jetstreamManager,
  type Logger,
  type NatsConnection,
  type Redis,
  type RedisKeys,
  Registry,
  serveSubject,
} from "@rda/service-kit";
import { startDebitVoider } from "./debit-voider.ts";
import { billingEndpoints } from "./endpoints.ts";
import {
  ADMISSION_SCRIPTS,
  ALL_SCRIPTS,
  type KeyDefaults,
  type LedgerContext,
  PAYMENT_SCRIPTS,
  type Reserve,
  SPEND_CAP_SCRIPTS,
  startRedisClock,
} from "./ledger/index.ts";
import { createBillingMetrics, registerRefundLag } from "./metrics.ts";
import { startRefundConsumer } from "./refund-consumer.ts";
import { ensureRefundConsumer, ensureRefundStream } from "./refund-stream.ts";

/** Sized to the upstream's real budget (docs/upstream.md#rate-limits). */
const DEFAULT_RESERVE: Reserve = {
  qps: UPSTREAM_BUDGET_DEFAULTS.reserveQps,
  burst: UPSTREAM_BUDGET_DEFAULTS.reserveBurst,
};

export interface BillingSettings {
  /** Credits granted to a new key (FREE_CREDITS). */
  readonly freeCredits: number;
  /** Rate limit of new keys (RATE_LIMIT_QPS, RATE_LIMIT_BURST). */
  readonly defaultRateLimit: { readonly qps: number; readonly burst: number };
  /** Keys a portal account may hold unrevoked (ACCOUNT_MAX_ACTIVE_KEYS, default 10). */
  readonly maxActiveKeysPerAccount?: number;
  /** Keys a portal account may create in its lifetime (ACCOUNT_MAX_KEYS_CREATED, default 25). */
  readonly maxKeysCreatedPerAccount?: number;
  /**
   * The shared upstream reserve every data request must find room in (UPSTREAM_RESERVE_QPS and
   * UPSTREAM_RESERVE_BURST, default 2/s with a burst of 4: docs/upstream.md#rate-limits).
   */
  readonly reserve?: Reserve;
  /**
   * The most credits a balance may hold: a top-up past it is refused. Default and ceiling: the
   * contract's BALANCE_LIMITS.maxCredits (tests lower it to reach it quickly).
   */
  readonly maxBalance?: number;
  /** How often pending debits past their deadline are voided (PENDING_SWEEP_MS, default 1000). */
  readonly pendingSweepMs?: number;
  /**
   * How long the hot path waits for Redis before answering a service error (REDIS_COMMAND_TIMEOUT_MS
   * in main.ts; default here 2 s). An admission Redis runs later than that is refused.
   */
  readonly storeTimeoutMs?: number;
  /**
   * Copies of the refund stream in a NATS cluster (REFUND_STREAM_REPLICAS, default 1). Set 3 on a
   * three-node cluster so pending refunds survive the loss of a node.
   */
  readonly refundStreamReplicas?: number;
  /**
   * Stripe's webhook signing secret (STRIPE_WEBHOOK_SECRET), the one the developer portal verifies
   * deliveries with. When set, a card payment or reversal is applied only with the event Stripe
   * signed (payment-evidence.ts); when unset, billing trusts the portal's word for payments.
   */
  readonly stripeWebhookSecret?: string;
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
  await preloadScripts(deps.redis, logger);
  const jsm = await jetstreamManager(nats);
  await ensureRefundStream(jsm, subjects, settings.refundStreamReplicas ?? 1);
  await ensureRefundConsumer(jsm, subjects);
  const redisClock = await startRedisClock(deps.redis, logger);
  const registry = deps.registry ?? new Registry();
  const metrics = createBillingMetrics(registry);
  metrics.reserveQps.set((settings.reserve ?? DEFAULT_RESERVE).qps);
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
      maxActiveKeysPerAccount: settings.maxActiveKeysPerAccount ?? 10,
      maxKeysCreatedPerAccount: settings.maxKeysCreatedPerAccount ?? 25,
      maxBalance: Math.min(settings.maxBalance ?? BALANCE_LIMITS.maxCredits, BALANCE_LIMITS.maxCredits),
    } satisfies KeyDefaults,
    storeTimeoutMs: settings.storeTimeoutMs ?? 2_000,
    reserve: settings.reserve ?? DEFAULT_RESERVE,
    redisClock,
    webhookSecret: settings.stripeWebhookSecret,
  });
  const served = endpoints.map(({ subject, handler }) =>
    serveSubject(nats, { subject, queue: QUEUE_GROUPS.billing, logger, handler }),
  );
  const refunds = await startRefundConsumer(nats, subjects, context, logger, metrics);
  const voider = startDebitVoider(context, logger, settings.pendingSweepMs ?? 1_000, metrics);
  logger.info({ subjects: served.length, refundStream: subjects.refundStream }, "billing started");
  let stopped: Promise<void> | undefined;
  const stopAll = async () => {
    await Promise.all(served.map((subject) => subject.stop()));
    await refunds.stop();
    await voider.stop();
    redisClock.stop();
  };
  // Idempotent: a shutdown hook and a test may both stop the same instance.
  return { stop: () => (stopped ??= stopAll()) };
}

/** Loading the scripts up front saves the first requests a round trip; EVAL remains the fallback. */
async function preloadScripts(redis: Redis, logger: Logger): Promise<void> {
  try {
    await Promise.all(
      [...ALL_SCRIPTS, ...ADMISSION_SCRIPTS, ...PAYMENT_SCRIPTS, ...SPEND_CAP_SCRIPTS].map((script) =>
        redis.script("LOAD", script.source),
      ),
    );
  } catch (error) {
    logger.warn({ err: String(error) }, "could not preload ledger scripts; they load on first use");
  }
}
