/**
 * Billing's environment, validated once at start (docs/operations.md#environment), and the one
 * resolution of its settings: `main.ts` and the test stacks both build billing's settings with
 * `billingSettingsOf(loadBillingConfig(env))`, so a default is written only here (or, for a bound
 * billing shares with another process, in `@rda/contracts`' bounds).
 */
import { BALANCE_LIMITS, DEADLINE_DEFAULTS, WEBHOOK_SECRET_PATTERN } from "@rda/contracts";
import { assertDeadlineOrder, env, loadConfig, observabilityEnv } from "@rda/service-kit";
import { z } from "zod";

export const billingConfigShape = {
  REDIS_URL: env.redisUrl(),
  NATS_URL: env.natsUrl(),
  NATS_USER: env.natsUser(),
  NATS_PASSWORD: env.natsPassword(),
  RDA_NAMESPACE: env.namespace(),
  FREE_CREDITS: env.nonNegativeInt(333),
  RATE_LIMIT_QPS: env.positiveInt(2),
  RATE_LIMIT_BURST: env.positiveInt(10),
  PENDING_SWEEP_MS: env.positiveInt(1_000),
  /** A Redis command without an answer by then fails; billing's hot path then answers 503. */
  REDIS_COMMAND_TIMEOUT_MS: env.positiveInt(DEADLINE_DEFAULTS.redisCommandTimeoutMs),
  /**
   * How long the gateway and the portal wait for billing's reply, read here only to check that
   * billing gives up on Redis first (and so answers 503 rather than nothing); set it to their value.
   */
  BILLING_TIMEOUT_MS: env.positiveInt(DEADLINE_DEFAULTS.billingTimeoutMs),
  ACCOUNT_MAX_ACTIVE_KEYS: env.positiveInt(10),
  ACCOUNT_MAX_KEYS_CREATED: env.positiveInt(25),
  NATS_REPLICAS: env.natsReplicas(),
  /**
   * Stripe's webhook signing secret, the same one the portal holds. With it, billing applies a card
   * payment only with the event Stripe signed (src/payment-evidence.ts).
   */
  STRIPE_WEBHOOK_SECRET: z
    .string()
    .regex(WEBHOOK_SECRET_PATTERN, { error: "must be a webhook signing secret, whsec_…" })
    .optional(),
  HEALTH_PORT: env.port(9101),
  HEALTH_HOST: env.host(),
  LOG_LEVEL: env.logLevel(),
  ...observabilityEnv(9201),
};

export type BillingConfig = Readonly<z.output<z.ZodObject<typeof billingConfigShape>>>;

export interface BillingSettings {
  /** Credits granted to a new key (FREE_CREDITS). */
  readonly freeCredits: number;
  /** Rate limit of new keys (RATE_LIMIT_QPS, RATE_LIMIT_BURST). */
  readonly defaultRateLimit: { readonly qps: number; readonly burst: number };
  /** Keys a portal account may hold unrevoked (ACCOUNT_MAX_ACTIVE_KEYS). */
  readonly maxActiveKeysPerAccount: number;
  /** Keys a portal account may create in its lifetime (ACCOUNT_MAX_KEYS_CREATED). */
  readonly maxKeysCreatedPerAccount: number;
  /**
   * The most credits a balance may hold: a top-up past it is refused. In production the contract's
   * BALANCE_LIMITS.maxCredits, its ceiling (tests lower it to reach it quickly).
   */
  readonly maxBalance: number;
  /** How often pending debits past their deadline are voided (PENDING_SWEEP_MS). */
  readonly pendingSweepMs: number;
  /**
   * How long the hot path waits for Redis before answering a service error (REDIS_COMMAND_TIMEOUT_MS).
   * An admission Redis runs later than that is refused.
   */
  readonly storeTimeoutMs: number;
  /**
   * Copies of the refund and notice streams in a NATS cluster (NATS_REPLICAS). Set 3 on a three-node
   * cluster so pending refunds and notices survive the loss of a node.
   */
  readonly natsReplicas: number;
  /**
   * Stripe's webhook signing secret (STRIPE_WEBHOOK_SECRET), the one the developer portal verifies
   * deliveries with. When set, a card payment or reversal is applied only with the event Stripe
   * signed (payment-evidence.ts); when unset, billing trusts the portal's word for payments.
   */
  readonly stripeWebhookSecret: string | undefined;
}

/** The environment, validated and checked against the bounds billing shares with its callers. */
export function loadBillingConfig(source: Record<string, string | undefined> = process.env): BillingConfig {
  refuseSecondUpstreamBudget(source);
  const config = loadConfig(billingConfigShape, source);
  assertDeadlineOrder(config);
  return config;
}

/** Every setting of `startBilling`, resolved from the configuration. */
export function billingSettingsOf(config: BillingConfig): BillingSettings {
  return {
    freeCredits: config.FREE_CREDITS,
    defaultRateLimit: { qps: config.RATE_LIMIT_QPS, burst: config.RATE_LIMIT_BURST },
    maxActiveKeysPerAccount: config.ACCOUNT_MAX_ACTIVE_KEYS,
    maxKeysCreatedPerAccount: config.ACCOUNT_MAX_KEYS_CREATED,
    maxBalance: BALANCE_LIMITS.maxCredits,
    pendingSweepMs: config.PENDING_SWEEP_MS,
    storeTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS,
    natsReplicas: config.NATS_REPLICAS,
    stripeWebhookSecret: config.STRIPE_WEBHOOK_SECRET,
  };
}

/** The settings production would run with under this environment (tests pass their own few). */
export function billingSettingsFromEnv(source: Record<string, string | undefined>): BillingSettings {
  return billingSettingsOf(loadBillingConfig(source));
}

/**
 * The upstream budget has one setting, the adapters' UPSTREAM_REQUESTS_PER_SECOND
 * (docs/upstream.md#rate-limits): billing once held a second one, and a deployment that still sets it
 * would believe it sizes something. Refused with one sentence rather than ignored.
 */
function refuseSecondUpstreamBudget(source: Record<string, string | undefined>): void {
  const stale = ["UPSTREAM_RESERVE_QPS", "UPSTREAM_RESERVE_BURST"].filter(
    (name) => source[name] !== undefined,
  );
  if (stale.length > 0)
    throw new Error(
      `${stale.join(" and ")} no longer ${stale.length > 1 ? "exist" : "exists"}: the one upstream budget is the adapters' UPSTREAM_REQUESTS_PER_SECOND and UPSTREAM_CONCURRENCY (docs/operations.md#environment); remove ${stale.length > 1 ? "them" : "it"}.`,
    );
}
