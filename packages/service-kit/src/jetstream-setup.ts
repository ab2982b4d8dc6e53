/**
 * The one way a service sets up its JetStream streams and durable consumers: add, else update. Every replica runs it at start, so the first creates each one and the others
 * (and later releases) bring an existing one's limits and copies up to date. The number of copies
 * of every stream is one setting, NATS_REPLICAS (docs/operations.md#jetstream), so a
 * three-node cluster keeps all of them through the loss of one node.
 */
import {
  type ConsumerConfig,
  type JetStreamManager,
  RetentionPolicy,
  StorageType,
  type StreamConfig,
} from "@nats-io/jetstream";

/** A stream as its owner declares it; the copies come from NATS_REPLICAS. */
export type StreamSetup = Pick<StreamConfig, "name" | "subjects"> &
  Partial<Omit<StreamConfig, "name" | "subjects" | "num_replicas">>;

/** A durable consumer as its owner declares it. */
export type ConsumerSetup = Partial<ConsumerConfig> & { durable_name: string };

/** Nanoseconds, the unit of JetStream's durations. */
export const nanos = (ms: number) => ms * 1_000_000;

export async function ensureStream(
  jsm: JetStreamManager,
  stream: StreamSetup,
  replicas: number,
): Promise<void> {
  const { name, storage = StorageType.File, retention = RetentionPolicy.Limits, ...limits } = stream;
  try {
    await jsm.streams.add({ name, storage, retention, ...limits, num_replicas: replicas });
  } catch {
    // It exists (another replica, an earlier run): bring its limits and copies up to date. Storage
    // and retention cannot change on an existing stream, so they are not sent again.
    await jsm.streams.update(name, { ...limits, num_replicas: replicas });
  }
}

export async function ensureConsumer(
  jsm: JetStreamManager,
  stream: string,
  consumer: ConsumerSetup,
): Promise<void> {
  const { durable_name, ack_policy, deliver_policy, ...settings } = consumer;
  try {
    await jsm.consumers.add(stream, { durable_name, ack_policy, deliver_policy, ...settings });
  } catch {
    await jsm.consumers.update(stream, durable_name, settings);
  }
}
