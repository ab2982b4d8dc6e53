/**
 * The webhook outbox on real Redis and a real HTTP receiver: a delivery whose receiver never accepts
 * is retried until its retry window is over, then fails for good, leaves the queue (the next one is
 * sent) and stays in the log with every attempt; redelivered, it is sent again first in line with
 * the same `webhook-id`; two loops (two replicas) never send one attempt twice. With hooks (what
 * monitors' batches add), a batch is cut only into an empty queue from a source that has not moved,
 * under the lease, and a delivery that fails for good stays first with the queue waiting behind it.
 */
import { createServer, type Server } from "node:http";
import type { Redis } from "@rda/service-kit";
import {
  connectTestRedis,
  deleteNamespaceKeys,
  freePort,
  silentLogger,
  testNamespace,
  waitFor,
} from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  newOutboxDelivery,
  newWebhookSecret,
  type OutboxDelivery,
  type OutboxLoopDeps,
  sealingKeyFrom,
  sealSecret,
  sendDue,
  startOutboxLoop,
  WebhookOutbox,
} from "../src/index.ts";

const namespace = testNamespace("outbox");
const sealingKey = sealingKeyFrom(Buffer.alloc(32, 7).toString("base64"));
let redis: Redis;
let receiver: Server;
let receiverUrl: string;
/** Whether the receiver accepts now; every request it got, by webhook-id. */
let accepting = false;
const got: { id: string; status: number }[] = [];

