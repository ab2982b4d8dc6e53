/**
 * The monitors and exports calls: `Idempotency-Key` on the POSTs that create work or a resource
 * (docs/api.md#idempotency), one per call and the same on each of its retries, so a retry after a
 * lost answer is answered with the first answer instead of creating a second monitor or export; and
 * the calls that take no key are retried only where a retry cannot do their work twice.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeGateway, type SeenRequest, startFakeGateway } from "../../../test/support/fake-gateway.ts";
import { createGatewayClient, type GatewayClient, type GatewayResult } from "../src/index.ts";

const KEY = "rdk_idempotency";
const MONITOR = "mon_abc123";
const EXPORT = "exp_0f3a9c1e5b7d2a4c6e8f0a1b";
const DELIVERY = `msg_${MONITOR}_7`;
const NEW_MONITOR = { kind: "post", subreddit: "typescript", interval_seconds: 60 } as const;
const NEW_EXPORT = {
  kind: "posts",
  subreddit: "typescript",
  after: "2026-06-01",
  before: "2026-07-01",
  confirm: true,
} as const;

let fake: FakeGateway;
let api: GatewayClient;
beforeAll(async () => {
  fake = await startFakeGateway({ [KEY]: 100 });
  api = createGatewayClient({ baseUrl: fake.url, apiKey: KEY, retry: { retries: 2, baseDelayMs: 10 } });
});
afterAll(async () => fake.close());

/** What the fake answered as `data`: which route did its work, and how many times it has. */
const performedOf = (result: GatewayResult<{ data: unknown }>) =>
  result.ok ? (result.value.data as { operation: string; performed: number }) : result.error;
const seenSince = (before: number): SeenRequest[] => fake.seen.slice(before);
const keysOf = (requests: SeenRequest[]) => requests.map((request) => request.headers["idempotency-key"]);
const lostAnswer = { drop: true } as const;
const unavailable = { status: 503, error: "temporarily unavailable", headers: { "retry-after": "0" } };
const limited = { status: 429, error: "rate limit exceeded", headers: { "retry-after": "0" } };

describe("Idempotency-Key on the monitors and exports calls", () => {
  it("is sent, one new key per call, on exactly the POSTs that create work or a resource", async () => {
    const calls: [string, () => Promise<unknown>][] = [
      ["createMonitor", () => api.createMonitor(NEW_MONITOR)],
      ["estimateMonitor", () => api.estimateMonitor(NEW_MONITOR)],
      ["listMonitors", () => api.listMonitors()],
      ["getMonitor", () => api.getMonitor(MONITOR)],
      ["updateMonitor", () => api.updateMonitor(MONITOR, { paused: true })],
      ["pullMonitorItems", () => api.pullMonitorItems(MONITOR, { limit: 5 })],
      ["listMonitorDeliveries", () => api.listMonitorDeliveries(MONITOR)],
      ["redeliverMonitorBatch", () => api.redeliverMonitorBatch(MONITOR, DELIVERY)],
      ["testMonitorWebhook", () => api.testMonitorWebhook(MONITOR)],
      ["rotateMonitorWebhookSecret", () => api.rotateMonitorWebhookSecret(MONITOR)],
      ["deleteMonitor", () => api.deleteMonitor(MONITOR)],
      ["createExport", () => api.createExport(NEW_EXPORT)],
      ["listExports", () => api.listExports()],
      ["getExport", () => api.getExport(EXPORT)],
      ["startExport", () => api.startExport(EXPORT)],
      ["pauseExport", () => api.pauseExport(EXPORT)],
      ["resumeExport", () => api.resumeExport(EXPORT, { max_credits: 40 })],
      ["cancelExport", () => api.cancelExport(EXPORT)],
      ["downloadExport", () => api.downloadExport(EXPORT)],
    ];
    const keyed: Record<string, string> = {};
    for (const [operation, call] of calls) {
      const before = fake.seen.length;
      await call();
      const [key] = keysOf(seenSince(before));
      if (key !== undefined) keyed[operation] = String(key);
    }
    // The routes docs/api.md#idempotency lists, and no other.
    expect(Object.keys(keyed).sort()).toEqual(
      [
        "createExport",
        "createMonitor",
        "redeliverMonitorBatch",
        "resumeExport",
        "rotateMonitorWebhookSecret",
        "startExport",
      ].sort(),
    );
    for (const key of Object.values(keyed)) expect(key).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(Object.values(keyed)).size).toBe(6);
  });

  it("retries a create whose answer was lost under the same key and body: answered again, one monitor", async () => {
    const created = fake.performed.get("createMonitor") ?? 0;
    const before = fake.seen.length;
    fake.failNext(lostAnswer);
    const result = await api.createMonitor(NEW_MONITOR);
    expect(performedOf(result)).toEqual({
      operation: "createMonitor",
      performed: created + 1,
      body: NEW_MONITOR,
    });
    expect(fake.performed.get("createMonitor")).toBe(created + 1);
    const [first, retry] = seenSince(before);
    expect(seenSince(before)).toHaveLength(2);
    expect(retry?.headers["idempotency-key"]).toBe(first?.headers["idempotency-key"]);
    expect(retry?.body).toBe(first?.body);
  });

  it("waits out a 503's Retry-After, then starts the export, with one key on both attempts", async () => {
    const before = fake.seen.length;
    fake.failNext({ ...unavailable, headers: { "retry-after": "1" } });
    const started = Date.now();
    const result = await api.createExport(NEW_EXPORT);
    expect(result.ok).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    const keys = keysOf(seenSince(before));
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
  });

  it("sends the caller's own key without retries, so the same call again is answered, not done, again", async () => {
    const plain = createGatewayClient({ baseUrl: fake.url, apiKey: KEY });
    const rotated = fake.performed.get("rotateMonitorWebhookSecret") ?? 0;
    const first = await plain.rotateMonitorWebhookSecret(MONITOR, { idempotencyKey: "rotate-2026-07" });
    const again = await plain.rotateMonitorWebhookSecret(MONITOR, { idempotencyKey: "rotate-2026-07" });
    expect(again).toEqual(first);
    expect(fake.performed.get("rotateMonitorWebhookSecret")).toBe(rotated + 1);
    expect(keysOf(fake.seen.slice(-2))).toEqual(["rotate-2026-07", "rotate-2026-07"]);
    // Without a key of the caller's and without retries, none is sent.
    await plain.startExport(EXPORT);
    expect(keysOf(fake.seen.slice(-1))).toEqual([undefined]);
  });

  it("sends none and retries nothing when the call turns retries off", async () => {
    const before = fake.seen.length;
    fake.failNext(unavailable);
    const result = await api.createMonitor(NEW_MONITOR, { retry: false });
    expect(!result.ok && result.error.kind).toBe("service_unavailable");
    expect(keysOf(seenSince(before))).toEqual([undefined]);
  });
});

