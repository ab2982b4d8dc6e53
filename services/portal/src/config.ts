/**
 * The portal's environment, validated once at start (README.md and deploy/README.md list each
 * variable), and the settings `buildPortal` takes, derived from it.
 */
import { WEBHOOK_SECRET_PATTERN } from "@rda/contracts";
import { ConfigError, env, loadConfig, observabilityEnv } from "@rda/service-kit";
import { sealingKeyFrom } from "@rda/webhooks";
import { z } from "zod";
import { type SigningKey, signingKeyFromPem } from "./oauth/signing-key.ts";
import type { PaymentsSettings, PortalSettings } from "./settings.ts";

/** OAUTH_SIGNING_KEY: an EC P-256 private key in PEM ("\n" for newlines is fine). */
const signingKey = () =>
  z
    .string()
    .transform((pem, context): SigningKey => {
      try {
        return signingKeyFromPem(pem);
      } catch (error) {
        context.addIssue({
          code: "custom",
          message: `must be an EC P-256 private key in PEM (openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256): ${(error as Error).message}`,
        });
        return z.NEVER;
      }
    })
    .optional();

const mailFrom = () =>
  z
    .string()
    .regex(/^[^\r\n<>]*<[^\s@<>]+@[^\s@<>]+>$|^[^\s@<>]+@[^\s@<>]+$/, {
      error: "must be an address, or a name and an address: Reddit Data API <portal@example.com>",
    })
    .default("Reddit Data API <portal@localhost>");

export const portalConfigShape = {
  PORTAL_PORT: env.port(8060),
  /** PORTAL_HOST wins over HOST, so one shared HOST can be overridden for this service alone. */
  PORTAL_HOST: z.string().min(1).optional(),
  HOST: env.host(),
  /** An origin: the portal serves from the root, and its `__Host-` cookies need Path=/. */
  PORTAL_URL: env
    .httpUrl()
    .refine((value) => ["", "/"].includes(new URL(value).pathname) && !new URL(value).search, {
      error: "must be an origin without a path, like https://portal.example.com",
    })
    .default("http://127.0.0.1:8060"),
  /** The public API's base URL, written into the "first request" snippets. */
  PUBLIC_API_URL: env.httpUrl().default("http://127.0.0.1:8080"),
  /**
   * The gateway's internal listener (GATEWAY_INTERNAL_PORT), where the monitor and export pages'
   * calls go: the MCP service's setting, the same address.
   */
  GATEWAY_URL: env.httpUrl().default("http://127.0.0.1:8081"),
  /**
   * Signs the portal's seconds-lived credentials for those calls; the gateways hold the same value.
   * Unset: the monitor and export pages answer "unavailable" (the gateway takes no portal credential).
   */
  PORTAL_GATEWAY_SECRET: z
    .string()
    .min(32, { error: "must be at least 32 characters (openssl rand -base64 32)" })
    .optional(),
  REDIS_URL: env.redisUrl(),
  NATS_URL: env.natsUrl(),
  NATS_USER: env.natsUser(),
  NATS_REPLICAS: env.natsReplicas(),
  NATS_PASSWORD: env.natsPassword(),
  RDA_NAMESPACE: env.namespace(),
  /** Unset: the local capture inbox that `pnpm start` runs on MAIL_SMTP_PORT. */
  SMTP_URL: z
    .string()
    .refine((value) => /^smtps?:\/\/[^\s/]+(:\d+)?\/?(\?\S*)?$/.test(value), {
      error: "must be an smtp:// or smtps:// URL, as in smtps://user:password@smtp.example.com:465",
    })
    .optional(),
  MAIL_SMTP_PORT: env.port(1025),
  MAIL_FROM: mailFrom(),
  SUPPORT_EMAIL: z.email({ error: "must be an email address" }).optional(),
  PORTAL_MAIL_PER_ADDRESS_PER_HOUR: env.positiveInt(5),
  PORTAL_MAIL_PER_ADDRESS_ALL_CLIENTS_PER_HOUR: env.positiveInt(20),
  PORTAL_MAIL_PER_CLIENT_PER_HOUR: env.positiveInt(20),
  /** Dynamic OAuth client registrations one client address may make per hour. */
  OAUTH_REGISTRATIONS_PER_CLIENT_PER_HOUR: env.positiveInt(20),
  PORTAL_SESSION_HOURS: env.positiveInt(7 * 24),
  PORTAL_TRUST_PROXY: env.trustProxy(),
  BILLING_TIMEOUT_MS: env.positiveInt(5_000),
  PORTAL_SDK_DIR: z.string().min(1).optional(),
  FAILED_AUTH_BURST: env.positiveInt(20),
  FAILED_AUTH_QPS: env.positiveInt(1),
  /** Unset: no card payments (the billing page says how else to get credits). */
  STRIPE_SECRET_KEY: z
    .string()
    .regex(/^(sk|rk)_(test|live)_[A-Za-z0-9_]{8,250}$/, {
      error: "must be a Stripe secret or restricted key, sk_live_… or sk_test_… (rk_… for a restricted key)",
    })
    .optional(),
  /** The signing secret of the webhook endpoint, `whsec_…`; required with STRIPE_SECRET_KEY. */
  STRIPE_WEBHOOK_SECRET: z
    .string()
    .regex(WEBHOOK_SECRET_PATTERN, { error: "must be a webhook signing secret, whsec_…" })
    .optional(),
  /** Where the Stripe API is: unset, Stripe itself; the local payments simulator under pnpm start. */
  STRIPE_API_URL: env
    .httpUrl()
    .refine((value) => ["", "/"].includes(new URL(value).pathname), {
      error: "must be a base URL without a path, like http://127.0.0.1:8075",
    })
    .optional(),
  /** Signs OAuth access tokens; unset, a key is made at start (one portal process only). */
  OAUTH_SIGNING_KEY: signingKey(),
  /**
   * Seals webhook signing secrets at rest (AES-256-GCM): 32 bytes as base64 or 64 hex digits
   * (`openssl rand -base64 32`). Unset: accounts cannot set a webhook; email notices still go.
   */
  WEBHOOK_SEALING_KEY: z
    .string()
    .refine((text) => (/^[0-9a-f]{64}$/i.test(text) ? true : Buffer.from(text, "base64").length === 32), {
      error: "must be 32 bytes as base64 or 64 hex digits (openssl rand -base64 32)",
    })
    .optional(),
  /** Optional notices (low balance, caps) one account may get per hour; receipts always go. */
  NOTICES_PER_ACCOUNT_PER_HOUR: env.positiveInt(20),
  /** Local development only: webhooks may go to http://127.0.0.1 (logged loudly at start). */
  WEBHOOKS_ALLOW_LOOPBACK: z.enum(["0", "1", "true", "false"]).default("0"),
  LOG_LEVEL: env.logLevel(),
  /** Prometheus metrics on their own internal port (9208), never on PORTAL_PORT. */
  ...observabilityEnv(9208),
} as const;

