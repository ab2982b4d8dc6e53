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

type Community = { name: string; subscribers: number; description: string; _meta?: object };

describe("adapter-communities search", () => {
  it("returns at most 10 communities of the prefix as name, subscribers, description, title, created_utc and _meta counts", async () => {
    const answer = await search({ q: "r/" + "a" });
    expect(answer.meta).toEqual({ outcome: "ok", cursor: null, has_more: false });
    const rows = answer.data as Community[];
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeLessThanOrEqual(10);
    for (const row of rows) {
      expect(Object.keys(row).sort()).toEqual([
        "_meta",
        "created_utc",
        "description",
        "name",
        "subscribers",
        "title",
      ]);
      expect(Object.keys(row._meta ?? {}).sort()).toEqual(["num_comments", "num_posts"]);
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
      title: sub.title,
      created_utc: sub.createdUtc,
      _meta: { num_posts: sub.meta.num_posts, num_comments: sub.meta.num_comments },
    });
  });

  it("forwards the search options: limit beyond 10, subscriber bounds, NSFW and the order by name", async () => {
    const all = (await search({ q: "m", limit: 100, sort_type: "name", sort: "asc" })).data as Community[];
    const names = all.map((row) => row.name.toLowerCase());
    expect(names).toEqual([...names].sort());
    const nsfw = (await search({ q: "m", over18: "yes", limit: 100 })).data as Community[];
    const expected = sim.corpus.subreddits.filter((sub) => sub.over18 && /^m/i.test(sub.name));
    expect(nsfw.map((row) => row.name).sort()).toEqual(expected.map((sub) => sub.name).sort());
    const sizes = sim.corpus.subreddits.map((sub) => sub.subscribers).sort((a, b) => a - b);
    const middle = sizes[Math.floor(sizes.length / 2)]!;
    const big = (await search({ q: "a", min_subscribers: middle, limit: 100 })).data as Community[];
    expect(big.every((row) => row.subscribers >= middle)).toBe(true);
    const wide = (await search({ q: "", limit: 30 })).meta.outcome;
    expect(wide).toBe("bad_request");
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