beforeAll(async () => {
  redis = await connectTestRedis();
  const port = await freePort();
  receiver = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      const status = accepting ? 204 : 500;
      got.push({ id: String(request.headers["webhook-id"]), status });
      response.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(port, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${port}/hook`;
});
afterAll(async () => {
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve));
  await deleteNamespaceKeys(redis, namespace);
  redis.disconnect();
});

function outboxFor(root: string): WebhookOutbox {
  return new WebhookOutbox(redis, {
    queue: (owner) => `${root}:{${owner}}:queue`,
    delivery: (owner, id) => `${root}:{${owner}}:delivery:${id}`,
    log: (owner) => `${root}:{${owner}}:log`,
    lease: (owner) => `${root}:{${owner}}:lease`,
    owners: `${root}:owners`,
  });
}

const endpointOf = (sealed: string) => ({
  url: receiverUrl,
  secret: sealed,
  previous_secret: null,
  previous_until: 0,
});

function loopDeps(outbox: WebhookOutbox, holder: string, retryWindowMs: number): OutboxLoopDeps {
  const sealed = sealSecret(sealingKey, newWebhookSecret());
  return {
    name: "test outbox",
    outbox,
    endpoint: async () => endpointOf(sealed),
    schedule: { retryWindowMs, firstRetryMs: 20, maxRetryDelayMs: 50 },
    attempt: { sealingKey, allowLoopback: true, timeoutMs: 2_000, maxResponseBytes: 1_024 },
    logger: silentLogger(),
    holder,
    leaseMs: 5_000,
    tickMs: 10,
  };
}

describe("the webhook outbox", () => {
  it("fails a delivery for good after its window, sends the next, and redelivers it with the same id", async () => {
    accepting = false;
    got.length = 0;
    const outbox = outboxFor(`${namespace}:rda:window`);
    const now = Date.now();
    await outbox.enqueue(newOutboxDelivery("acct_1", "msg_a", "test.event", { n: 1 }, now));
    await outbox.enqueue(newOutboxDelivery("acct_1", "msg_b", "test.event", { n: 2 }, now + 1));
    const loop = startOutboxLoop(loopDeps(outbox, "replica-a", 300));
    try {
      const failed = await waitFor(async () => {
        const record = await outbox.delivery("acct_1", "msg_a");
        return record?.state === "failed" ? record : undefined;
      }, "msg_a to fail for good");
      expect(failed!.attempts.length).toBeGreaterThan(1);
      expect(failed!.attempts.every((attempt) => attempt.status === 500)).toBe(true);
      // The failed one is out of line: the next is being tried.
      await waitFor(() => got.some((each) => each.id === "msg_b") || undefined, "msg_b to be tried");
      accepting = true;
      await waitFor(
        async () => (await outbox.delivery("acct_1", "msg_b"))?.state === "delivered" || undefined,
        "msg_b delivered",
      );
      expect(await outbox.redeliver("acct_1", "msg_a", Date.now())).toBe(true);
      const again = await waitFor(async () => {
        const record = await outbox.delivery("acct_1", "msg_a");
        return record?.state === "delivered" ? record : undefined;
      }, "msg_a redelivered");
      expect(again!.round).toBe(1);
      expect(got.filter((each) => each.id === "msg_a" && each.status === 204)).toHaveLength(1);
      const log = await outbox.log("acct_1", 10, Date.now());
      expect(log.map((record) => [record.id, record.state])).toEqual([
        ["msg_b", "delivered"],
        ["msg_a", "delivered"],
      ]);
    } finally {
      await loop.stop();
    }
  });

  it("keeps walking an owner whose delivery is queued just as its empty queue is forgotten", async () => {
    const outbox = outboxFor(`${namespace}:rda:forget`);
    const owners = `${namespace}:rda:forget:owners`;
    // The loop finds acct_1's queue empty and forgets it while a notice for acct_1 is being queued:
    // both on one connection, the forgetting sent first. The queued notice keeps its owner walked.
    await outbox.enqueue(newOutboxDelivery("acct_1", "msg_old", "test.event", {}, Date.now()));
    await outbox.dropMissing("acct_1", "msg_old");
    const [, queued] = await Promise.all([
      outbox.forgetIfIdle("acct_1"),
      outbox.enqueue(newOutboxDelivery("acct_1", "msg_new", "test.event", {}, Date.now())),
    ]);
    expect(queued).toBe(true);
    expect(await outbox.head("acct_1")).toBe("msg_new");
    expect(await redis.sismember(owners, "acct_1")).toBe(1);
    // With its queue empty for real, it is forgotten.
    await outbox.dropMissing("acct_1", "msg_new");
    await outbox.forgetIfIdle("acct_1");
    expect(await redis.sismember(owners, "acct_1")).toBe(0);
  });

  it("sends each delivery once while two replicas' loops run", async () => {
    accepting = true;
    got.length = 0;
    const outbox = outboxFor(`${namespace}:rda:replicas`);
    const ids = Array.from({ length: 20 }, (_, index) => `msg_${index}`);
    for (const [index, id] of ids.entries())
      await outbox.enqueue(newOutboxDelivery(`acct_${index % 3}`, id, "test.event", {}, Date.now() + index));
    const loops = ["replica-a", "replica-b"].map((holder) =>
      startOutboxLoop(loopDeps(outbox, holder, 60_000)),
    );
    try {
      await waitFor(
        () => new Set(got.map((each) => each.id)).size === ids.length || undefined,
        "every delivery",
      );
      await Promise.all(loops.map((loop) => loop.stop()));
      expect(got.map((each) => each.id).sort()).toEqual([...ids].sort());
    } finally {
      await Promise.all(loops.map((loop) => loop.stop()));
    }
  });

  it("cuts a batch only under the lease, into an empty queue, from a source that has not moved or gone", async () => {
    const root = `${namespace}:rda:cut`;
    const outbox = outboxFor(root);
    const source = `${root}:{acct_1}:source`;
    await redis.hset(source, { cursor: "", sequence: 0 });
    const batch = (n: number) => newOutboxDelivery("acct_1", `msg_${n}`, "test.batch", { n }, Date.now());
    const from = (expected: string | null, cursor: string, sequence: number) => ({
      key: source,
      field: "cursor",
      expected,
      set: { cursor, sequence },
    });
    expect(await outbox.cut("replica-a", batch(1), from(null, "10", 1))).toBe(false);
    const lease = (await outbox.claim("acct_1", "replica-a", 5_000))!;
    try {
      expect(await outbox.cut("replica-a", batch(1), from(null, "10", 1))).toBe(true);
      expect(await redis.hgetall(source)).toEqual({ cursor: "10", sequence: "1" });
      expect(await outbox.head("acct_1")).toBe("msg_1");
      // Not while a batch is queued.
      expect(await outbox.cut("replica-a", batch(2), from("10", "20", 2))).toBe(false);
      await outbox.save(
        "replica-a",
        { ...(await outbox.delivery("acct_1", "msg_1"))!, state: "delivered" },
        true,
      );
      // Not from where the source was before it moved.
      expect(await outbox.cut("replica-a", batch(2), from(null, "20", 2))).toBe(false);
      expect(await outbox.cut("replica-a", batch(2), from("10", "20", 2))).toBe(true);
      await outbox.save(
        "replica-a",
        { ...(await outbox.delivery("acct_1", "msg_2"))!, state: "delivered" },
        true,
      );
      // Not once the source is gone (a webhook removed meanwhile is not written back).
      await redis.del(source);
      expect(await outbox.cut("replica-a", batch(3), from("20", "30", 3))).toBe(false);
      expect(await redis.exists(source)).toBe(0);
      expect(await outbox.head("acct_1")).toBeNull();
    } finally {
      await lease.release();
    }
  });

  it("with a roundFailed hook keeps a delivery that failed for good first, the queue waiting behind it", async () => {
    accepting = false;
    got.length = 0;
    const outbox = outboxFor(`${namespace}:rda:stays`);
    await outbox.enqueue(newOutboxDelivery("acct_1", "msg_first", "test.event", {}, Date.now()));
    await outbox.enqueue(newOutboxDelivery("acct_1", "msg_behind", "test.event", {}, Date.now() + 1));
    const ended: string[] = [];
    const sealed = sealSecret(sealingKey, newWebhookSecret());
    const deps = {
      ...loopDeps(outbox, "replica-a", 0),
      endpoint: async () => endpointOf(sealed),
      hooks: { roundFailed: async (record: OutboxDelivery) => void ended.push(record.id) },
    };
    for (let turn = 0; turn < 3; turn++) await sendDue(deps, () => false);
    expect(await outbox.head("acct_1")).toBe("msg_first");
    expect((await outbox.delivery("acct_1", "msg_first"))?.state).toBe("failed");
    // Found first again on every later turn, so an end cut short by a dying replica is finished.
    expect(ended).toEqual(["msg_first", "msg_first", "msg_first"]);
    expect(got.map((each) => each.id)).toEqual(["msg_first"]);
  });
});
