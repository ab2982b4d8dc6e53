/**
 * Every route the portal serves, in one place. GETs only read; every POST is a form protected by
 * its CSRF token (http/hooks.ts), and every page but the start and sign-in pages needs a session.
 * Stripe's webhook endpoint is the exception to both, in its own scope (routes/stripe-webhook.ts).
 */
import type { FastifyInstance } from "fastify";
import type { PortalContext } from "./context.ts";
import {
  agentClientsPage,
  agentSecretPage,
  createAgentClient,
  revokeAgentClient,
} from "./routes/agent-clients.ts";
import { billingPage, quotePanel, returnPage, returnStatus, startCheckout } from "./routes/billing.ts";
import { createExport, exportAction, exportFile, exportPage, exportsPage } from "./routes/exports.ts";
import {
  createKey,
  keyPage,
  keysPage,
  revokeKey,
  rotateKey,
  secretPage,
  setSpendCap,
  usagePanel,
} from "./routes/keys.ts";
import {
  monitorPage,
  redeliver,
  rotateWebhookSecret,
  sendTestEvent,
  webhookSecretPage,
} from "./routes/monitor-webhooks.ts";
import { createMonitor, deleteMonitor, monitorsPage, previewMonitor } from "./routes/monitors.ts";
import {
  noticeWebhookSecretPage,
  notificationsPage,
  redeliverNotice,
  removeWebhook,
  rotateNoticeWebhookSecret,
  saveKinds,
  saveThreshold,
  saveWebhook,
  sendTestNotice,
} from "./routes/notifications.ts";
import { answerConsent, connectionsPage, consentPage, disconnect } from "./routes/oauth-consent.ts";
import { accountPage, homePage } from "./routes/pages.ts";
import { sdkTarball } from "./routes/sdk.ts";
import {
  confirmLinkPage,
  emailFormPage,
  logOut,
  logOutEverywhere,
  requestLink,
  useLink,
} from "./routes/sign-in.ts";
import { usageJson } from "./routes/usage-json.ts";

export function registerRoutes(app: FastifyInstance, ctx: PortalContext): void {
  app.get("/", homePage(ctx));
  app.get("/signup", emailFormPage(ctx, "signup"));
  app.post("/signup", requestLink(ctx, "signup"));
  app.get("/login", emailFormPage(ctx, "login"));
  app.post("/login", requestLink(ctx, "login"));
  app.get("/auth", confirmLinkPage(ctx));
  app.post("/auth", useLink(ctx));
  app.post("/logout", logOut(ctx));
  app.post("/logout-everywhere", logOutEverywhere(ctx));

  app.get("/keys", keysPage(ctx));
  app.post("/keys", createKey(ctx));
  app.get("/keys/:id", keyPage(ctx));
  app.get("/keys/:id/secret", secretPage(ctx));
  app.get("/keys/:id/usage", usagePanel(ctx));
  app.get("/keys/:id/usage.json", usageJson(ctx));
  app.post("/keys/:id/rotate", rotateKey(ctx));
  app.post("/keys/:id/revoke", revokeKey(ctx));
  app.post("/keys/:id/cap", setSpendCap(ctx));
  app.get("/keys/:id/exports", exportsPage(ctx));
  app.post("/keys/:id/exports", createExport(ctx));
  app.get("/keys/:id/exports/:exportId", exportPage(ctx));
  app.get("/keys/:id/exports/:exportId/progress", exportPage(ctx, true));
  app.get("/keys/:id/exports/:exportId/file", exportFile(ctx));
  for (const action of ["start", "pause", "resume", "cancel"] as const)
    app.post(`/keys/:id/exports/:exportId/${action}`, exportAction(ctx, action));
  app.get("/keys/:id/monitors", monitorsPage(ctx));
  app.post("/keys/:id/monitors/preview", previewMonitor(ctx));
  app.post("/keys/:id/monitors", createMonitor(ctx));
  app.post("/keys/:id/monitors/:monitorId/delete", deleteMonitor(ctx));
  app.get("/keys/:id/monitors/:monitorId", monitorPage(ctx));
  app.get("/keys/:id/monitors/:monitorId/secret", webhookSecretPage(ctx));
  app.post("/keys/:id/monitors/:monitorId/test", sendTestEvent(ctx));
  app.post("/keys/:id/monitors/:monitorId/rotate-secret", rotateWebhookSecret(ctx));
  app.post("/keys/:id/monitors/:monitorId/deliveries/:deliveryId/redeliver", redeliver(ctx));
  app.get("/notifications", notificationsPage(ctx));
  app.post("/notifications/threshold", saveThreshold(ctx));
  app.post("/notifications/kinds", saveKinds(ctx));
  app.post("/notifications/webhook", saveWebhook(ctx));
  app.get("/notifications/webhook/secret", noticeWebhookSecretPage(ctx));
  app.post("/notifications/webhook/remove", removeWebhook(ctx));
  app.post("/notifications/webhook/rotate-secret", rotateNoticeWebhookSecret(ctx));
  app.post("/notifications/webhook/deliveries/:deliveryId/redeliver", redeliverNotice(ctx));
  app.post("/notifications/test", sendTestNotice(ctx));

  app.get("/oauth/consent/:uid", consentPage(ctx));
  app.post("/oauth/consent/:uid", answerConsent(ctx));
  app.get("/connections", connectionsPage(ctx));
  app.post("/connections/:grantId/revoke", disconnect(ctx));
  app.get("/agents", agentClientsPage(ctx));
  app.post("/agents", createAgentClient(ctx));
  app.get("/agents/:clientId/secret", agentSecretPage(ctx));
  app.post("/agents/:clientId/revoke", revokeAgentClient(ctx));

  app.get("/billing", billingPage(ctx));
  app.get("/billing/quote", quotePanel());
  app.post("/billing/checkout", startCheckout(ctx));
  app.get("/billing/return", returnPage(ctx));
  app.get("/billing/return/status", returnStatus(ctx));
  app.get("/account", accountPage(ctx));
  app.get("/sdk/:file", sdkTarball(ctx));

  app.get("/livez", async () => ({ status: "ok" }));
  app.get("/readyz", async (_request, reply) => {
    const checks = ctx.readiness();
    const ready = Object.values(checks).every(Boolean);
    return reply.code(ready ? 200 : 503).send({ status: ready ? "ready" : "not ready", checks });
  });
}
