/**
 * The whole stack in-process for black-box tests: the upstream simulator, billing, the four adapters,
 * the MCP service and the gateway, on real Redis and NATS, in one fresh namespace, each on port 0;
 * on request also the developer portal with a real SMTP capture inbox, and card payments through the
 * payments simulator (the portal's real `stripe` SDK pointed at it), and NATS as deployed: a private
 * nats-server with the shipped permissions, each service connected as its own identity.
 * Tests talk to it only over HTTP (and create or revoke keys through billing over NATS, as the
 * operator CLI does).
 */
import { randomBytes } from "node:crypto";
import {
  buildSubjects,
  type CreatedKey,
  createKeyReplySchema,
  revokeKeyReplySchema,
  rotateKeyReplySchema,
  type Subjects,
  showKeyReplySchema,
} from "@rda/contracts";
import {
  connectNats,
  jetstreamManager,
  type Logger,
  type NatsConnection,
  openRedis,
  type Redis,
  type RedisKeys,
  Registry,
  redisKeys,
  requestJson,
} from "@rda/service-kit";
import {
  type CaptureInbox,
  connectTestNats,
  deleteNamespaceKeys,
  freePort,
  silentLogger,
  startCaptureInbox,
  testNamespace,
  testRedisUrl,
} from "@rda/service-kit/testing";
import { loadAdapterConfig } from "../../packages/adapter-kit/src/index.ts";
import {
  createRedisCacheStore,
  createRedisPacer,
  DEFAULT_FRESHNESS_BOUNDS,
  type FreshnessBounds,
  type PacerSettings,
} from "../../packages/upstream-client/src/index.ts";
import { startAdapterCommunities } from "../../services/adapter-communities/src/index.ts";
import { startAdapterPosts } from "../../services/adapter-posts/src/index.ts";
import { startAdapterTree } from "../../services/adapter-tree/src/index.ts";
import { startAdapterUsers } from "../../services/adapter-users/src/index.ts";
import {
  type BillingSettings,
  billingSettingsFromEnv,
  startBilling,
} from "../../services/billing/src/index.ts";
import {
  createMetrics,
  type GatewayMetrics,
  type GatewaySettings,
  gatewaySettingsFromEnv,
  type RunningGateway,
  startGateway,
} from "../../services/gateway/src/index.ts";
import { startMcp } from "../../services/mcp/src/index.ts";
import { type RunningPaymentsSim, startPaymentsSim } from "../../services/payments-sim/src/index.ts";
import {
  createSmtpMailer,
  generateSigningKey,
  type NoticeWebhookSettings,
  type PaymentsSettings,
  type PortalSettings,
  type SigningKey,
  startNoticesWorker,
  startPortal,
} from "../../services/portal/src/index.ts";
import { type RefusingSmtp, startRefusingSmtp } from "../../services/portal/test/support/refusing-smtp.ts";
import {
  type BudgetQuirks,
  type RunningSimulator,
  type StartOptions as SimulatorOptions,
  startSimulator,
} from "../../services/upstream-sim/src/index.ts";
import {
  NATS_IDENTITIES,
  type NatsIdentityName,
  newPassword,
  type ShippedServer,
  startShippedNats,
} from "./shipped-servers.ts";

/** How long one part of the stack may take to stop before the others go on without it. */
const PART_STOP_MS = 10_000;

