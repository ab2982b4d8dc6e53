/**
 * The whole stack in-process for black-box tests: the upstream simulator, billing, the four adapters,
 * the MCP service and the gateway, on real Redis and NATS, in one fresh namespace, each on port 0.
 * Tests talk to it only over HTTP (and create or revoke keys through billing over NATS, as the
 * operator CLI does).
 */
import {
  buildSubjects,
  type CreateKeyReply,
  createKeyReplySchema,
  revokeKeyReplySchema,
  type Subjects,
} from "@rda/contracts";
import {
  type Logger,
  type NatsConnection,
  openRedis,
  type Redis,
  type RedisKeys,
  redisKeys,
} from "@rda/service-kit";
import {
  connectTestNats,
  deleteNamespaceKeys,
  silentLogger,
  testNamespace,
  testRedisUrl,
} from "@rda/service-kit/testing";
import { startAdapterCommunities } from "../../services/adapter-communities/src/index.ts";
import { startAdapterPosts } from "../../services/adapter-posts/src/index.ts";
import { startAdapterTree } from "../../services/adapter-tree/src/index.ts";
import { startAdapterUsers } from "../../services/adapter-users/src/index.ts";
import { askBilling, startBilling } from "../../services/billing/src/index.ts";
import { type GatewaySettings, type RunningGateway, startGateway } from "../../services/gateway/src/index.ts";
import { startMcp } from "../../services/mcp/src/index.ts";
import { type RunningSimulator, startSimulator } from "../../services/upstream-sim/src/index.ts";

export interface StackOptions {
  /** The gateway's global reserve; default large so only tests that want it meet it. */
  reserve?: { qps: number; burst: number };
  /** Adapters' upstream deadline; short keeps fault tests fast. Default 1500 ms. */
  upstreamDeadlineMs?: number;
  logger?: Logger;
}

export interface KeyOptions {
  credits?: number;
  qps?: number;
  burst?: number;
}

export interface Stack {
  readonly namespace: string;
  readonly subjects: Subjects;
  readonly keys: RedisKeys;
  readonly gatewayUrl: string;
  readonly simulatorUrl: string;
  readonly simulator: RunningSimulator;
  readonly nats: NatsConnection;
  createKey(options?: KeyOptions): Promise<CreateKeyReply>;
  revokeKey(id: string): Promise<void>;
  /** A second gateway on the same services, with its own limit buckets and settings. */
  startGateway(settings?: Partial<GatewaySettings>): Promise<RunningGateway>;
  /** Sets a simulator fault (DESIGN.md: POST /__sim/faults). */
  fault(spec: { mode: string; rate?: number; path?: string; count?: number }): Promise<void>;
  clearFaults(): Promise<void>;
  stop(): Promise<void>;
}

const BILLING_TIMEOUT_MS = 5_000;

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const logger = options.logger ?? silentLogger();
  const namespace = testNamespace("e2e");
  const subjects = buildSubjects(namespace);
  const keys = redisKeys(namespace);
  const nats = await connectTestNats();
  const redis: Redis = await openRedis(testRedisUrl(), "e2e", logger);
  const stoppers: (() => Promise<unknown>)[] = [];

  const simulator = await startSimulator({ seed: 42, port: 0, host: "127.0.0.1" });
  stoppers.push(() => simulator.close());
  const billing = await startBilling({
    nats,
    redis,
    subjects,
    keys,
    logger,
    settings: { freeCredits: 333, defaultRateLimit: { qps: 2, burst: 10 } },
  });
  stoppers.push(() => billing.stop());
  const adapterDeps = {
    nats,
    subjects,
    upstreamUrl: simulator.url,
    logger,
    upstream: { deadlineMs: options.upstreamDeadlineMs ?? 1_500 },
  };
  for (const start of [startAdapterPosts, startAdapterTree, startAdapterCommunities, startAdapterUsers]) {
    const adapter = await start(adapterDeps);
    stoppers.push(() => adapter.stop());
  }

  const gatewaySettings = (overrides: Partial<GatewaySettings> = {}): GatewaySettings => ({
    reserve: options.reserve ?? { qps: 10_000, burst: 10_000 },
    topUpUrl: "https://example.com/topup",
    adapterTimeoutMs: (options.upstreamDeadlineMs ?? 1_500) + 2_000,
    mcpUrl: "http://127.0.0.1:9",
    ...overrides,
  });
  // The gateway proxies /mcp to the MCP service, which calls a gateway back: two gateway replicas
  // sharing Redis limits, as in production. MCP calls replica A; tests call replica B.
  const replicaA = await startGateway(
    { redis, nats, subjects, keys, logger, settings: gatewaySettings() },
    { port: 0, host: "127.0.0.1" },
  );
  stoppers.push(() => replicaA.stop());
  const mcp = await startMcp({ port: 0, host: "127.0.0.1", gatewayUrl: replicaA.url, logger });
  stoppers.push(() => mcp.stop());
  const gateway = await startGateway(
    { redis, nats, subjects, keys, logger, settings: gatewaySettings({ mcpUrl: mcp.url }) },
    { port: 0, host: "127.0.0.1" },
  );
  stoppers.push(() => gateway.stop());

  return {
    namespace,
    subjects,
    keys,
    gatewayUrl: gateway.url,
    simulatorUrl: simulator.url,
    simulator,
    nats,
    async createKey({ credits = 100, qps = 100, burst = 100 } = {}) {
      const request = { credits, rate_limit: { qps, burst }, label: "e2e" };
      const subject = subjects.billing.createKey;
      const reply = await askBilling(nats, subject, request, createKeyReplySchema, BILLING_TIMEOUT_MS);
      if (!reply.ok) throw new Error(`cannot create a key: ${reply.message}`);
      return reply.value;
    },
    async revokeKey(id) {
      const subject = subjects.billing.revokeKey;
      const reply = await askBilling(nats, subject, { id }, revokeKeyReplySchema, BILLING_TIMEOUT_MS);
      if (!reply.ok || reply.value.outcome === "not_found") throw new Error(`cannot revoke ${id}`);
    },
    async startGateway(overrides = {}) {
      const extraNamespace = testNamespace("e2e-gw");
      const extra = await startGateway(
        {
          redis,
          nats,
          subjects,
          keys: redisKeys(extraNamespace),
          logger,
          settings: gatewaySettings(overrides),
        },
        { port: 0, host: "127.0.0.1" },
      );
      stoppers.push(async () => {
        await extra.stop();
        await deleteNamespaceKeys(redis, extraNamespace);
      });
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
      for (const stop of stoppers.reverse()) await stop().catch(() => undefined);
      await deleteNamespaceKeys(redis, namespace);
      redis.disconnect();
      await nats.close();
    },
  };
}
