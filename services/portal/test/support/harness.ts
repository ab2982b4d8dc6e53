/**
 * The portal with what it needs, in-process on real servers: billing (the key owner) on the real
 * NATS and Redis in a namespace of its own, a real SMTP capture inbox, and the portal on a free port
 * with a clock the test can move. Tests talk to it over HTTP like a browser, and read mail through
 * the inbox's JSON API. Billing is the portal's one real neighbour here: the monitor and export
 * pages, which ask the gateway (and it the services behind it), are tested through the whole stack
 * (test/e2e/portal.monitors.test.ts, test/browser).
 */

import { randomBytes } from "node:crypto";
import { buildSubjects, type Subjects } from "@rda/contracts";
import { jetstreamManager, openRedis, type Redis, redisKeys } from "@rda/service-kit";
import {
  type CaptureInbox,
  capturingLogger,
  connectTestNats,
  deleteNamespaceKeys,
  freePort,
  startCaptureInbox,
  testNamespace,
  testRedisUrl,
} from "@rda/service-kit/testing";
import { billingSettingsFromEnv, startBilling } from "../../../billing/src/index.ts";
import {
  createSmtpMailer,
  type MailLimits,
  type PortalSettings,
  type RunningPortal,
  startNoticesWorker,
  startPortal,
} from "../../src/index.ts";
import { BrowserlessClient } from "./client.ts";
import { type RefusingSmtp, startRefusingSmtp } from "./refusing-smtp.ts";

export interface PortalHarness {
  readonly url: string;
  readonly namespace: string;
  readonly subjects: Subjects;
  readonly inbox: CaptureInbox;
  readonly redis: Redis;
  /** Every route the portal serves. */
  readonly routes: RunningPortal["routes"];
  /** Moves the portal's clock (links and sessions expire by it). */
  advanceClock(ms: number): void;
  client(options?: { ip?: string }): BrowserlessClient;
  /** Stops billing (the portal stays up), as in an outage of the key service. */
  stopBilling(): Promise<void>;
  /** Stops the portal (billing stays up), as while no replica runs; `startPortal` brings it back. */
  stopPortal(): Promise<void>;
  startPortal(): Promise<void>;
  /** Notice events not yet acked by a portal (waiting or being sent). */
  noticeBacklog(): Promise<number>;
  /** With `refusingSmtp`: the mail server in front of the inbox that refuses when told to. */
  readonly smtp?: RefusingSmtp;
  logLines(): string;
  close(): Promise<void>;
}

export interface HarnessOptions {
  mailLimits?: Partial<MailLimits>;
  maxActiveKeys?: number;
  maxKeysCreated?: number;
  /** Where the portal sends mail instead of the capture inbox (e.g. a closed port). */
  smtpUrl?: string;
  /** Mail goes through a proxy in front of the inbox that can refuse connections (`smtp`). */
  refusingSmtp?: boolean;
  /** Refused keys a client address may send to the usage JSON. */
  failedAuth?: PortalSettings["failedAuth"];
}

export async function startPortalHarness(
  label: string,
  options: HarnessOptions = {},
): Promise<PortalHarness> {
  const namespace = testNamespace(label);
  const subjects = buildSubjects(namespace);
  const keys = redisKeys(namespace);
  const { logger, lines } = capturingLogger("portal");
  const nats = await connectTestNats();
  const redis = await openRedis(testRedisUrl(), "portal-test", logger);
  const inbox = await startCaptureInbox();
  const billing = await startBilling({
    nats,
    redis,
    subjects,
    keys,
    logger,
    settings: billingSettingsFromEnv({
      RATE_LIMIT_QPS: "100",
      RATE_LIMIT_BURST: "100",
      ACCOUNT_MAX_ACTIVE_KEYS: options.maxActiveKeys?.toString(),
      ACCOUNT_MAX_KEYS_CREATED: options.maxKeysCreated?.toString(),
    }),
  });
  let clockOffset = 0;
  const smtp = options.refusingSmtp ? await startRefusingSmtp(inbox.smtpPort) : undefined;
  const mailer = createSmtpMailer({
    url: options.smtpUrl ?? smtp?.smtpUrl ?? inbox.smtpUrl,
    from: "Reddit Data API <portal@test.example>",
  });
  const settings: PortalSettings = {
    publicUrl: "",
    apiUrl: "http://127.0.0.1:8080",
    supportEmail: "help@test.example",
    mailLimits: { perAddress: 100, perClient: 1_000, windowSeconds: 3_600, ...options.mailLimits },
    sessionTtlMs: 3_600_000,
    // Tests name their client address in X-Forwarded-For, as a load balancer in front would.
    trustProxy: true,
    billingTimeoutMs: 5_000,
    failedAuth: options.failedAuth,
    // No gateway: the monitor and export pages answer that they are out of reach.
    gateway: { url: "http://127.0.0.1:9", secret: undefined },
    // Webhooks to the tests' own receivers on 127.0.0.1, and signed unsubscribe links.
    notices: { sealingKey: randomBytes(32), allowLoopbackWebhooks: true },
  };
  // Links in emails must point at this very portal, so its port is chosen before it starts.
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  // The web process and its notices worker (a process of its own in deployments) start and stop
  // together here: "no portal runs" means neither takes notice events.
  const start = async (): Promise<RunningPortal> => {
    const processDeps = { redis, nats, subjects, keys: keys.portal, mailer, logger };
    const portalSettings = { ...settings, publicUrl: url };
    const web = await startPortal(
      { ...processDeps, now: () => Date.now() + clockOffset, settings: portalSettings },
      { port, host: "127.0.0.1" },
    );
    const worker = await startNoticesWorker({ ...processDeps, settings: portalSettings });
    return {
      ...web,
      async stop() {
        await worker.stop();
        await web.stop();
      },
    };
  };
  let portal: RunningPortal = await start();
  let portalRunning = true;
  return {
    url,
    namespace,
    subjects,
    inbox,
    redis,
    routes: portal.routes,
    advanceClock: (ms) => {
      clockOffset += ms;
    },
    client: (clientOptions = {}) => new BrowserlessClient(url, clientOptions.ip),
    stopBilling: () => billing.stop(),
    async stopPortal() {
      await portal.stop();
      portalRunning = false;
    },
    async startPortal() {
      portal = await start();
      portalRunning = true;
    },
    smtp,
    async noticeBacklog() {
      const jsm = await jetstreamManager(nats);
      const info = await jsm.consumers.info(subjects.noticeStream, subjects.noticeConsumer);
      return info.num_pending + info.num_ack_pending;
    },
    logLines: lines,
    async close() {
      if (portalRunning) await portal.stop();
      mailer.close();
      await smtp?.stop();
      await billing.stop();
      await inbox.stop();
      const jsm = await jetstreamManager(nats);
      for (const stream of [subjects.refundStream, subjects.noticeStream])
        await jsm.streams.delete(stream).catch(() => false);
      await deleteNamespaceKeys(redis, namespace);
      redis.disconnect();
      await nats.close();
    },
  };
}
