/**
 * A monitor whose key runs out of credits, through the gateway over real HTTP, NATS and Redis: it
 * shows `paused_for_credits`, its pulls are refused uncharged, it keeps matching meanwhile, and
 * after a real top-up through billing the next pulls continue from the held cursor with nothing
 * lost. A reached spend cap pauses it the same way.
 */
import { setSpendCapReplySchema, topUpReplySchema } from "@rda/contracts";
import { requestJson } from "@rda/service-kit";
import { silentLogger, waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { monitorKeys, type RunningMonitors, startMonitors } from "../../services/monitors/src/index.ts";
import { type Stack, startStack } from "../support/stack.ts";
import { verifyLedger } from "./exports.support.ts";

let stack: Stack;
let monitors: RunningMonitors;

beforeAll(async () => {
  stack = await startStack();
  monitors = await startMonitors({
    nats: stack.nats,
    redis: stack.redis,
    namespace: stack.namespace,
    subjects: stack.subjects,
    logger: silentLogger(),
    // One backfill page per poll: the window is still being matched after the credits run out.
    settings: { tickMs: 200, backfillPagesPerPoll: 1 },
  });
}, 60_000);

afterAll(async () => {
  await monitors?.stop();
  await stack?.stop();
});

async function call(secret: string, method: string, path: string, body?: unknown) {
  const headers: Record<string, string> = { "x-api-key": secret };
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${stack.gatewayUrl}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  // biome-ignore lint/suspicious/noExplicitAny: the test reads each answer's fields as the API documents them
  return { status: response.status, headers: response.headers, json: (await response.json()) as any };
}

type Item = { id: string; created_utc: number };

/** Pulls from `cursor` until a page comes back empty; every page is charged 1 credit. */
async function pullToEnd(secret: string, id: string, cursor: string | null) {
  const items: Item[] = [];
  let at = cursor;
  for (;;) {
    const query = at === null ? "" : `?cursor=${encodeURIComponent(at)}`;
    const page = await call(secret, "GET", `/v1/monitors/${id}/items${query}`);
    expect(page.status).toBe(200);
    if (page.json.data.items.length === 0) return { items, cursor: at };
    items.push(...page.json.data.items);
    at = page.json.data.cursor;
  }
}

/** The community with the most posts in the last `days`: its backfill takes several pages. */
function busiestCommunity(days: number): string {
  const { corpus } = stack.simulator;
  const now = Math.floor(Date.now() / 1000);
  const counts = new Map<number, number>();
  for (let post = 0; post < corpus.posts.count; post += 1) {
    const created = corpus.anchor + (corpus.posts.created[post] as number);
    const sub = corpus.posts.sub[post] as number;
    if (created > now - days * 86_400 && created <= now) counts.set(sub, (counts.get(sub) ?? 0) + 1);
  }
  const [busiest] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0] ?? [0];
  return corpus.subreddits[busiest]!.name;
}

const statusOf = async (secret: string, id: string) =>
  (await call(secret, "GET", `/v1/monitors/${id}`)).json.data.monitor;

describe("a monitor at zero balance", () => {
  it("pauses for credits, keeps matching, refuses pulls uncharged, and after a top-up delivers everything from its cursor", async () => {
    const { key, id: keyId } = await stack.createKey({ credits: 1 });
    const subreddit = busiestCommunity(30);
    const created = await call(key, "POST", "/v1/monitors", {
      kind: "post",
      subreddit,
      interval_seconds: 60,
      backfill_from: "30d",
    });
    expect(created.status).toBe(201);
    const { id } = created.json.data.monitor;
    const first = await waitFor(async () => {
      const pulled = await call(key, "GET", `/v1/monitors/${id}/items`);
      return pulled.json.data.items.length > 0 ? pulled : undefined;
    }, "a pull holding items");
    expect(first.json._service).toMatchObject({ credits_used: 1, credits_remaining: 0 });
    const held: string = first.json.data.cursor;

    expect(await statusOf(key, id)).toMatchObject({
      status: "paused_for_credits",
      paused_reason: "insufficient_credits",
    });
    const refused = await call(key, "GET", `/v1/monitors/${id}/items?cursor=${encodeURIComponent(held)}`);
    expect(refused.status).toBe(402);
    expect(typeof refused.json.error).toBe("string");
    // Matching goes on while nobody can pull: the monitor's kept items grow past the first page.
    const kept = monitorKeys(stack.namespace).items(id);
    await waitFor(
      async () => (await stack.redis.xlen(kept)) > first.json.data.items.length,
      "matching while paused",
      60_000,
    );
    expect(await stack.balanceOf(keyId)).toBe(0);

    const topUp = await requestJson(
      stack.nats,
      stack.subjects.billing.topUp,
      { id: keyId, usd_cents: 500, request_id: `topup-${id}` },
      topUpReplySchema,
      5_000,
    );
    expect(topUp.ok && topUp.value.outcome).toBe("ok");
    expect((await statusOf(key, id)).status).not.toBe("paused_for_credits");
    await waitFor(async () => (await statusOf(key, id)).status === "live", "the backfill's end", 60_000);

    const rest = await pullToEnd(key, id, held);
    const resumed = [...first.json.data.items, ...rest.items] as Item[];
    expect(rest.items.length).toBeGreaterThan(0);
    expect(new Set(resumed.map((item) => item.id)).size).toBe(resumed.length);
    // Nothing was lost at the pause: a pull of the whole stream from its start holds exactly these.
    const everything = await pullToEnd(key, id, null);
    expect(everything.items.map((item) => item.id)).toEqual(resumed.map((item) => item.id));
    expect(await verifyLedger(stack)).toMatchObject({ ok: true });
  }, 120_000);

  it("pauses for credits when the key's spend cap is reached, and follows again once it is raised", async () => {
    const { key, id: keyId } = await stack.createKey({ credits: 50 });
    const subreddit = stack.simulator.corpus.subreddits[1]!.name;
    const created = await call(key, "POST", "/v1/monitors", {
      kind: "post",
      subreddit,
      interval_seconds: 60,
      backfill_from: "7d",
    });
    const { id } = created.json.data.monitor;
    const setCap = (monthly_cap: number | null) =>
      requestJson(
        stack.nats,
        stack.subjects.billing.setSpendCap,
        { id: keyId, monthly_cap },
        setSpendCapReplySchema,
        5_000,
      );
    await waitFor(async () => {
      const page = await call(key, "GET", `/v1/monitors/${id}/items`);
      return page.json.data.items.length > 0;
    }, "a first charged page");
    // The month's spend is 1 credit: a cap of 1 refuses the next delivery.
    await setCap(1);
    expect(await statusOf(key, id)).toMatchObject({
      status: "paused_for_credits",
      paused_reason: "spend_cap_reached",
    });
    const refused = await call(key, "GET", `/v1/monitors/${id}/items`);
    expect(refused.status).toBe(402);
    await setCap(null);
    expect((await statusOf(key, id)).status).toMatch(/^(backfilling|live)$/);
    expect(await stack.balanceOf(keyId)).toBe(49);
  }, 60_000);
});