export interface StackOptions {
  /** Billing's sweep for pending debits past their deadline, in ms; default 1000. */
  pendingSweepMs?: number;
  /** Adapters' upstream deadline; short keeps fault tests fast. Default 1500 ms. */
  upstreamDeadlineMs?: number;
  /** Adapters' upstream attempt timeout; default half the deadline. */
  upstreamAttemptMs?: number;
  /** The simulator's budget quirks (how the real upstream rations clients); default none. */
  simulatorBudget?: BudgetQuirks;
  /** The adapters share one pacer with these settings, as replicas do; default unpaced. */
  upstreamBudget?: PacerSettings;
  /** Run the adapters in this process; false leaves them to the test (as child processes). Default true. */
  inProcessAdapters?: boolean;
  /**
   * The adapters' shared response cache, in the stack's Redis (or `redis`), with these bounds
   * (default: the product's); none: no cache, as most tests that count the simulator's requests expect.
   */
  responseCache?: {
    bounds?: FreshnessBounds;
    redis?: Redis;
    /** The gateway's bound on a cached answer's read (default: the product's 250 ms). */
    readTimeoutMs?: number;
  };
  /** Replicas of each in-process adapter, sharing pacer and cache as in production; default 1. */
  adapterReplicas?: number;
  /** The simulator's latency for every answer, in ms; default 0. */
  simulatorLatencyMs?: number;
  logger?: Logger;
  /** Also start the developer portal and a capture inbox for its mail. */
  portal?: boolean;
  /** Also card payments: the payments simulator, its webhooks sent to the portal (implies `portal`). */
  payments?: boolean;
  /** The upstream simulator's profile, quirks and corpus anchor (services/upstream-sim/src/profile.ts). */
  simulator?: Pick<SimulatorOptions, "profile" | "quirks" | "anchor" | "scale" | "clock">;
  /** The portal's mail goes through a mail server that refuses when told to (`portal.smtp`). */
  refusingSmtp?: boolean;
  /** Portal settings that differ from the stack's (e.g. `trustProxy` to test per-client limits). */
  portalSettings?: Partial<PortalSettings>;
  /** The notices worker's webhook times (a shorter retry schedule), production's otherwise. */
  noticeWebhooks?: Partial<NoticeWebhookSettings>;
  /** Billing's rate limit for new keys (portal accounts' keys get it); default 2/s, burst 10. */
  defaultRateLimit?: { qps: number; burst: number };
  /**
   * NATS as deployed: a private nats-server running deploy/nats with the shipped permissions
   * (deploy/nats/auth.conf), every service connected as its own identity (billing, the gateways,
   * each adapter, the portal; `natsAs` for a service a test starts beside the stack), on
   * production's subjects, which the permissions are written for. The stack's own `nats` is the
   * operator CLI's identity (`admin`). Default: the shared test NATS, one unrestricted connection.
   */
  shippedNats?: boolean;
}

export interface PortalParts {
  readonly url: string;
  readonly inbox: CaptureInbox;
  /** The key the portal signs OAuth access tokens with (tests forge tokens with it). */
  readonly signingKey: SigningKey;
  /** Every route the portal serves (method and URL pattern). */
  readonly routes: readonly { method: string; url: string }[];
  /** With `refusingSmtp`: the mail server in front of the inbox, refusing when told to. */
  readonly smtp?: RefusingSmtp;
}

export interface PaymentsParts {
  readonly sim: RunningPaymentsSim;
  /** What the portal was given: the simulator's address, its key and the webhook signing secret. */
  readonly settings: Required<PaymentsSettings>;
  /** Another portal replica (same Redis, NATS and settings) on its own port; its base URL. */
  startPortalReplica(): Promise<string>;
}

export interface KeyOptions {
  credits?: number;
  qps?: number;
  burst?: number;
}

export interface Stack {
  /**
   * The environment the stack's services were configured from, as a deployment shares one, and the
   * settings billing and the gateways resolved from it with the code their main.ts runs.
   */
  readonly environment: Readonly<Record<string, string | undefined>>;
  readonly settings: { readonly billing: BillingSettings; readonly gateway: GatewaySettings };
  readonly namespace: string;
  readonly subjects: Subjects;
  readonly keys: RedisKeys;
  readonly gatewayUrl: string;
  /** The gateways' shared secret for the MCP service's internal credentials. */
  readonly internalSecret: string;
  /** Replica A's internal listener, where the MCP service calls. */
  readonly gatewayInternalUrl: string;
  /** The MCP service itself (behind the gateway's /mcp). */
  readonly mcpUrl: string;
  readonly simulatorUrl: string;
  readonly simulator: RunningSimulator;
  /** The stack's own connection (with `shippedNats`: the operator CLI's identity, `admin`). */
  readonly nats: NatsConnection;
  /**
   * A connection as one identity of deploy/nats/auth.conf, for a service a test runs beside the
   * stack (monitors, exports) or a refusal it checks; without `shippedNats`, the stack's own `nats`.
   */
  natsAs(identity: NatsIdentityName): Promise<NatsConnection>;
  /** A Redis client for tests that inspect shared state (the pacer's state, pending debits). */
  readonly redis: Redis;
  /** Present when started with `portal: true`. */
  readonly portal?: PortalParts;
  /** Present when started with `payments: true`. */
  readonly payments?: PaymentsParts;
  createKey(options?: KeyOptions): Promise<CreatedKey>;
  revokeKey(id: string): Promise<void>;
  /** A new secret for the key, as the operator CLI and the portal ask for it. */
  rotateKey(id: string): Promise<string>;
  /** A key's balance, as billing holds it. */
  balanceOf(id: string): Promise<number>;
  /**
   * The sum of one counter's samples over every gateway and adapter of the stack (each has its own
   * registry, as each process does), counting the samples whose labels include `labels`: what an
   * operator's dashboard adds up, e.g. `gateway_rate_limited_total` with `{scope: "global"}`.
   */
  metric(name: string, labels?: Readonly<Record<string, string>>): Promise<number>;
  /** An outage of billing (the services stay up), until `startBilling`. */
  stopBilling(): Promise<void>;
  startBilling(): Promise<void>;
  /** Another gateway replica on the same services and Redis, with its own settings. */
  startGateway(settings?: Partial<GatewaySettings>, metrics?: GatewayMetrics): Promise<RunningGateway>;
  /** Sets a simulator fault (POST /__sim/faults: docs/operations.md#fault-control). */
  fault(spec: { mode: string; rate?: number; path?: string; count?: number }): Promise<void>;
  clearFaults(): Promise<void>;
  stop(): Promise<void>;
}