describe("retries of the calls that take no key", () => {
  // Each does something a second attempt would do again; none of them takes Idempotency-Key.
  const effects: [string, () => Promise<GatewayResult<unknown>>][] = [
    ["pauseExport", () => api.pauseExport(EXPORT)],
    ["cancelExport", () => api.cancelExport(EXPORT)],
    ["updateMonitor", () => api.updateMonitor(MONITOR, { interval_seconds: 120 })],
    ["deleteMonitor", () => api.deleteMonitor(MONITOR)],
    ["testMonitorWebhook", () => api.testMonitorWebhook(MONITOR)],
    ["pullMonitorItems", () => api.pullMonitorItems(MONITOR)],
  ];

  it.each(effects)(
    "%s is not retried after a lost answer or a 503: it may have been done",
    async (name, call) => {
      for (const failure of [lostAnswer, unavailable]) {
        const done = fake.performed.get(name) ?? 0;
        const before = fake.seen.length;
        fake.failNext(failure);
        const result = await call();
        expect(result.ok).toBe(false);
        expect(seenSince(before)).toHaveLength(1);
        expect(fake.performed.get(name) ?? 0).toBe(done + ("drop" in failure ? 1 : 0));
      }
    },
  );

  it.each(effects)(
    "%s is retried after a 429: the API refused it before doing anything",
    async (name, call) => {
      const done = fake.performed.get(name) ?? 0;
      const before = fake.seen.length;
      fake.failNext(limited);
      expect((await call()).ok).toBe(true);
      expect(seenSince(before)).toHaveLength(2);
      expect(fake.performed.get(name)).toBe(done + 1);
    },
  );

  it("a free read is retried after a lost answer: reading twice changes nothing", async () => {
    const before = fake.seen.length;
    fake.failNext(lostAnswer);
    const result = await api.getExport(EXPORT);
    expect(result.ok).toBe(true);
    expect(seenSince(before)).toHaveLength(2);
  });

  it("takes no idempotencyKey where the route takes none", () => {
    // @ts-expect-error pausing an export takes no Idempotency-Key, so no idempotencyKey either
    const options: Parameters<GatewayClient["pauseExport"]>[1] = { idempotencyKey: "pause-1" };
    expect(options).toBeDefined();
  });
});
