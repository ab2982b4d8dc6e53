/** adapter.users.get: exact username (case-insensitive), {user: profile} or {user: null}. */

import { requestAdapter } from "@rda/adapter-kit/testing";
import { buildSubjects } from "@rda/contracts";
import type { NatsConnection } from "@rda/service-kit";
import { connectTestNats, silentLogger, testNamespace } from "@rda/service-kit/testing";
import { simControl } from "@rda/upstream-client/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSimulator, startSimulator } from "../../upstream-sim/src/index.ts";
import { startAdapterUsers } from "../src/index.ts";

let sim: RunningSimulator;
let nats: NatsConnection;
let adapter: { stop(): Promise<void> };
const subjects = buildSubjects(testNamespace("users"));
const user = (params: unknown) => requestAdapter(nats, subjects.adapter.getUserProfile, params);

beforeAll(async () => {
  sim = await startSimulator({ seed: 6, scale: 0.02 });
  nats = await connectTestNats();
  adapter = await startAdapterUsers({
    nats,
    subjects,
    upstreamUrl: sim.url,
    logger: silentLogger(),
    upstream: { deadlineMs: 1_000, maxRetries: 1 },
  });
});
afterAll(async () => {
  await adapter.stop();
  await nats.close();
  await sim.close();
});

describe("adapter-users", () => {
  it("returns the profile of an exact username with its _meta aggregates", async () => {
    const known = sim.probe.knownUser();
    const answer = await user({ name: known.author });
    expect(answer.meta).toEqual({ outcome: "ok" });
    expect(answer.data).toEqual({ user: JSON.parse(JSON.stringify(known)) });
  });

  it("matches the username regardless of case and returns the upstream's spelling", async () => {
    const known = sim.probe.knownUser();
    const data = (await user({ name: known.author.toUpperCase() })).data as { user: { author: string } };
    expect(data.user.author).toBe(known.author);
  });

  it("answers user null for a prefix of a name (no prefix or fuzzy match)", async () => {
    const known = sim.probe.knownUser();
    expect((await user({ name: known.author.slice(0, -1) })).data).toEqual({ user: null });
  });

  it("answers user null for an author who posts but is missing from the user index", async () => {
    const missing = sim.probe.missingUser();
    expect(missing).not.toBe("");
    expect(await user({ name: missing })).toEqual({
      meta: { outcome: "ok" },
      data: { user: null },
      fetchedAtMs: expect.any(Number),
      fetch: { maxAgeS: undefined, source: "upstream" },
    });
  });

  it("answers bad_request for a name breaking the pattern, without calling the upstream", async () => {
    const before = (await simControl(sim.url).stats()).total;
    expect((await user({ name: "ab" })).meta.outcome).toBe("bad_request");
    expect((await user({ name: "bad name" })).meta.outcome).toBe("bad_request");
    expect((await simControl(sim.url).stats()).total).toBe(before);
  });

  it("answers unavailable when the upstream keeps failing, so the gateway refunds", async () => {
    const control = simControl(sim.url);
    await control.addFault({ mode: "error", path: "/api/users" });
    const answer = await user({ name: sim.probe.knownUser().author });
    await control.clearFaults();
    expect(answer.meta.outcome).toBe("unavailable");
  });
});
