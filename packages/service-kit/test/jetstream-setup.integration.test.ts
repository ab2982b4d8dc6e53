/**
 * The one JetStream setup (jetstream-setup.ts) against a real NATS server: a stream or consumer
 * is made on the first start and brought up to date on the next, with the configured copies.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AckPolicy,
  DeliverPolicy,
  ensureConsumer,
  ensureStream,
  type JetStreamManager,
  jetstreamManager,
  type NatsConnection,
  nanos,
  RetentionPolicy,
} from "../src/index.ts";
import { connectTestNats, testNamespace } from "../src/testing/index.ts";

describe("JetStream setup over real NATS", () => {
  let nats: NatsConnection;
  let jsm: JetStreamManager;
  const prefix = testNamespace("js")
    .toUpperCase()
    .replace(/[^A-Z0-9_]/g, "_");
  const stream = `${prefix}_JOBS`;

  beforeAll(async () => {
    nats = await connectTestNats();
    jsm = await jetstreamManager(nats);
  });
  afterAll(async () => {
    for (const name of [stream]) await jsm.streams.delete(name).catch(() => false);
    await nats.drain();
  });

  const jobs = (maxAgeMs: number) => ({
    name: stream,
    subjects: [`${prefix.toLowerCase()}.jobs`],
    retention: RetentionPolicy.Workqueue,
    max_age: nanos(maxAgeMs),
  });

  it("makes a stream on the first start and updates its limits on the next", async () => {
    await ensureStream(jsm, jobs(60_000), 1);
    expect((await jsm.streams.info(stream)).config).toMatchObject({
      retention: RetentionPolicy.Workqueue,
      max_age: nanos(60_000),
      num_replicas: 1,
    });
    await ensureStream(jsm, jobs(120_000), 1);
    const { config } = await jsm.streams.info(stream);
    expect(config.max_age).toBe(nanos(120_000));
    expect(config.retention).toBe(RetentionPolicy.Workqueue);
  });

  it("makes a durable consumer once and updates its ack wait", async () => {
    const consumer = (ackWaitMs: number) => ({
      durable_name: "workers",
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: nanos(ackWaitMs),
      max_deliver: -1,
    });
    await ensureConsumer(jsm, stream, consumer(30_000));
    await ensureConsumer(jsm, stream, consumer(45_000));
    const info = await jsm.consumers.info(stream, "workers");
    expect(info.config.ack_wait).toBe(nanos(45_000));
    expect(info.config.max_deliver).toBe(-1);
    expect((await jsm.consumers.list(stream).next()).length).toBe(1);
  });
});
