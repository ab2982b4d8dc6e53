/**
 * The one consumer loop over a real JetStream: a handler pulls a message only when it is free, the
 * ack wait of a message under way is renewed, a message a handler leaves goes to another replica
 * after the ack wait, a failed handler's message comes back, a malformed one is terminated, and
 * stop waits for the message under way.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  ACK,
  AckPolicy,
  ensureConsumer,
  ensureStream,
  type JetStreamManager,
  jetstream,
  jetstreamManager,
  LEAVE,
  type Loop,
  type MessageEnd,
  type NatsConnection,
  nanos,
  RetentionPolicy,
  startConsumerLoop,
} from "../src/index.ts";
import { capturingLogger, connectTestNats, testNamespace, waitFor } from "../src/testing/index.ts";

const namespace = testNamespace("consumer").replace(/[^A-Za-z0-9_-]/g, "_");
const ACK_WAIT_MS = 1_000;
let nats: NatsConnection;
let jsm: JetStreamManager;
const streams: string[] = [];

beforeAll(async () => {
  nats = await connectTestNats();
  jsm = await jetstreamManager(nats);
});
afterAll(async () => {
  for (const stream of streams) await jsm.streams.delete(stream).catch(() => undefined);
  await nats.close();
});

/** A work queue of its own for one test, by default with a short ack wait. */
async function queue(label: string, ackWaitMs = ACK_WAIT_MS) {
  const stream = `${namespace}_${label}`;
  const subject = `${namespace}.${label}`;
  streams.push(stream);
  await ensureStream(jsm, { name: stream, subjects: [subject], retention: RetentionPolicy.Workqueue }, 1);
  await ensureConsumer(jsm, stream, {
    durable_name: "workers",
    ack_policy: AckPolicy.Explicit,
    ack_wait: nanos(ackWaitMs),
    max_deliver: -1,
  });
  const publish = (body: unknown) =>
    jetstream(nats).publish(subject, typeof body === "string" ? body : JSON.stringify(body));
  const info = () => jsm.consumers.info(stream, "workers");
  return { stream, publish, info };
}

/** A handler the test lets finish when it says so. */
function gate() {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

const job = z.object({ n: z.number() });

function replica(
  stream: string,
  handle: (value: { n: number }, deliveries: number) => Promise<MessageEnd>,
  retryMs = 100,
) {
  const { logger, lines } = capturingLogger();
  const loop = startConsumerLoop({
    name: "test job",
    nats,
    stream,
    consumer: "workers",
    schema: job,
    handle: (value, message) => handle(value, message.info.deliveryCount),
    retryMs,
    logger,
  });
  return { loop, lines };
}

describe("the consumer loop", () => {
  it("pulls a message only when a handler is free, so the next goes to another replica at once", async () => {
    // An ack wait longer than the test: a message buffered behind the held one would stay there.
    const { stream, publish } = await queue("free", 60_000);
    const held = gate();
    const handledBy: Record<number, string> = {};
    const worker = (name: string) =>
      replica(stream, async ({ n }) => {
        handledBy[n] = name;
        if (n === 1) await held.opened;
        return ACK;
      });
    const [a, b] = [worker("a"), worker("b")];
    const loops = await Promise.all([a.loop, b.loop]);
    await publish({ n: 1 });
    await waitFor(() => handledBy[1], "the first message under way");
    await publish({ n: 2 });
    await waitFor(() => handledBy[2], "the second message handled while the first is held");
    expect(handledBy[2]).not.toBe(handledBy[1]);
    held.open();
    await Promise.all(loops.map((loop) => loop.stop()));
  });

  it("renews a message's ack wait while its handler runs, and a message left goes elsewhere after it", async () => {
    const { stream, publish } = await queue("held");
    const deliveries: string[] = [];
    let leftAt = 0;
    let againAfterMs = 0;
    const holder = replica(stream, async (_value, delivery) => {
      deliveries.push(`holder ${delivery}`);
      // Three ack waits: without renewal JetStream would hand the message to the idle replica.
      await new Promise((resolve) => setTimeout(resolve, 3 * ACK_WAIT_MS));
      leftAt = Date.now();
      return LEAVE;
    });
    const idle = replica(stream, async (_value, delivery) => {
      deliveries.push(leftAt === 0 ? `idle ${delivery} while held` : `idle ${delivery}`);
      againAfterMs = Date.now() - leftAt;
      return ACK;
    });
    const loops = await Promise.all([holder.loop, idle.loop]);
    await publish({ n: 1 });
    await waitFor(() => deliveries.length > 0, "the message taken");
    // Only once the holder has it: the idle replica is now the only one free.
    await waitFor(() => deliveries.length === 2, "the left message delivered again", 15_000);
    expect(deliveries).toEqual(["holder 1", "idle 2"]);
    // Left, not handed back: it comes again only when the ack wait of its last renewal has passed.
    expect(againAfterMs).toBeGreaterThanOrEqual(ACK_WAIT_MS / 2);
    await Promise.all(loops.map((loop) => loop.stop()));
  });

  it("hands a failed handler's message back after retryMs, and terminates one that does not parse", async () => {
    const { stream, publish, info } = await queue("failing");
    const deliveries: number[] = [];
    const { loop, lines } = replica(stream, async (_value, delivery) => {
      deliveries.push(delivery);
      if (delivery === 1) throw new Error("Redis away");
      return ACK;
    });
    const running = await loop;
    await publish("not json");
    await publish({ n: 1 });
    await waitFor(() => deliveries.length === 2, "the failed message handled again");
    expect(deliveries).toEqual([1, 2]);
    await waitFor(async () => {
      const state = await info();
      return state.num_pending === 0 && state.num_ack_pending === 0;
    }, "both messages ended");
    expect(lines()).toMatch(/malformed test job message dropped/);
    expect(lines()).toMatch(/test job message not handled; retrying/);
    await running.stop();
  });

  it("stops only once the message under way is handled, and leaves the next for the next start", async () => {
    const { stream, publish } = await queue("stop");
    const held = gate();
    const handled: number[] = [];
    const loop: Loop = await replica(stream, async ({ n }) => {
      if (n === 1) await held.opened;
      handled.push(n);
      return ACK;
    }).loop;
    await publish({ n: 1 });
    await waitFor(
      async () => (await jsm.consumers.info(stream, "workers")).num_ack_pending === 1,
      "n 1 taken",
    );
    let stopped = false;
    const stopping = loop.stop().then(() => {
      stopped = true;
    });
    await publish({ n: 2 });
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    held.open();
    await stopping;
    expect(handled).toEqual([1]);
    const next = await replica(stream, async ({ n }) => {
      handled.push(n);
      return ACK;
    }).loop;
    await waitFor(() => handled.length === 2, "the next start to take n 2");
    expect(handled).toEqual([1, 2]);
    await next.stop();
  });
});
