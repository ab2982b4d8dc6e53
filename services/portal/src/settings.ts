/** What the portal is told at start (main.ts derives it from the environment; tests give it directly). */
import type { FailedAuthLimits } from "@rda/service-kit";
import type { SigningKey } from "./oauth/signing-key.ts";

export interface MailLimits {
  /** Sign-in emails one address may receive per window from one client (or one known browser). */
  readonly perAddress: number;
  /**
   * Sign-in emails one address may receive per window from all clients together, browsers that
   * signed in to it before excepted; default four times `perAddress`.
   */
  readonly perAddressAllClients?: number;
  /** Sign-in emails one client address (IP) may request per window. */
  readonly perClient: number;
  readonly windowSeconds: number;
}

export interface PortalSettings {
  /** PORTAL_URL without a trailing slash: links in emails, and whether cookies are Secure (https). */
  readonly publicUrl: string;
  /** NATS_REPLICAS: copies of the notice stream it sets up (default 1). */
  readonly natsReplicas?: number;
  /** PUBLIC_API_URL: the API base written into the "first request" snippets. */
  readonly apiUrl: string;
  /**
   * GATEWAY_URL and PORTAL_GATEWAY_SECRET: the gateway's internal listener, where the monitor and
   * export pages ask for a signed-in person's key (gateway-client.ts), and the secret the portal's
   * credentials are signed with. No secret: those pages answer "unavailable".
   */
  readonly gateway: { readonly url: string; readonly secret: string | undefined };
  /** Where developers write to, e.g. to have credits added when card payments are not set up. */
  readonly supportEmail: string;
  readonly mailLimits: MailLimits;
  readonly sessionTtlMs: number;
  /** Fastify's `trustProxy`: whose X-Forwarded-For names the client (for the per-client mail limit). */
  readonly trustProxy: boolean | number | string;
  readonly billingTimeoutMs: number;
  /**
   * Refused keys one client address may send to the usage JSON (FAILED_AUTH_BURST, FAILED_AUTH_QPS,
   * the gateway's variables and its limit); default 20 in a row, then 1 per second.
   */
  readonly failedAuth?: FailedAuthLimits;
  /** OAUTH_SIGNING_KEY: signs access tokens; unset, one is made at start (one process only). */
  readonly oauthSigningKey?: SigningKey;
  /** OAUTH_REGISTRATIONS_PER_CLIENT_PER_HOUR: dynamic client registrations per client address. */
  readonly oauthRegistrationsPerClientPerHour?: number;
  /** How long a sign-in link works; 15 minutes unless a test says otherwise. */
  readonly loginLinkTtlMs?: number;
  /** PORTAL_SDK_DIR: where the SDK's tarballs are served from; default routes/sdk.ts' DEFAULT_SDK_DIR. */
  readonly sdkDir?: string;
  /** Card payments through Stripe; undefined: none (the billing page says how else to buy credits). */
  readonly payments?: PaymentsSettings;
  /** Notices by email and webhook; defaults: no webhooks (no sealing key), 20 an hour. */
  readonly notices?: NoticesSettings;
}

export interface NoticesSettings {
  /** WEBHOOK_SEALING_KEY: seals webhook signing secrets at rest; unset, webhooks cannot be set up. */
  readonly sealingKey?: Buffer;
  /** NOTICES_PER_ACCOUNT_PER_HOUR: optional notices one account may get per hour. */
  readonly perAccountPerHour?: number;
  /** WEBHOOKS_ALLOW_LOOPBACK: also deliver to http://127.0.0.1, for local development only. */
  readonly allowLoopbackWebhooks?: boolean;
}

export interface PaymentsSettings {
  /** STRIPE_SECRET_KEY. */
  readonly secretKey: string;
  /** STRIPE_WEBHOOK_SECRET: the webhook endpoint's signing secret. */
  readonly webhookSecret: string;
  /** STRIPE_API_URL: another Stripe API base (the local simulator); undefined: Stripe itself. */
  readonly apiUrl?: string;
}

export const LOGIN_LINK_TTL_MS = 15 * 60_000;

/** Cookies are Secure, and carry the `__Host-` prefix, when the portal is served over TLS. */
export function servedOverTls(settings: PortalSettings): boolean {
  return settings.publicUrl.startsWith("https:");
}

export const DEFAULT_FAILED_AUTH: FailedAuthLimits = { burst: 20, qps: 1 };
