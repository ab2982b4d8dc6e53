/**
 * `buildPortal(deps)`: the developer portal as a value. It takes live connections, a mailer and
 * settings, and neither reads the environment nor listens; `main.ts` is the process shell.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import fastifyCookie from "@fastify/cookie";
import fastifyCsrf from "@fastify/csrf-protection";
import fastifyFormbody from "@fastify/formbody";
import fastifyStatic from "@fastify/static";
import fastifyView from "@fastify/view";
import type { Subjects } from "@rda/contracts";
import {
  createFailedAuthLimiter,
  isNatsConnected,
  isRedisReady,
  type Logger,
  type NatsConnection,
  type PortalRedisKeys,
  type Redis,
  trustProxyOption,
} from "@rda/service-kit";
import { Eta } from "eta";
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from "fastify";
import { createPortalBilling } from "./billing-client.ts";
import type { PortalContext } from "./context.ts";
import { createPortalGateway } from "./gateway-client.ts";
import { cookieAttributes, cookieSettings } from "./http/cookies.ts";
import { installHooks, installSecurityHeaders } from "./http/hooks.ts";
import { installSessionHook } from "./http/session.ts";
import type { Mailer } from "./mail/mailer.ts";
import { buildNoticeParts } from "./notices/notices.ts";
import { registerOAuthServer, renderProviderError } from "./oauth/mount.ts";
import { createPortalOAuth } from "./oauth/portal-oauth.ts";
import { createStripeClient } from "./payments/stripe-client.ts";
import { registerStripeWebhook } from "./routes/stripe-webhook.ts";
import { registerUnsubscribe } from "./routes/unsubscribe.ts";
import { registerRoutes } from "./routes.ts";
import {
  DEFAULT_FAILED_AUTH,
  LOGIN_LINK_TTL_MS,
  type PaymentsSettings,
  type PortalSettings,
  servedOverTls,
} from "./settings.ts";
import { createAccountStore } from "./store/accounts.ts";
import { createDeviceStore } from "./store/devices.ts";
import { createLoginLinks } from "./store/login-links.ts";
import { createMailLimiter } from "./store/mail-limits.ts";
import { createPendingSecrets } from "./store/pending-secrets.ts";
import { createSessionStore } from "./store/sessions.ts";

export interface PortalDeps {
  readonly redis: Redis;
  readonly nats: NatsConnection;
  readonly subjects: Subjects;
  readonly keys: PortalRedisKeys;
  readonly mailer: Mailer;
  readonly logger: Logger;
  readonly settings: PortalSettings;
  /** Epoch milliseconds; tests move it to expire links and sessions. */
  readonly now?: () => number;
}

const HERE = dirname(fileURLToPath(import.meta.url));
/** htmx from its package; a built portal (scripts/build.mjs) carries its copy in public/vendor/. */
const HTMX_DIST = existsSync(join(HERE, "public", "vendor", "htmx.min.js"))
  ? join(HERE, "public", "vendor")
  : dirname(createRequire(import.meta.url).resolve("htmx.org/dist/htmx.min.js"));
/** The portal's forms carry an email address or a label: a few kilobytes is plenty. */
const BODY_LIMIT_BYTES = 16_384;