const BILLING_TIMEOUT_MS = 5_000;

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const logger = options.logger ?? silentLogger();
  const namespace = testNamespace("e2e");
  // The shipped permissions name production's subjects; Redis keys stay in the test's namespace.
  const subjects = buildSubjects(options.shippedNats ? "" : namespace);
  const keys = redisKeys(namespace);
  const natsPlane = options.shippedNats ? await startShippedNatsPlane(logger) : undefined;
  const nats = natsPlane ? await natsPlane.as("admin") : await connectTestNats();
  const natsAs = async (identity: NatsIdentityName) => (natsPlane ? natsPlane.as(identity) : nats);
  const redis: Redis = await openRedis(testRedisUrl(), "e2e", logger);
  const stoppers: (() => Promise<unknown>)[] = [];
  /** The metrics of every gateway and adapter started, one registry each. */
  const registries: Registry[] = [];
  const gatewayMetrics = () => {
    const metrics = createMetrics();
    registries.push(metrics.registry);
    return metrics;
  };

  const simulator = await startSimulator({
    seed: 42,
    port: 0,
    host: "127.0.0.1",
    budget: options.simulatorBudget,
    latencyMs: options.simulatorLatencyMs,
    ...options.simulator,
  });
  stoppers.push(() => simulator.close());
  // With card payments, billing holds the webhook secret too and checks every event's signature.
  const webhookSecret = options.payments ? `whsec_e2e_${randomBytes(12).toString("hex")}` : undefined;
  const withPortal = options.portal || options.payments;
  const portalPort = withPortal ? await freePort() : 0;
  const portalUrl = `http://127.0.0.1:${portalPort}`;
  // The public gateway's port is known before it starts: it is the OAuth resource the portal issues
  // tokens for, and the replicas share the secret of the MCP service's internal credentials.
  const gatewayPort = await freePort();
  const internalSecret = randomBytes(32).toString("base64url");
  // The portal's and the gateways' own secret for the portal's credentials (never the MCP service's).
  const portalSecret = randomBytes(32).toString("base64url");
  const upstreamDeadlineMs = options.upstreamDeadlineMs ?? 1_500;
  // The upstream client's own rule when no attempt timeout is given: half the call's deadline.
  const upstreamAttemptMs = options.upstreamAttemptMs ?? Math.ceil(upstreamDeadlineMs / 2);
  // The only values the stack chooses; every other setting is production's default, resolved by
  // the services' own settings code.
  const environment = {
    UPSTREAM_ATTEMPT_TIMEOUT_MS: String(upstreamAttemptMs),
    UPSTREAM_DEADLINE_MS: String(upstreamDeadlineMs),
    ADAPTER_TIMEOUT_MS: String(upstreamDeadlineMs + 2_000),
    PENDING_SWEEP_MS: options.pendingSweepMs?.toString(),
    RATE_LIMIT_QPS: options.defaultRateLimit?.qps.toString(),
    RATE_LIMIT_BURST: options.defaultRateLimit?.burst.toString(),
    STRIPE_WEBHOOK_SECRET: webhookSecret,
    TOPUP_URL: withPortal ? `${portalUrl}/billing` : "https://example.com/topup",
    MCP_URL: "http://127.0.0.1:9",
    PORTAL_URL: portalUrl,
    PUBLIC_API_URL: `http://127.0.0.1:${gatewayPort}`,
    GATEWAY_INTERNAL_SECRET: internalSecret,
    PORTAL_GATEWAY_SECRET: portalSecret,
  };
  const billingDeps = {
    nats: await natsAs("billing"),
    redis,
    subjects,
    keys,
    logger,
    settings: billingSettingsFromEnv(environment),
  };
  let billing = await startBilling(billingDeps);
  stoppers.push(() => billing.stop());
  const adapterConfig = loadAdapterConfig({ health: 0, metrics: 0 }, environment);
  const adapterDeps = {
    subjects,
    upstreamUrl: simulator.url,
    logger,
    upstream: {
      deadlineMs: adapterConfig.UPSTREAM_DEADLINE_MS,
      attemptTimeoutMs: adapterConfig.UPSTREAM_ATTEMPT_TIMEOUT_MS,
    },
    pacer:
      options.upstreamBudget && createRedisPacer(redis, keys.upstreamPacer, options.upstreamBudget, logger),
    cache: options.responseCache && {
      store: createRedisCacheStore(options.responseCache.redis ?? redis, keys.upstreamCache, {
        maxBytes: 64 * 1024 * 1024,
        maxEntryBytes: 2 * 1024 * 1024,
        longestTtlS: 3_600,
      }),
      bounds: options.responseCache.bounds ?? DEFAULT_FRESHNESS_BOUNDS,
    },
  };
  const adapters =
    options.inProcessAdapters === false
      ? []
      : ([
          [startAdapterPosts, "adapter-posts"],
          [startAdapterTree, "adapter-tree"],
          [startAdapterCommunities, "adapter-communities"],
          [startAdapterUsers, "adapter-users"],
        ] as const);
  for (const [start, identity] of adapters) {
    for (let replica = 0; replica < (options.adapterReplicas ?? 1); replica++) {
      const registry = new Registry();
      registries.push(registry);
      const adapter = await start({ ...adapterDeps, nats: await natsAs(identity), registry });
      stoppers.push(() => adapter.stop());
    }
  }
  const gatewayNats = await natsAs("gateway");

  const gatewaySettings = (overrides: Partial<GatewaySettings> = {}): GatewaySettings => ({
    ...gatewaySettingsFromEnv(environment),
    cacheReadTimeoutMs: options.responseCache?.readTimeoutMs,
    ...overrides,
  });
  // The gateway proxies /mcp to the MCP service, which calls a gateway back on its internal
  // listener: two gateway replicas sharing Redis limits, as in production. MCP calls replica A's
  // internal listener; tests call replica B.
  const replicaA = await startGateway(
    {
      redis,
      nats: gatewayNats,
      subjects,
      keys,
      logger,
      settings: gatewaySettings(),
      metrics: gatewayMetrics(),
    },
    { port: 0, host: "127.0.0.1" },
  );
  stoppers.push(() => replicaA.stop());
  const mcp = await startMcp({ port: 0, host: "127.0.0.1", gatewayUrl: replicaA.internalUrl, logger });
  stoppers.push(() => mcp.stop());
  const gateway = await startGateway(
    {
      redis,
      nats: gatewayNats,
      subjects,
      keys,
      logger,
      settings: gatewaySettings({ mcpUrl: mcp.url }),
      metrics: gatewayMetrics(),
    },
    { port: gatewayPort, host: "127.0.0.1" },
  );
  stoppers.push(() => gateway.stop());
  const sim = webhookSecret
    ? await startSimulatedStripe(`${portalUrl}/stripe/webhook`, webhookSecret)
    : undefined;
  if (sim) stoppers.push(() => sim.sim.close());
  const portalDeps = {
    redis,
    nats: await natsAs("portal"),
    subjects,
    keys,
    logger,
    apiUrl: gateway.url,
    gateway: { url: gateway.internalUrl, secret: portalSecret },
    payments: sim?.settings,
    overrides: options.portalSettings,
    noticeWebhooks: options.noticeWebhooks,
    refusingSmtp: options.refusingSmtp,
  };
  const portal = withPortal ? await startPortalParts({ ...portalDeps, port: portalPort }) : undefined;
  if (portal) stoppers.push(portal.stop);
  const payments: PaymentsParts | undefined = sim && {
    ...sim,
    async startPortalReplica() {
      const replica = await onFreePort((port) => startPortalParts({ ...portalDeps, port }));
      stoppers.push(replica.stop);
      return replica.url;
    },
  };

  return {
    environment,
    settings: { billing: billingDeps.settings, gateway: gatewaySettings() },
    namespace,
    subjects,
    keys,
    gatewayUrl: gateway.url,
    gatewayInternalUrl: replicaA.internalUrl,
    internalSecret,
    mcpUrl: mcp.url,
    simulatorUrl: simulator.url,
    simulator,
    nats,
    natsAs,
    redis,
    portal,
    payments,
    async createKey({ credits = 100, qps = 100, burst = 100 } = {}) {
      const request = { credits, rate_limit: { qps, burst }, label: "e2e" };
      const subject = subjects.billing.createKey;
      const reply = await requestJson(nats, subject, request, createKeyReplySchema, BILLING_TIMEOUT_MS);
      if (!reply.ok) throw new Error(`cannot create a key: ${reply.error.message}`);
      if (reply.value.outcome !== "created") throw new Error(`key refused: ${JSON.stringify(reply.value)}`);
      return reply.value;
    },
    async revokeKey(id) {
      const subject = subjects.billing.revokeKey;
      const reply = await requestJson(nats, subject, { id }, revokeKeyReplySchema, BILLING_TIMEOUT_MS);
      if (!reply.ok || reply.value.outcome === "not_found") throw new Error(`cannot revoke ${id}`);
    },
    async rotateKey(id) {
      const subject = subjects.billing.rotateKey;
      const reply = await requestJson(nats, subject, { id }, rotateKeyReplySchema, BILLING_TIMEOUT_MS);
      if (!reply.ok || reply.value.outcome !== "rotated") throw new Error(`cannot rotate ${id}`);
      return reply.value.key;
    },
    async balanceOf(id) {
      const subject = subjects.billing.showKey;
      const reply = await requestJson(nats, subject, { id }, showKeyReplySchema, BILLING_TIMEOUT_MS);
      if (!reply.ok || !reply.value.found) throw new Error(`no key ${id}`);
      return reply.value.key.credits_balance;
    },
    async metric(name, labels = {}) {
      let sum = 0;
      for (const registry of registries) {
        const metric = registry.getSingleMetric(name);
        if (metric === undefined) continue;
        for (const sample of (await metric.get()).values) {
          const sampleLabels = sample.labels as Record<string, unknown>;
          if (Object.entries(labels).every(([label, value]) => sampleLabels[label] === value))
            sum += sample.value;
        }
      }
      return sum;
    },
    stopBilling: () => billing.stop(),
    async startBilling() {
      billing = await startBilling(billingDeps);
    },
    async startGateway(overrides = {}, given) {
      const metrics = given ?? gatewayMetrics();
      if (given) registries.push(given.registry);
      const extra = await startGateway(
        {
          redis,
          nats: gatewayNats,
          subjects,
          keys,
          logger,
          settings: gatewaySettings(overrides),
          metrics,
        },
        { port: 0, host: "127.0.0.1" },
      );
      stoppers.push(() => extra.stop());
      return extra;
    },
    async fault(spec) {
      const response = await fetch(`${simulator.url}/__sim/faults`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(spec),
      });
      if (!response.ok) throw new Error(`simulator refused the fault: ${await response.text()}`);
    },
    async clearFaults() {
      await fetch(`${simulator.url}/__sim/faults`, { method: "DELETE" });
    },
    async stop() {
      // Each part gets a bound, as each shutdown step of a service does (service-kit onShutdown): a
      // part that hangs is named and passed over, and the rest still stop.
      for (const stop of stoppers.reverse()) {
        let timer: NodeJS.Timeout | undefined;
        const overran = await Promise.race([
          stop().then(
            () => false,
            () => false,
          ),
          new Promise<true>((resolve) => {
            timer = setTimeout(() => resolve(true), PART_STOP_MS);
          }),
        ]);
        clearTimeout(timer);
        if (overran)
          console.warn(
            `test stack: a part did not stop within ${PART_STOP_MS} ms: ${String(stop).slice(0, 120)}`,
          );
      }
      // A private NATS server goes with its streams; on the shared one, the namespace's are deleted.
      if (natsPlane === undefined) {
        const jsm = await jetstreamManager(nats);
        for (const stream of [subjects.refundStream, subjects.noticeStream, subjects.exports.jobStream])
          await jsm.streams.delete(stream).catch(() => false);
      }
      await deleteNamespaceKeys(redis, namespace);
      redis.disconnect();
      await (natsPlane ? natsPlane.stop() : nats.close());
    },
  };
}
/**
 * deploy/nats with the shipped permissions on a private nats-server (shipped-servers.ts), and one
 * connection per identity, made as each service makes its own (service-kit's `connectNats`).
 */
