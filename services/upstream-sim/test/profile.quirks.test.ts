import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROFILE_QUIRKS, quirksFromEnv } from "../src/profile.ts";
import { ANCHOR, fetchAnswer, startTestSim, type TestSim } from "./support.ts";

/** The cutoff sits inside the test corpus (laid from 180 days before the anchor). */
const CUTOFF = ANCHOR - 90 * 86_400;

describe("the strict profile", () => {
  let sim: TestSim;
  beforeAll(async () => {
    sim = await startTestSim({
      profile: "strict",
      quirks: { stringEpochsBefore: CUTOFF, transientEmptyPageRate: 0 },
    });
  });
  afterAll(() => sim.close());

  it("answers a tree asked with a bare id with no comments, and the same tree with t3_ whole", async () => {
    const [post] = sim.probe.posts({ minComments: 3 }, 1);
    const bare = await sim.get(`/api/comments/tree?link_id=${post!.id}&limit=10`);
    const prefixed = await sim.get(`/api/comments/tree?link_id=t3_${post!.id}&limit=10`);
    expect(bare.status).toBe(200);
    expect(bare.data).toEqual([]);
    expect(prefixed.data.length).toBeGreaterThan(0);
  });

  it("sends created_utc, created and retrieved_on as strings on items before the cutoff only", async () => {
    const sub = sim.probe.subredditNames()[0];
    const old = await sim.get(`/api/posts/search?subreddit=${sub}&before=${CUTOFF}&limit=5`);
    const recent = await sim.get(`/api/posts/search?subreddit=${sub}&after=${CUTOFF + 86_400}&limit=5`);
    expect(old.data.length).toBe(5);
    for (const row of old.data) {
      expect(row.created_utc).toMatch(/^\d+$/);
      expect(row.created).toBe(row.created_utc);
      expect(Number(row.created_utc)).toBeLessThan(CUTOFF);
    }
    for (const row of recent.data) expect(Number.isInteger(row.created_utc)).toBe(true);
    const ids = old.data.map((row: { id: string }) => row.id).join(",");
    const batch = await sim.get(`/api/posts/ids?ids=${ids}`);
    expect(batch.data.every((row: { created_utc: unknown }) => typeof row.created_utc === "string")).toBe(
      true,
    );
  });

  it("includes the after boundary second, and still excludes the before one", async () => {
    const [post] = sim.probe.posts({}, 1);
    const t = post!.created_utc;
    const after = await sim.get(
      `/api/posts/search?after=${t}&before=${t + 1}&limit=100&subreddit=${post!.subreddit}`,
    );
    const before = await sim.get(
      `/api/posts/search?after=${t - 1}&before=${t}&limit=100&subreddit=${post!.subreddit}`,
    );
    expect(after.data.map((row: { id: string }) => row.id)).toContain(post!.id);
    expect(before.data.map((row: { id: string }) => row.id)).not.toContain(post!.id);
  });

  it("blocks a request without a User-Agent with a Cloudflare page, and serves one with it", async () => {
    const blocked = await fetchAnswer(`${sim.url}/api/posts/search?limit=1`, {
      headers: { "user-agent": "" },
    });
    expect(blocked.status).toBe(403);
    expect(blocked.headers.get("content-type")).toMatch(/text\/html/);
    expect(blocked.text).toContain("Sorry, you have been blocked");
    expect(blocked.body).toBeUndefined();
    const served = await fetchAnswer(`${sim.url}/api/posts/search?limit=1`, {
      headers: { "user-agent": "test/1 (ops@example.com)" },
    });
    expect(served.status).toBe(200);
  });

  it("nulls some rule descriptions, the same ones on every ask", async () => {
    const names = sim.probe.subredditNames().join(",");
    const first = await sim.get(`/api/subreddits/rules?subreddits=${names}`);
    const again = await sim.get(`/api/subreddits/rules?subreddits=${names}`);
    const rules = first.data.flatMap((entry: { rules: unknown[] }) => entry.rules);
    const nulls = rules.filter((rule: { description: unknown }) => rule.description === null);
    expect(nulls.length).toBeGreaterThan(0);
    expect(nulls.length).toBeLessThan(rules.length);
    expect(again.data).toEqual(first.data);
  });
});

describe("transient empty pages", () => {
  let sim: TestSim;
  beforeAll(async () => {
    sim = await startTestSim({ quirks: { transientEmptyPageRate: 1 } });
  });
  afterAll(() => sim.close());

  it("answers a query's first ask empty and the same query again in full", async () => {
    const sub = sim.probe.subredditNames()[1];
    const first = await sim.get(`/api/posts/search?subreddit=${sub}&limit=7`);
    const second = await sim.get(`/api/posts/search?subreddit=${sub}&limit=7`);
    expect(first.status).toBe(200);
    expect(first.data).toEqual([]);
    expect(second.data).toHaveLength(7);
  });
});

describe("the default profile", () => {
  let sim: TestSim;
  beforeAll(async () => {
    sim = await startTestSim();
  });
  afterAll(() => sim.close());

  it("has none of the quirks", async () => {
    const [post] = sim.probe.posts({ minComments: 3 }, 1);
    const tree = await sim.get(`/api/comments/tree?link_id=${post!.id}&limit=10`);
    const page = await fetchAnswer(`${sim.url}/api/posts/search?limit=3`, { headers: { "user-agent": "" } });
    expect(tree.data.length).toBeGreaterThan(0);
    expect(page.status).toBe(200);
    expect(page.data.every((row: { created_utc: unknown }) => Number.isInteger(row.created_utc))).toBe(true);
  });
});

describe("the environment", () => {
  const unset = {
    SIM_TREE_NEEDS_PREFIX: undefined,
    SIM_STRING_EPOCHS_BEFORE: undefined,
    SIM_AFTER_INCLUSIVE: undefined,
    SIM_BEFORE_INCLUSIVE: undefined,
    SIM_REQUIRE_USER_AGENT: undefined,
    SIM_NULL_RULE_DESCRIPTIONS: undefined,
    SIM_TRANSIENT_EMPTY_PAGES: undefined,
  };

  it("takes a profile's quirks, each overridable by its own variable", () => {
    expect(quirksFromEnv({ SIM_PROFILE: "strict", ...unset })).toEqual(PROFILE_QUIRKS.strict);
    const picked = quirksFromEnv({
      ...unset,
      SIM_PROFILE: "strict",
      SIM_AFTER_INCLUSIVE: "false",
      SIM_STRING_EPOCHS_BEFORE: "off",
    });
    expect(picked).toEqual({
      ...PROFILE_QUIRKS.strict,
      afterInclusive: false,
      stringEpochsBefore: undefined,
    });
    const one = quirksFromEnv({ ...unset, SIM_PROFILE: "default", SIM_TREE_NEEDS_PREFIX: "true" });
    expect(one).toEqual({ ...PROFILE_QUIRKS.default, treeNeedsPrefix: true });
  });
});
