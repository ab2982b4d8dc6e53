/**
 * A gateway on a real socket, with the real billing service, real Redis and real NATS, in its own
 * namespace; small responders on the real adapter subjects stand in for the adapters, so a test can
 * script any adapter outcome. The e2e tests under /test use the real adapters and simulator.
 */
import {
  type AdapterReplyMeta,
  buildSubjects,
  createKeyReplySchema,
  encodeAdapterReply,
  revokeKeyReplySchema,
  showKeyReplySchema,
} from "@rda/contracts";
import {
  jetstreamManager,
  type Logger,
  type NatsConnection,
  openRedis,
  type Redis,
  redisKeys,
  requestJson,
} from "@rda/service-kit";
import {
  connectTestNats,
  deleteNamespaceKeys,
  silentLogger,
  testNamespace,
  testRedisUrl,
} from "@rda/service-kit/testing";
import type { z } from "zod";
import { type Billing, billingSettingsFromEnv, startBilling } from "../../../billing/src/index.ts";
import {
  createMetrics,
  type GatewaySettings,
  gatewaySettingsFromEnv,
  type RunningGateway,
  startGateway,
} from "../../src/index.ts";

export interface TestKey {
  readonly id: string;
  readonly key: string;
}

export interface JournalEntry {
  readonly type: string;
  readonly delta: number;
  readonly request_id: string;
}

export type AdapterBehaviour = (params: unknown) => { meta: AdapterReplyMeta; data?: string } | "silent";

export interface Harness {
  readonly url: string;
  readonly namespace: string;
  readonly nats: NatsConnection;
  /** The params of each adapter request: one per message the adapters received. */
  readonly adapterParams: unknown[];
  createKey(options?: { balance?: number; qps?: number; burst?: number }): Promise<TestKey>;
  balanceOf(key: TestKey): Promise<number>;
  /** The key's journal, oldest first. */
  journal(key: TestKey): Promise<JournalEntry[]>;
  /** Debits billing holds pending (neither settled nor refunded yet), every key's. */
  pendingDebits(): Promise<number>;
  revoke(key: TestKey): Promise<void>;
  setAdapter(behaviour: AdapterBehaviour): void;
  /** Stops billing (its subjects then have no responders) or starts it again. */
  setBilling(up: boolean): Promise<void>;
  /** The gateway's metrics in the Prometheus text format (main.ts serves them on METRICS_PORT). */
  metrics(): Promise<string>;
  stop(): Promise<void>;
}

export const OK_PAGE: AdapterBehaviour = () => ({
  meta: { outcome: "ok", cursor: 1700000000, has_more: true },
  data: '[{"id":"abc","title":"t"}]',
});

export interface HarnessOptions {
  logger?: Logger;
  gateway?: Partial<GatewaySettings>;
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const namespace = testNamespace("gw");
  const subjects = buildSubjects(namespace);
  const keys = redisKeys(namespace);
  const nats = await connectTestNats();
  const redis: Redis = await openRedis(testRedisUrl(), "gateway-test", silentLogger());
  const adapterParams: unknown[] = [];
  let adapter: AdapterBehaviour = OK_PAGE;
  // One environment for both services, as production shares one: each resolves its settings from it
  // with the code its main.ts runs. Scripted adapters answer at once, so the gateway's wait is short.
  const environment = {
    TOPUP_URL: "https://example.com/topup",
    UPSTREAM_DEADLINE_MS: "400",
    ADAPTER_TIMEOUT_MS: "500",
    MCP_URL: "http://127.0.0.1:9",
    PENDING_SWEEP_MS: "200",
  };
  const billingSettings = billingSettingsFromEnv(environment);
  const startOurBilling = () =>
    startBilling({ nats, redis, subjects, keys, logger: silentLogger(), settings: billingSettings });
  let billing: Billing | undefined = await startOurBilling();

  const adapters = Object.values(subjects.adapter).map((subject) =>
    nats.subscribe(subject, {
      callback: (_error, message) => {
        const request = message.json<{ params: unknown }>();
        adapterParams.push(request.params);
        const answer = adapter(request.params);
        if (answer !== "silent") message.respond(encodeAdapterReply(answer.meta, answer.data));
      },
    }),
  );

  const metrics = createMetrics();
  const gateway: RunningGateway = await startGateway(
    {
      metrics,
      redis,
      nats,
      subjects,
      keys,
      logger: options.logger ?? silentLogger(),
      settings: { ...gatewaySettingsFromEnv(environment), ...options.gateway },
    },
    { port: 0, host: "127.0.0.1" },
  );

  const ask = async <S extends z.ZodType>(
    subject: string,
    payload: unknown,
    schema: S,
  ): Promise<z.output<S>> => {
    const reply = await requestJson(nats, subject, payload, schema, 10_000);
    if (!reply.ok) throw new Error(`billing: ${reply.error.message}`);
    return reply.value;
  };

  return {
    url: gateway.url,
    namespace,
    nats,
    adapterParams,
    metrics: () => metrics.registry.metrics(),
    async createKey({ balance = 100, qps = 100, burst = 100 } = {}) {
      const request = { credits: balance, rate_limit: { qps, burst }, label: "gateway-test" };
      const reply = await ask(subjects.billing.createKey, request, createKeyReplySchema);
      if (reply.outcome !== "created") throw new Error("key refused");
      return { id: reply.id, key: reply.key };
    },
    async balanceOf(key) {
      const reply = await ask(subjects.billing.showKey, { id: key.id }, showKeyReplySchema);
      if (!reply.found) throw new Error(`no key ${key.id}`);
      return reply.key.credits_balance;
    },
    pendingDebits: () => redis.zcard(keys.pendingDebits),
    async journal(key) {
      const entries = await redis.xrange(keys.journal(key.id), "-", "+");
      return entries.map(([, fields]) => {
        const entry = Object.fromEntries(
          fields.flatMap((_, i) => (i % 2 === 0 ? [[fields[i], fields[i + 1]]] : [])),
        );
        return { type: entry.type, delta: Number(entry.delta), request_id: entry.request_id };
      });
    },
    async revoke(key) {
      await ask(subjects.billing.revokeKey, { id: key.id }, revokeKeyReplySchema);
    },
    setAdapter(behaviour) {
      adapter = behaviour;
    },
    async setBilling(up) {
      if (up && !billing) billing = await startOurBilling();
      if (!up && billing) {
        await billing.stop();
        billing = undefined;
      }
      await nats.flush();
    },
    async stop() {
      await gateway.stop();
      await billing?.stop();
      for (const subscription of adapters) subscription.unsubscribe();
      const jsm = await jetstreamManager(nats);
      await jsm.streams.delete(subjects.refundStream).catch(() => undefined);
      await jsm.streams.delete(subjects.noticeStream).catch(() => undefined);
      await deleteNamespaceKeys(redis, namespace);
      redis.disconnect();
      await nats.close();
    },
  };
}

export function authHeaders(key: TestKey | string): Record<string, string> {
  return { "x-api-key": typeof key === "string" ? key : key.key };
}