export function buildPortal(deps: PortalDeps): FastifyInstance {
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    // One access line per request is written by the onResponse hook (http/hooks.ts), without the URL.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: "request_id" }),
    trustProxy: trustProxyOption(deps.settings.trustProxy),
    bodyLimit: BODY_LIMIT_BYTES,
    exposeHeadRoutes: false,
    // Long ids reach the route and get the same 404 as any other unknown key, not a bare 414.
    routerOptions: { maxParamLength: 1_000 },
  });
  const ctx = buildContext(deps);
  installSecurityHeaders(app, ctx);
  app.register(fastifyCookie);
  app.register(fastifyCsrf, {
    cookieKey: ctx.cookies.csrf,
    cookieOpts: cookieAttributes(ctx.cookies),
    logLevel: "info",
  });
  app.register(fastifyFormbody, { bodyLimit: BODY_LIMIT_BYTES });
  app.register(fastifyView, {
    engine: { eta: new Eta() },
    root: join(HERE, "views"),
    production: true,
  });
  // The portal's own files, and htmx straight from its package (never a CDN): only its one file.
  app.register(fastifyStatic, {
    root: [join(HERE, "public"), HTMX_DIST],
    prefix: "/static/",
    maxAge: "1h",
    allowedPath: (path, root) => root !== HTMX_DIST || path === "/htmx.min.js",
  });
  // Browsers ask for /favicon.ico whatever the page says: the same icon as the pages' link.
  app.get("/favicon.ico", (_request, reply) => reply.redirect("/static/favicon.svg", 301));
  // The authorization server's own endpoints, beside (not inside) the pages: no session, no CSRF
  // form token (its clients are apps, not pages of ours), bodies read by the provider.
  registerOAuthServer(app, ctx);
  app.register(async (scope) => {
    installSessionHook(scope, ctx);
    installHooks(scope, ctx);
    registerRoutes(scope, ctx);
  });
  // One-click unsubscribe links: no session and no CSRF form token (the link's HMAC is the proof).
  app.register(async (scope) => registerUnsubscribe(scope, ctx));
  // Stripe's webhooks: the raw body, no session and no CSRF (Stripe's signature is the proof).
  app.register(async (scope) => registerStripeWebhook(scope, ctx));
  // Notice events are taken, and notice webhooks sent, by the notices worker (notices-worker.ts),
  // a process of its own: this one only queues (the test notice) and reads (the delivery log).
  return app;
}

/**
 * Stripe's hosted checkout lives on checkout.stripe.com. A simulator's page is wherever the browser
 * reaches it, which the portal cannot know (under compose its API address is not the browser's), so
 * with STRIPE_API_URL set, a development setting, any http(s) origin is allowed.
 */
function checkoutOrigins(payments: PaymentsSettings): string[] {
  return payments.apiUrl === undefined ? ["https://checkout.stripe.com"] : ["http:", "https:"];
}

function buildContext(deps: PortalDeps): PortalContext {
  const { redis, nats, keys, settings, logger } = deps;
  const store = { redis, keys, now: deps.now ?? Date.now };
  const billing = createPortalBilling({
    nats,
    subjects: deps.subjects,
    timeoutMs: settings.billingTimeoutMs,
  });
  const accounts = createAccountStore(store);
  const notices = buildNoticeParts({ redis, keys, accounts, mailer: deps.mailer, logger, settings });
  return {
    logger,
    settings,
    gateway: createPortalGateway(settings.gateway),
    notices,
    accounts,
    links: createLoginLinks(store, settings.loginLinkTtlMs ?? LOGIN_LINK_TTL_MS),
    sessions: createSessionStore(store, settings.sessionTtlMs),
    pendingSecrets: createPendingSecrets(store),
    mailLimits: createMailLimiter(store, settings.mailLimits),
    devices: createDeviceStore(store),
    mailer: deps.mailer,
    failedAuth: createFailedAuthLimiter(settings.failedAuth ?? DEFAULT_FAILED_AUTH),
    billing,
    oauth: createPortalOAuth({
      redis,
      nats,
      subjects: deps.subjects,
      keys,
      logger,
      issuer: settings.publicUrl,
      apiUrl: settings.apiUrl,
      signingKey: settings.oauthSigningKey,
      behindProxy: settings.trustProxy !== false,
      renderError: renderProviderError,
      registrationsPerClientPerHour: settings.oauthRegistrationsPerClientPerHour,
      keyIsActive: async (accountId, keyId) => {
        const shown = await billing.showKey(accountId, keyId);
        return shown.ok ? shown.value !== undefined && !shown.value.revoked : undefined;
      },
    }),
    cookies: cookieSettings(servedOverTls(settings)),
    payments: settings.payments && {
      stripe: createStripeClient(settings.payments),
      webhookSecret: settings.payments.webhookSecret,
      checkoutOrigins: checkoutOrigins(settings.payments),
    },
    readiness: () => ({ redis: isRedisReady(redis), nats: isNatsConnected(nats) }),
  };
}
