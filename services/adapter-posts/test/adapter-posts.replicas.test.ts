/**
 * Two replicas of adapter-posts on one namespace join one queue group and share the load. Each replica
 * talks to its own simulator (same corpus), so the simulators' request counts show who served what.
 */

import { requestAdapter } from "@rda/adapter-kit/testing";
import { buildSubjects } from "@rda/contracts";
import type { NatsConnection } from "@rda/service-kit";
import { connectTestNats, silentLogger, testNamespace } from "@rda/service-kit/testing";
import { simControl } from "@rda/upstream-client/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSimulator, startSimulator } from "../../upstream-sim/src/index.ts";
import { startAdapterPosts } from "../src/index.ts";

let sims: RunningSimulator[];
let nats: NatsConnection;
let replicas: Array<{ stop(): Promise<void> }>;
const subjects = buildSubjects(testNamespace("replicas"));

beforeAll(async () => {
  const first = await startSimulator({ seed: 5, scale: 0.02 });
  sims = [first, await startSimulator({ corpus: first.corpus })];
  nats = await connectTestNats();
  replicas = await Promise.all(
    sims.map((sim) => startAdapterPosts({ nats, subjects, upstreamUrl: sim.url, logger: silentLogger() })),
  );
});
afterAll(async () => {
  await Promise.all(replicas.map((replica) => replica.stop()));
  await nats.close();
  await Promise.all(sims.map((sim) => sim.close()));
});

describe("adapter-posts replicas", () => {
  it("share 40 requests between two replicas in one queue group, each answering some", async () => {
    const subreddit = sims[0]!.probe.subredditNames()[0]!;
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        // Each its own window: one upstream page serves every limit of one window.
        requestAdapter(nats, subjects.adapter.listPosts, { subreddit, before: 1_700_000_000 - i * 3_600 }),
      ),
    );
    expect(answers.every((answer) => answer.meta.outcome === "ok")).toBe(true);
    const served = await Promise.all(sims.map((sim) => simControl(sim.url).requestsOn("/api/posts/search")));
    // Each request costs one or two upstream calls (README: a full page of one second is fetched whole).
    expect(served.every((count) => count > 0)).toBe(true);
    expect(served[0]! + served[1]!).toBeGreaterThanOrEqual(40);
  });
});
