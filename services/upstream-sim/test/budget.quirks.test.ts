/**
 * The budget quirks: a window of requests per client on minute boundaries with the real upstream's
 * headers, busy refusals past the requests allowed in flight, slow heavy queries, and the counters
 * that show whether a client stayed inside.
 */
import { afterEach, describe, expect, it } from "vitest";
import {
  type BudgetQuirks,
  budgetQuirksOf,
  generateCorpus,
  type RunningSimulator,
  STRICT_BUDGET_QUIRKS,
  startSimulator,
} from "../src/index.ts";
import { ANCHOR } from "./support.ts";

const corpus = generateCorpus({ seed: 5, scale: 0.02, anchor: ANCHOR });
/** 17 s into a minute, frozen: every request falls in the same window. */
const now = (Math.floor(Date.now() / 60_000) + 1) * 60_000 + 17_000;
let sim: RunningSimulator | undefined;

afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function start(budget: BudgetQuirks): Promise<RunningSimulator> {
  sim = await startSimulator({ corpus, budget, clock: () => now });
  return sim;
}

const stats = async (url: string) =>
  (await (await fetch(`${url}/__sim/stats`)).json()) as { budget: Record<string, number> };

describe("the simulator's budget quirks", () => {
  it("counts a window per client and refuses past it with 429, in the upstream's header forms", async () => {
    const { url } = await start({ windowLimit: 2, sendRemaining: true, maxInFlight: 0, heavyLatencyMs: 0 });
    const subreddit = corpus.subreddits[0]!.name;
    const ask = () => fetch(`${url}/api/posts/search?subreddit=${subreddit}&limit=1&sort=desc`);
    const answers = [await ask(), await ask(), await ask()];
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 429]);
    expect(answers.map((answer) => answer.headers.get("x-ratelimit-remaining"))).toEqual(["1", "0", "0"]);
    expect(answers[2]!.headers.get("x-ratelimit-reset")).toBe("43");
    expect(answers[2]!.headers.get("x-ratelimit-reset-at")).toBe(String(now + 43_000));
    expect((await stats(url)).budget).toMatchObject({ window_limit: 2, rate_limited: 1, peak_in_window: 3 });
  });

  it("answers busy past the requests allowed in flight, and slows heavy queries down", async () => {
    const { url } = await start({
      windowLimit: 0,
      sendRemaining: false,
      maxInFlight: 1,
      heavyLatencyMs: 400,
    });
    const author = corpus.users[0]!.author;
    const heavy = () => fetch(`${url}/api/posts/search?author=${author}&limit=1&sort=desc`);
    const started = Date.now();
    const [first, second] = await Promise.all([heavy(), heavy()]);
    const statuses = [first!.status, second!.status].sort();
    expect(statuses).toEqual([200, 422]);
    const refused = first!.status === 422 ? first! : second!;
    expect(await refused.json()).toEqual({ data: null, error: "Timeout. Maybe slow down a bit" });
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    expect((await stats(url)).budget).toMatchObject({ busy_refusals: 1, peak_in_flight: 2, heavy: 1 });
    // Once the first is answered, a place is free again.
    expect((await heavy()).status).toBe(200);
  });

  it("turns every quirk on under the strict profile, each flag overriding it", () => {
    expect(budgetQuirksOf("strict", {})).toEqual(STRICT_BUDGET_QUIRKS);
    expect(budgetQuirksOf("default", {})).toMatchObject({ windowLimit: 0, maxInFlight: 0 });
    expect(budgetQuirksOf("strict", { SIM_WINDOW_LIMIT: 30, SIM_SEND_REMAINING: 1 })).toMatchObject({
      windowLimit: 30,
      sendRemaining: true,
      maxInFlight: 2,
    });
  });
});
