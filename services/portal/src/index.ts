export { buildPortal, type PortalDeps } from "./app.ts";
export { loadPortalConfig, type PortalConfig, portalConfigShape, settingsFrom, smtpUrlOf } from "./config.ts";
export { createSmtpMailer, type Mailer, type OutgoingMail } from "./mail/mailer.ts";
export type { NoticeWebhookSettings } from "./notices/notice-webhook.ts";
export { type NoticesWorkerDeps, type RunningNoticesWorker, startNoticesWorker } from "./notices-worker.ts";
export { generateSigningKey, type SigningKey, signingKeyFromPem } from "./oauth/signing-key.ts";
export type { MailLimits, PaymentsSettings, PortalSettings } from "./settings.ts";
export { type RunningPortal, startPortal } from "./start.ts";
