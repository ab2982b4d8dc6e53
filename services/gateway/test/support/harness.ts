/**
 * A gateway on a real socket, real Redis and real NATS, in its own namespace, with small responders
 * standing in for billing and the adapters on real NATS subjects (not mocks: the gateway talks the
 * wire protocol of contracts/messages.ts). The e2e tests under /test use the real services.
 */
import { createHash, randomBytes } from "node:crypto";
import { jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { type AdapterReplyMeta, buildSubjects, encodeAdapterReply, type RefundMessage } from "@rda/contracts";
import { type Logger, openRedis, type Redis, redisKeys } from "@rda/service-kit";
import {
  connectTestNats,
  deleteNamespaceKeys,
  silentLogger,
  testNamespace,
  testRedisUrl,
} from "@rda/service-kit/testing";
import { type RunningGateway, startGateway } from "../../src/index.ts";

export interface FakeKey {
  id: string;
  key: string;
  balance: number;
  revoked: boolean;
  rate_limit: { qps: number; burst: number };
}

export type AdapterBehaviour = (params: unknown) => { meta: AdapterReplyMeta; data?: string } | "silent";

export interface Harness {
  url: string;
  namespace: string;
  nats: NatsConnection;
  keys: Map<string, FakeKey>;
  debits: string[];
  createKey(options?: { balance?: number; qps?: number; burst?: number }): FakeKey;
  revoke(key: FakeKey): void;
  setAdapter(behaviour: AdapterBehaviour): void;
  setBilling(up: boolean): void;
  refunds(): Promise<RefundMessage[]>;
  adapterParams: unknown[];
  stop(): Promise<void>;
}

export const OK_PAGE: AdapterBehaviour = () => ({
  meta: { outcome: "ok", cursor: 1700000000, has_more: true },
  data: '[{"id":"abc","title":"t"}]',
});

export async function startHarness(
  options: { reserve?: { qps: number; burst: number }; logger?: Logger; mcpUrl?: string } = {},
): Promise<Harness> {
  const namespace = testNamespace("gw");
  const subjects = buildSubjects(namespace);
  const nats = await connectTestNats();
  const redis: Redis = await openRedis(testRedisUrl(), "gateway-test", silentLogger());
  const jsm = await jetstreamManager(nats);
  await jsm.streams.add({ name: subjects.refundStream, subjects: [subjects.billing.refunds] });
  const keys = new Map<string, FakeKey>();
  const debits: string[] = [];
  const adapterParams: unknown[] = [];
  let adapter: AdapterBehaviour = OK_PAGE;
  let billingUp = true;
  const hashOf = (key: string) => createHash("sha256").update(key).digest("hex");
  const byId = (id: string) => [...keys.values()].find((k) => k.id === id);
  const debit = ({ key_id, request_id }: { key_id: string; request_id: string }) => {
    const key = byId(key_id);
    if (!key) return { outcome: "unknown_key" };
    if (key.revoked) return { outcome: "revoked" };
    if (key.balance === 0) return { outcome: "insufficient", balance: 0 };
    key.balance -= 1;
    debits.push(request_id);
    return { outcome: "debited", balance: key.balance };
  };

  const subs = [
    nats.subscribe(subjects.billing.lookupKey, {
      callback: (_e, m) => {
        if (!billingUp) return;
        const found = keys.get(m.json<{ key_hash: string }>().key_hash);
        m.respond(
          JSON.stringify(
            found
              ? { found: true, key: { id: found.id, rate_limit: found.rate_limit, revoked: found.revoked } }
              : { found: false },
          ),
        );
      },
    }),
    nats.subscribe(subjects.billing.debit, {
      callback: (_e, m) => {
        if (billingUp) m.respond(JSON.stringify(debit(m.json<{ key_id: string; request_id: string }>())));
      },
    }),
    nats.subscribe(subjects.billing.balance, {
      callback: (_e, m) => {
        if (!billingUp) return;
        const key = byId(m.json<{ key_id: string }>().key_id);
        m.respond(
          JSON.stringify(
            key
              ? { outcome: "ok", balance: key.balance, rate_limit: key.rate_limit, revoked: key.revoked }
              : { outcome: "unknown_key" },
          ),
        );
      },
    }),
    ...Object.values(subjects.adapter).map((subject) =>
      nats.subscribe(subject, {
        callback: (_e, m) => {
          const request = m.json<{ params: unknown }>();
          adapterParams.push(request.params);
          const answer = adapter(request.params);
          if (answer !== "silent") m.respond(encodeAdapterReply(answer.meta, answer.data));
        },
      }),
    ),
  ];

  const gateway: RunningGateway = await startGateway(
    {
      redis,
      nats,
      subjects,
      keys: redisKeys(namespace),
      logger: options.logger ?? silentLogger(),
      settings: {
        reserve: options.reserve ?? { qps: 1000, burst: 1000 },
        topUpUrl: "https://example.com/topup",
        adapterTimeoutMs: 500,
        billingTimeoutMs: 500,
        mcpUrl: options.mcpUrl ?? "http://127.0.0.1:9",
      },
    },
    { port: 0, host: "127.0.0.1" },
  );

  return {
    url: gateway.url,
    namespace,
    nats,
    keys,
    debits,
    adapterParams,
    createKey({ balance = 100, qps = 100, burst = 100 } = {}) {
      const key: FakeKey = {
        id: `key_${randomBytes(8).toString("hex")}`,
        key: `rdk_${randomBytes(32).toString("base64url").slice(0, 43)}`,
        balance,
        revoked: false,
        rate_limit: { qps, burst },
      };
      keys.set(hashOf(key.key), key);
      return key;
    },
    revoke(key) {
      key.revoked = true;
      nats.publish(subjects.billing.keyRevoked, JSON.stringify({ key_id: key.id }));
    },
    setAdapter(behaviour) {
      adapter = behaviour;
    },
    setBilling(up) {
      billingUp = up;
    },
    async refunds() {
      const info = await jsm.streams.info(subjects.refundStream);
      const messages: RefundMessage[] = [];
      for (let seq = 1; seq <= info.state.last_seq; seq++) {
        const stored = await jsm.streams.getMessage(subjects.refundStream, { seq });
        if (stored) messages.push(stored.json<RefundMessage>());
      }
      return messages;
    },
    async stop() {
      await gateway.stop();
      for (const sub of subs) sub.unsubscribe();
      await jsm.streams.delete(subjects.refundStream).catch(() => undefined);
      await deleteNamespaceKeys(redis, namespace);
      redis.disconnect();
      await nats.close();
    },
  };
}

export function authHeaders(key: FakeKey | string): Record<string, string> {
  return { "x-api-key": typeof key === "string" ? key : key.key };
}
