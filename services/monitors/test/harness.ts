/**
 * A small stack for the monitors service's black-box tests: the upstream simulator on a clock the
 * test moves (posts "arrive" as it advances), adapter-posts, and monitors replicas, on the real NATS
 * and Redis in a fresh namespace. Tests speak to monitors only over NATS, as the gateway does.
 */

import {
  ADAPTER_PROGRESS,
  buildSubjects,
  decodeAdapterReply,
  MONITORS_RPC,
  type MonitorAction,
  type Subjects,
} from "@rda/contracts";
import {
  type NatsConnection,
  type Redis,
  type Registry,
  requestJson,
  requestWithProgress,
} from "@rda/service-kit";
import {
  connectTestNats,
  connectTestRedis,
  deleteNamespaceKeys,
  silentLogger,
  testNamespace,
} from "@rda/service-kit/testing";
import type { z } from "zod";
import { startAdapterPosts } from "../../adapter-posts/src/index.ts";
import { type RunningSimulator, startSimulator } from "../../upstream-sim/src/index.ts";
import type { SimQuirks } from "../../upstream-sim/src/profile.ts";
import { type MonitorSettings, type RunningMonitors, startMonitors } from "../src/index.ts";

export interface Harness {
  readonly namespace: string;
  readonly subjects: Subjects;
  readonly nats: NatsConnection;
  readonly redis: Redis;
  readonly simulator: RunningSimulator;
  /** The simulator's "now", epoch seconds. */
  simNow(): number;
  /** Moves the simulator's clock forward: items created meanwhile become visible. */
  advance(seconds: number): void;
  startReplica(settings?: Partial<MonitorSettings>, registry?: Registry): Promise<RunningMonitors>;
  /** Stops every replica started here so far, so that a test can choose who polls. */
  stopReplicas(): Promise<void>;
  ask(action: MonitorAction, request: Record<string, unknown>): Promise<Answer>;
  /** Pages the adapters' own listing with `q`, oldest first: what the API answers for the window. */
  listWithPhrase(subreddit: string, after: number, phrase: string | undefined): Promise<Item[]>;
  stop(): Promise<void>;
}

/** The fields the monitors service answers with, as far as the tests read them. */
export interface AnswerValue {
  monitor: {
    id: string;
    status: string;
    phrase: string | null;
    interval_seconds: number;
    backfill_from: number | null;
    backfill_progress?: { through: number | null; pages_done: number };
  };
  monitors: { id: string }[];
  backfill_estimate: {
    upstream_pages: number | null;
    max_credits: number | null;
    estimated_items: number | null;
    method: string;
  };
  items: Item[];
  cursor: string | null;
}
export type Answer = { ok: true; value: AnswerValue } | { ok: false; status: number; error: string };
export interface Item {
  id: string;
  created_utc: number;
  title?: string;
  selftext?: string;
}

export const TEST_SETTINGS: Partial<MonitorSettings> = {
  limits: { maxMonitorsPerAccount: 60, minIntervalSeconds: 1 },
  tickMs: 100,
  leaseMs: 30_000,
  pageTimeoutMs: 10_000,
};

/** `simulatorQuirks`: how the simulated archive misbehaves (services/upstream-sim/src/profile.ts). */
export async function startHarness(simulatorQuirks: Partial<SimQuirks> = {}): Promise<Harness> {
  const logger = silentLogger();
  const namespace = testNamespace("mon");
  const subjects = buildSubjects(namespace);
  const nats = await connectTestNats();
  const redis = await connectTestRedis();
  let offsetMs = 0;
  const simulator = await startSimulator({
    seed: 42,
    clock: () => Date.now() + offsetMs,
    quirks: simulatorQuirks,
  });
  const adapter = await startAdapterPosts({
    nats,
    subjects,
    upstreamUrl: simulator.url,
    logger,
    upstream: { deadlineMs: 8_000 },
  });
  const replicas: RunningMonitors[] = [];
  let requests = 0;
  const harness: Harness = {
    namespace,
    subjects,
    nats,
    redis,
    simulator,
    simNow: () => Math.floor((Date.now() + offsetMs) / 1000),
    advance(seconds) {
      offsetMs += seconds * 1000;
    },
    async startReplica(settings, registry) {
      const replica = await startMonitors({
        nats,
        redis,
        namespace,
        subjects,
        logger,
        registry,
        settings: { ...TEST_SETTINGS, ...settings },
      });
      replicas.push(replica);
      return replica;
    },
    async stopReplicas() {
      for (const replica of replicas.splice(0)) await replica.stop();
    },
    async ask(action, request) {
      // Each call's reply decoded with its own schema, as the gateway decodes it; read loosely here.
      const reply: z.ZodType = MONITORS_RPC[action].reply;
      const answer = await requestJson(nats, subjects.monitors[action], request, reply, 15_000);
      if (!answer.ok) throw new Error(`monitors.${action}: ${answer.error.kind}`);
      return answer.value as Answer;
    },
    async listWithPhrase(subreddit, after, phrase) {
      const rows: Item[] = [];
      let cursor = after;
      for (;;) {
        requests += 1;
        const params = {
          subreddit,
          after: cursor,
          sort: "asc",
          limit: 100,
          ...(phrase ? { q: phrase } : {}),
        };
        const payload = JSON.stringify({ request_id: `oracle-${requests}`, params });
        const raw = await requestWithProgress(nats, subjects.adapter.listPosts, payload, {
          timeoutMs: 15_000,
          silenceMs: ADAPTER_PROGRESS.silenceMs,
        });
        if (!raw.ok) throw new Error(`oracle page: ${raw.error.kind}`);
        const frame = decodeAdapterReply(raw.value);
        if (!frame.ok || frame.value.meta.outcome !== "ok") throw new Error("oracle page failed");
        rows.push(...(JSON.parse(new TextDecoder().decode(frame.value.data)) as Item[]));
        const { cursor: next, has_more } = frame.value.meta;
        if (!has_more || next === null || next === undefined) return rows;
        cursor = next;
      }
    },
    async stop() {
      for (const replica of replicas) await replica.stop();
      await adapter.stop();
      await simulator.close();
      await deleteNamespaceKeys(redis, namespace);
      await redis.quit();
      await nats.close();
    },
  };
  return harness;
}

/** Every item a monitor has delivered, pulled page by page from the start. */
export async function pullAll(harness: Harness, keyId: string, id: string): Promise<Item[]> {
  const items: Item[] = [];
  let cursor: string | null = null;
  for (;;) {
    const answer = await harness.ask("items", { key_id: keyId, id, cursor });
    if (!answer.ok) throw new Error(answer.error);
    items.push(...answer.value.items);
    if (answer.value.items.length < 100) return items;
    cursor = answer.value.cursor;
  }
}
