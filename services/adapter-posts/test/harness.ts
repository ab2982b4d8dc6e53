/** One simulator, one NATS connection and one adapter per test file, in a namespace of its own. */

import { requestAdapter } from "@rda/adapter-kit/testing";
import { buildSubjects, type Subjects } from "@rda/contracts";
import type { NatsConnection } from "@rda/service-kit";
import { connectTestNats, silentLogger, testNamespace } from "@rda/service-kit/testing";
import { type RunningSimulator, type SimQuirks, startSimulator } from "../../upstream-sim/src/index.ts";
import { startAdapterPosts } from "../src/index.ts";

export interface Harness {
  readonly sim: RunningSimulator;
  readonly nats: NatsConnection;
  readonly subjects: Subjects;
  posts(params: unknown): ReturnType<typeof requestAdapter>;
  comments(params: unknown): ReturnType<typeof requestAdapter>;
  close(): Promise<void>;
}

export async function startHarness(
  seed = 7,
  scale = 0.1,
  upstream?: { deadlineMs?: number; maxRetries?: number; busyWaitMs?: number },
  quirks?: Partial<SimQuirks>,
): Promise<Harness> {
  const sim = await startSimulator({ seed, scale, quirks });
  const nats = await connectTestNats();
  const subjects = buildSubjects(testNamespace("posts"));
  const adapter = await startAdapterPosts({
    nats,
    subjects,
    upstreamUrl: sim.url,
    logger: silentLogger(),
    upstream,
  });
  return {
    sim,
    nats,
    subjects,
    posts: (params) => requestAdapter(nats, subjects.adapter.listPosts, params),
    comments: (params) => requestAdapter(nats, subjects.adapter.listComments, params),
    async close() {
      await adapter.stop();
      await nats.close();
      await sim.close();
    },
  };
}

export type Row = Record<string, unknown> & { id: string; created_utc: number };
