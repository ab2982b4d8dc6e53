/** adapter.subreddits.search and adapter.subreddits.rules over NATS and the simulator. */

import { requestAdapter } from "@rda/adapter-kit/testing";
import { buildSubjects } from "@rda/contracts";
import type { NatsConnection } from "@rda/service-kit";
import { connectTestNats, silentLogger, testNamespace } from "@rda/service-kit/testing";
import { simControl } from "@rda/upstream-client/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSimulator, startSimulator } from "../../upstream-sim/src/index.ts";
import { startAdapterCommunities } from "../src/index.ts";

let sim: RunningSimulator;
let nats: NatsConnection;
let adapter: { stop(): Promise<void> };
const subjects = buildSubjects(testNamespace("communities"));
const search = (params: unknown) => requestAdapter(nats, subjects.adapter.searchSubreddits, params);
const rules = (params: unknown) => requestAdapter(nats, subjects.adapter.getSubredditRules, params);

beforeAll(async () => {
  sim = await startSimulator({ seed: 4, scale: 0.02 });
  nats = await connectTestNats();
  adapter = await startAdapterCommunities({ nats, subjects, upstreamUrl: sim.url, logger: silentLogger() });
});
afterAll(async () => {
  await adapter.stop();
  await nats.close();
  await sim.close();
});

type Community = { name: string; subscribers: number; description: string };

describe("adapter-communities search", () => {
  it("returns at most 10 communities of the prefix as name, subscribers and description", async () => {
    const answer = await search({ q: "r/" + "a" });
    expect(answer.meta).toEqual({ outcome: "ok", cursor: null, has_more: false });
    const rows = answer.data as Community[];
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeLessThanOrEqual(10);
    for (const row of rows) {
      expect(Object.keys(row).sort()).toEqual(["description", "name", "subscribers"]);
      expect(row.name.toLowerCase().startsWith("a")).toBe(true);
      expect(Number.isInteger(row.subscribers)).toBe(true);
      expect(typeof row.description).toBe("string");
    }
  });

  it("finds a community by its exact name with the short public description", async () => {
    const sub = sim.corpus.subreddits[0]!;
    const rows = (await search({ q: sub.name.toUpperCase() })).data as Community[];
    expect(rows).toContainEqual({
      name: sub.name,
      subscribers: sub.subscribers,
      description: sub.publicDescription,
    });
  });

  it("answers an empty list for a prefix no community has", async () => {
    expect((await search({ q: "zzzqqq" })).data).toEqual([]);
  });

  it("answers bad_request for a malformed q without calling the upstream", async () => {
    const before = (await simControl(sim.url).stats()).total;
    expect((await search({ q: "no spaces" })).meta.outcome).toBe("bad_request");
    expect((await search({})).meta.outcome).toBe("bad_request");
    expect((await simControl(sim.url).stats()).total).toBe(before);
  });
});

describe("adapter-communities rules", () => {
  it("returns a community's rules under the upstream's spelling of its name", async () => {
    const sub = sim.corpus.subreddits.find((candidate) => candidate.rules.length > 0)!;
    const answer = await rules({ name: sub.name.toLowerCase() });
    expect(answer.meta).toEqual({ outcome: "ok" });
    const data = answer.data as { subreddit: string; rules: Array<Record<string, unknown>> };
    expect(data.subreddit).toBe(sub.name);
    expect(data.rules).toHaveLength(sub.rules.length);
    for (const rule of data.rules) {
      expect(rule).toMatchObject({
        short_name: expect.any(String),
        description: expect.any(String),
        priority: expect.any(Number),
      });
    }
  });

  it("answers an empty rule list for a community the upstream has no rules for", async () => {
    expect((await rules({ name: "NoSuchCommunity1" })).data).toEqual({
      subreddit: "NoSuchCommunity1",
      rules: [],
    });
  });

  it("answers bad_request for a name breaking the pattern", async () => {
    expect((await rules({ name: "ab" })).meta.outcome).toBe("bad_request");
    expect((await rules({ name: "has-hyphen" })).meta.outcome).toBe("bad_request");
  });
});
