/** What every route handler needs, built once in `buildPortal`. */
import type { FailedAuthLimiter, Logger } from "@rda/service-kit";
import type Stripe from "stripe";
import type { PortalBilling } from "./billing-client.ts";
import type { PortalGateway } from "./gateway-client.ts";
import type { Mailer } from "./mail/mailer.ts";
import type { NoticeParts } from "./notices/notices.ts";
import type { PortalOAuth } from "./oauth/portal-oauth.ts";
import type { PortalSettings } from "./settings.ts";
import type { AccountStore } from "./store/accounts.ts";
import type { DeviceStore } from "./store/devices.ts";
import type { LoginLinks } from "./store/login-links.ts";
import type { MailLimiter } from "./store/mail-limits.ts";
import type { PendingSecrets } from "./store/pending-secrets.ts";
import type { SessionStore } from "./store/sessions.ts";

export interface PortalContext {
  readonly logger: Logger;
  readonly settings: PortalSettings;
  readonly accounts: AccountStore;
  readonly links: LoginLinks;
  readonly sessions: SessionStore;
  /** New key secrets between their form's redirect and the page that shows them once. */
  readonly pendingSecrets: PendingSecrets;
  readonly mailLimits: MailLimiter;
  readonly devices: DeviceStore;
  readonly mailer: Mailer;
  readonly billing: PortalBilling;
  /** A signed-in person's key's monitors and exports, asked of the gateway as the key's API calls are. */
  readonly gateway: PortalGateway;
  /** Refused keys per client address at the usage JSON: the gateway's limit (service-kit). */
  readonly failedAuth: FailedAuthLimiter;
  /** The OAuth authorization server of the MCP endpoint (oauth/). */
  readonly oauth: PortalOAuth;
  /** Names and attributes of the portal's cookies (http/cookies.ts). */
  readonly cookies: CookieSettings;
  /** Card payments: the Stripe client and the webhook signing secret; undefined when not set up. */
  readonly payments?: {
    readonly stripe: Stripe;
    readonly webhookSecret: string;
    /** Where "Pay" redirects the browser (the CSP's form-action must allow it). */
    readonly checkoutOrigins: readonly string[];
  };
  /** Notices by email and signed webhook (notices/). */
  readonly notices: NoticeParts;
  /** Readiness checks: Redis ready, NATS connected. */
  readonly readiness: () => Record<string, boolean>;
}

export interface CookieSettings {
  readonly session: string;
  readonly csrf: string;
  /** A browser that signed in before (store/devices.ts). */
  readonly device: string;
  readonly secure: boolean;
}