export type PortalConfig = Readonly<z.output<z.ZodObject<typeof portalConfigShape>>>;

/**
 * The notices worker's settings (notices-main.ts): the portal's, and its health server (it has no
 * page to answer `/readyz` from).
 */
export const noticesConfigShape = {
  ...portalConfigShape,
  HEALTH_PORT: env.port(9112),
  HEALTH_HOST: env.host(),
} as const;

export function loadPortalConfig(environment: Record<string, string | undefined> = process.env) {
  const config = loadConfig(portalConfigShape, environment);
  const problems = paymentProblems(config);
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** The Stripe variables go together, and a live key only ever talks to Stripe over https. */
function paymentProblems(config: PortalConfig): string[] {
  const key = config.STRIPE_SECRET_KEY;
  if (key === undefined)
    return config.STRIPE_WEBHOOK_SECRET ? ["STRIPE_SECRET_KEY: required with STRIPE_WEBHOOK_SECRET"] : [];
  const problems: string[] = [];
  if (!config.STRIPE_WEBHOOK_SECRET)
    problems.push(
      "STRIPE_WEBHOOK_SECRET: required with STRIPE_SECRET_KEY (the webhook endpoint's signing secret)",
    );
  const api = config.STRIPE_API_URL;
  if (api?.startsWith("http:") && /^(sk|rk)_live_/.test(key))
    problems.push("STRIPE_API_URL: a live key is sent only over https; http:// is for the local simulator");
  return problems;
}

export function smtpUrlOf(config: PortalConfig): string {
  return config.SMTP_URL ?? `smtp://127.0.0.1:${config.MAIL_SMTP_PORT}`;
}

export function settingsFrom(config: PortalConfig): PortalSettings {
  const fromAddress = /<([^>]+)>/.exec(config.MAIL_FROM)?.[1] ?? config.MAIL_FROM;
  return {
    publicUrl: config.PORTAL_URL.replace(/\/+$/, ""),
    natsReplicas: config.NATS_REPLICAS,
    apiUrl: config.PUBLIC_API_URL.replace(/\/+$/, ""),
    gateway: { url: config.GATEWAY_URL.replace(/\/+$/, ""), secret: config.PORTAL_GATEWAY_SECRET },
    supportEmail: config.SUPPORT_EMAIL ?? fromAddress,
    mailLimits: {
      perAddress: config.PORTAL_MAIL_PER_ADDRESS_PER_HOUR,
      perAddressAllClients: config.PORTAL_MAIL_PER_ADDRESS_ALL_CLIENTS_PER_HOUR,
      perClient: config.PORTAL_MAIL_PER_CLIENT_PER_HOUR,
      windowSeconds: 3_600,
    },
    sessionTtlMs: config.PORTAL_SESSION_HOURS * 3_600_000,
    trustProxy: config.PORTAL_TRUST_PROXY,
    billingTimeoutMs: config.BILLING_TIMEOUT_MS,
    failedAuth: { burst: config.FAILED_AUTH_BURST, qps: config.FAILED_AUTH_QPS },
    sdkDir: config.PORTAL_SDK_DIR,
    payments: paymentsSettings(config),
    oauthSigningKey: config.OAUTH_SIGNING_KEY,
    oauthRegistrationsPerClientPerHour: config.OAUTH_REGISTRATIONS_PER_CLIENT_PER_HOUR,
    notices: {
      sealingKey: config.WEBHOOK_SEALING_KEY ? sealingKeyFrom(config.WEBHOOK_SEALING_KEY) : undefined,
      perAccountPerHour: config.NOTICES_PER_ACCOUNT_PER_HOUR,
      allowLoopbackWebhooks: ["1", "true"].includes(config.WEBHOOKS_ALLOW_LOOPBACK),
    },
  };
}

function paymentsSettings(config: PortalConfig): PaymentsSettings | undefined {
  const { STRIPE_SECRET_KEY: secretKey, STRIPE_WEBHOOK_SECRET: webhookSecret } = config;
  if (!secretKey || !webhookSecret) return undefined;
  return { secretKey, webhookSecret, apiUrl: config.STRIPE_API_URL?.replace(/\/+$/, "") };
}
