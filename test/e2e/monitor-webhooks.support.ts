/**
 * Monitors with webhooks on the in-process stack: a real HTTP receiver that records every request
 * (and answers as the test says), the monitors service beside the stack with short delivery times,
 * and the calls a caller makes.
 */
import { randomBytes } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { createServer as createTcpServer } from "node:net";
import { freePort, silentLogger, waitFor } from "@rda/service-kit/testing";
import { Webhook } from "standardwebhooks";
import {
  DEFAULT_WEBHOOK_SETTINGS,
  monitorKeys,
  type RunningMonitors,
  startMonitors,
  type WebhookSettings,
} from "../../services/monitors/src/index.ts";
import type { Stack } from "../support/stack.ts";

export const SEALING_KEY = randomBytes(32);

/** Short delivery times: retries within a second, a lease a replica loses quickly when killed. */
export const FAST_WEBHOOKS: Partial<WebhookSettings> = {
  sealingKey: SEALING_KEY,
  allowLoopback: true,
  firstRetryMs: 100,
  maxRetryDelayMs: 400,
  retryWindowMs: 60_000,
  attemptTimeoutMs: 3_000,
  creditsRetryMs: 300,
  leaseMs: 3_000,
  tickMs: 100,
};

export async function startMonitorsBeside(
  stack: Stack,
  webhooks: Partial<WebhookSettings> = FAST_WEBHOOKS,
): Promise<RunningMonitors> {
  return startMonitors({
    nats: await stack.natsAs("monitors"),
    redis: stack.redis,
    namespace: stack.namespace,
    subjects: stack.subjects,
    logger: silentLogger(),
    settings: {
      limits: { maxMonitorsPerAccount: 10, minIntervalSeconds: 1 },
      tickMs: 100,
      webhooks: { ...DEFAULT_WEBHOOK_SETTINGS, ...webhooks },
    },
  });
}

export interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface BatchBody {
  type: string;
  timestamp: string;
  data: { monitor_id: string; delivery_id: string; items: { id: string; created_utc: number }[] };
}

export interface Receiver {
  readonly url: string;
  readonly received: Received[];
  /** What the receiver answers the `n`th request (0-based); 204 unless set. */
  answer: (n: number, request: Received) => number | { status: number; location: string };
  /** Holds answers until `release` is called (a delivery kept in flight). */
  hold(): void;
  release(): void;
  stop(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const port = await freePort();
  let held: Promise<void> | undefined;
  let releaseHeld: (() => void) | undefined;
  const receiver: Receiver = {
    url: `http://127.0.0.1:${port}/hooks`,
    received: [],
    answer: () => 204,
    hold() {
      held = new Promise((resolve) => (releaseHeld = resolve));
    },
    release() {
      releaseHeld?.();
      held = undefined;
    },
    async stop() {
      receiver.release();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const server: Server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => (body += chunk));
    request.on("end", async () => {
      const entry = { headers: request.headers, body };
      const n = receiver.received.push(entry) - 1;
      if (held) await held;
      const answer = receiver.answer(n, entry);
      if (typeof answer === "number") response.writeHead(answer).end();
      else response.writeHead(answer.status, { location: answer.location }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return receiver;
}

/** A TCP listener that only counts connections: proof that nothing was sent to it. */
export async function startConnectionCounter(): Promise<{
  port: number;
  count(): number;
  stop(): Promise<void>;
}> {
  const port = await freePort();
  let connections = 0;
  const server = createTcpServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    port,
    count: () => connections,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Verifies a request's signature with `secret` (throws when it does not verify). */
export function verified(secret: string, request: Received): BatchBody {
  return new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as BatchBody;
}

export async function call(stack: Stack, secret: string, method: string, path: string, body?: unknown) {
  const headers: Record<string, string> = { "x-api-key": secret };
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${stack.gatewayUrl}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  // biome-ignore lint/suspicious/noExplicitAny: the test reads each answer's fields as the API documents them
  return { status: response.status, json: (await response.json()) as any };
}

export interface Delivery {
  id: string;
  type: string;
  items: number;
  state: string;
  next_attempt_at: string | null;
  attempts: { status_code: number | null; latency_ms: number; error: string | null; at: number }[];
}

export async function deliveriesOf(stack: Stack, key: string, monitorId: string): Promise<Delivery[]> {
  const answer = await call(stack, key, "GET", `/v1/monitors/${monitorId}/deliveries`);
  if (answer.status !== 200) throw new Error(`deliveries: ${answer.status} ${JSON.stringify(answer.json)}`);
  return answer.json.data.deliveries as Delivery[];
}

export async function statusOf(stack: Stack, key: string, monitorId: string): Promise<string> {
  return (await call(stack, key, "GET", `/v1/monitors/${monitorId}`)).json.data.monitor.status as string;
}

/** Every item the monitor holds, in delivery order, pulled through the API (1 credit a page). */
export async function pullAll(stack: Stack, key: string, monitorId: string) {
  const items: { id: string; created_utc: number }[] = [];
  let cursor: string | null = null;
  for (;;) {
    const query: string = cursor === null ? "" : `?cursor=${encodeURIComponent(cursor)}`;
    const page = await call(stack, key, "GET", `/v1/monitors/${monitorId}/items${query}`);
    const data = page.json.data as { items: { id: string; created_utc: number }[]; cursor: string | null };
    if (data.items.length === 0) return items;
    items.push(...data.items);
    cursor = data.cursor;
  }
}

/**
 * Waits until the monitor is live and every item it holds went out in a delivered batch (the items
 * stream's length read from Redis, so the wait spends no credits), then returns the batches' log.
 */
export async function waitForAllDelivered(stack: Stack, key: string, monitorId: string, timeoutMs = 60_000) {
  const itemsKey = monitorKeys(stack.namespace).items(monitorId);
  return (await waitFor(
    async () => {
      if ((await statusOf(stack, key, monitorId)) !== "live") return undefined;
      const held = await stack.redis.xlen(itemsKey);
      const log = await deliveriesOf(stack, key, monitorId);
      const batches = log.filter((delivery) => delivery.type === "monitor.items");
      const sent = batches.reduce((sum, delivery) => sum + delivery.items, 0);
      return held > 0 && sent === held && batches.every((delivery) => delivery.state === "delivered")
        ? batches
        : undefined;
    },
    "every batch delivered",
    timeoutMs,
  )) as Delivery[];
}

/** The batches a receiver got, by webhook-id, in the order first received. */
export function batchesReceived(secret: string, received: readonly Received[]): BatchBody[] {
  const seen = new Map<string, BatchBody>();
  for (const request of received) {
    const body = verified(secret, request);
    if (body.type === "monitor.items" && !seen.has(request.headers["webhook-id"] as string))
      seen.set(request.headers["webhook-id"] as string, body);
  }
  return [...seen.values()];
}