async function startShippedNatsPlane(logger: Logger) {
  const passwords = Object.fromEntries(
    Object.keys(NATS_IDENTITIES).map((identity) => [identity, newPassword()]),
  ) as Record<NatsIdentityName, string>;
  const server: ShippedServer = await startShippedNats(passwords);
  const connections = new Map<NatsIdentityName, Promise<NatsConnection>>();
  return {
    as(identity: NatsIdentityName): Promise<NatsConnection> {
      let connection = connections.get(identity);
      if (connection === undefined) {
        const credentials = { user: identity, password: passwords[identity] };
        connection = connectNats(server.url, `e2e-${identity}`, logger, credentials);
        connections.set(identity, connection);
      }
      return connection;
    },
    async stop() {
      for (const connection of connections.values()) await (await connection).close();
      await server.stop();
    },
  };
}

/**
 * Starts something that must know its port before it listens (a portal's links name it). The port
 * is free when picked, but a process elsewhere on the machine may take it before the listen: then
 * another is picked.
 */
async function onFreePort<T>(start: (port: number) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(await freePort());
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EADDRINUSE" || attempt === 5) throw error;
    }
  }
}

/** The portal on `port` (its links must name it) and the inbox its mail goes to. */
async function startPortalParts(deps: {
  redis: Redis;
  nats: NatsConnection;
  subjects: Subjects;
  keys: RedisKeys;
  logger: Logger;
  port: number;
  apiUrl: string;
  gateway: PortalSettings["gateway"];
  payments?: PaymentsSettings;
  overrides?: Partial<PortalSettings>;
  noticeWebhooks?: Partial<NoticeWebhookSettings>;
  refusingSmtp?: boolean;
}): Promise<PortalParts & { stop(): Promise<void> }> {
  const inbox = await startCaptureInbox();
  const smtp = deps.refusingSmtp ? await startRefusingSmtp(inbox.smtpPort) : undefined;
  const signingKey = generateSigningKey();
  const mailer = createSmtpMailer({
    url: smtp?.smtpUrl ?? inbox.smtpUrl,
    from: "Reddit Data API <portal@test.example>",
  });
  const url = `http://127.0.0.1:${deps.port}`;
  const stopMail = async () => {
    mailer.close();
    await smtp?.stop();
    await inbox.stop();
  };
  const settings: PortalSettings = {
    publicUrl: url,
    apiUrl: deps.apiUrl,
    gateway: deps.gateway,
    supportEmail: "help@test.example",
    mailLimits: { perAddress: 20, perClient: 100, windowSeconds: 3_600 },
    sessionTtlMs: 3_600_000,
    trustProxy: false,
    billingTimeoutMs: BILLING_TIMEOUT_MS,
    payments: deps.payments,
    oauthSigningKey: signingKey,
    // Webhooks to the tests' own receivers on 127.0.0.1: the local switch, as in development.
    notices: { sealingKey: randomBytes(32), allowLoopbackWebhooks: true },
    ...deps.overrides,
  };
  const processDeps = {
    redis: deps.redis,
    nats: deps.nats,
    subjects: deps.subjects,
    keys: deps.keys.portal,
    logger: deps.logger,
    mailer,
    settings,
  };
  const portal = await startPortal(processDeps, { port: deps.port, host: "127.0.0.1" }).catch(
    async (error: unknown) => {
      await stopMail();
      throw error;
    },
  );
  // The notices worker, a process of its own in deployments: notice events in, webhooks out.
  const worker = await startNoticesWorker({ ...processDeps, webhooks: deps.noticeWebhooks }).catch(
    async (error: unknown) => {
      await portal.stop();
      await stopMail();
      throw error;
    },
  );
  return {
    url,
    inbox,
    smtp,
    signingKey,
    routes: portal.routes,
    async stop() {
      await worker.stop();
      await portal.stop();
      await stopMail();
    },
  };
}

/** The payments simulator with a test key and signing secret, sending its events to `webhookUrl`. */
async function startSimulatedStripe(webhookUrl: string, webhookSecret: string) {
  const secretKey = `sk_test_e2e_${Date.now()}`;
  const sim = await startPaymentsSim({
    secretKey,
    webhooks: { url: webhookUrl, secret: webhookSecret, attempts: 8, retryBaseMs: 200, timeoutMs: 5_000 },
  });
  return { sim, settings: { secretKey, webhookSecret, apiUrl: sim.url } };
}
