/**
 * JetStream streams, durable consumers and key-value buckets are set up one way: service-kit's
 * `jetstream-setup.ts` (add, else update, with NATS_REPLICAS copies). A second copy of that logic
 * would drift (its own replica count, a create that never updates), so no production source outside
 * the helper may add or update a stream or consumer, or create a bucket.
 */
import { describe, expect, it } from "vitest";
import { linesOutsideHome } from "./production-lines.ts";

const THE_HELPER = "packages/service-kit/src/jetstream-setup.ts";
const OTHER_SETUP = [
  /\.streams\s*\.\s*(add|update)\s*\(/,
  /\.consumers\s*\.\s*(add|update)\s*\(/,
  /\bKvm\b[^;]*\.create\s*\(/,
  /\bkvm\s*\.\s*create\s*\(/i,
  /\bnum_replicas\b/,
];

function otherSetups(): string[] {
  return linesOutsideHome([THE_HELPER], OTHER_SETUP);
}

describe("setting up JetStream", () => {
  it("goes through the service kit's jetstream-setup only, in every service and package", () => {
    expect(otherSetups()).toEqual([]);
  });

  it("would notice a stream, consumer or bucket made another way", () => {
    for (const line of [
      "await jsm.streams.add({ name: subjects.jobStream })",
      "await jsm.streams.update(subjects.jobStream, stream);",
      "await jsm.consumers.add(stream, { durable_name })",
      "await jsm.consumers.update(stream, name, settings)",
      'const kv = await new Kvm(nats).create("MONITOR_SOURCES", { history: 1 });',
      "await kvm.create(bucket)",
      "{ num_replicas: 3 }",
    ])
      expect(
        OTHER_SETUP.some((pattern) => pattern.test(line)),
        line,
      ).toBe(true);
    for (const line of [
      "await jsm.streams.info(subjects.refundStream)",
      'await new Kvm(nats).open("MONITOR_SOURCES")',
      "await this.#kv.create(key, value)",
    ])
      expect(
        OTHER_SETUP.some((pattern) => pattern.test(line)),
        line,
      ).toBe(false);
  });
});
