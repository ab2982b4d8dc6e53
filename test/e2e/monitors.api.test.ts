/**
 * /v1/monitors through the gateway, over real HTTP, NATS and Redis: managing is free, bodies are
 * validated field by field and bounded, a monitor is invisible to another key, and a pulled page
 * costs 1 credit only when it holds an item.
 */
import { createKeyReplySchema } from "@rda/contracts";
import { requestJson } from "@rda/service-kit";
import { waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningMonitors, startMonitors } from "../../services/monitors/src/index.ts";
import { waitForSettled } from "../support/settled.ts";
import { type Stack, startStack } from "../support/stack.ts";

let stack: Stack;
let monitors: RunningMonitors;

beforeAll(async () => {
  stack = await startStack();
  monitors = await startMonitors({
    nats: stack.nats,
    redis: stack.redis,
    namespace: stack.namespace,
    subjects: stack.subjects,
    logger: (await import("@rda/service-kit/testing")).silentLogger(),
    settings: { limits: { maxMonitorsPerAccount: 3, minIntervalSeconds: 60 }, tickMs: 100 },
  });
}, 60_000);

afterAll(async () => {
  await monitors?.stop();
  await stack?.stop();
});

async function call(secret: string | undefined, method: string, path: string, body?: unknown) {
  const headers: Record<string, string> = {};
  if (secret) headers["x-api-key"] = secret;
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${stack.gatewayUrl}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  // biome-ignore lint/suspicious/noExplicitAny: the test reads each answer's fields as the API documents them
  return { status: response.status, headers: response.headers, json: (await response.json()) as any };
}

/** A key of a portal account (the account need exist only in billing's records of its keys). */
async function accountKey(accountId: string): Promise<{ id: string; key: string }> {
  const request = { account_id: accountId, label: "monitors" };
  const reply = await requestJson(
    stack.nats,
    stack.subjects.billing.createKey,
    request,
    createKeyReplySchema,
    5_000,
  );
  if (!reply.ok || reply.value.outcome !== "created") throw new Error("cannot create an account's key");
  return reply.value;
}

describe("/v1/monitors", () => {
  it("creates, lists, reads, changes and deletes a monitor for free; another key sees none of it", async () => {
    const owner = await stack.createKey({ credits: 10, burst: 50 });
    const other = await stack.createKey({ credits: 10, burst: 50 });
    const subreddit = stack.simulator.corpus.subreddits[0]!.name;
    const created = await call(owner.key, "POST", "/v1/monitors", {
      kind: "post",
      subreddit,
      phrase: "the",
      interval_seconds: 60,
      backfill_from: "7d",
    });
    expect(created.status).toBe(201);
    expect(created.headers.get("x-credits-used")).toBe("0");
    const { monitor, backfill_estimate } = created.json.data;
    expect(monitor).toMatchObject({ kind: "post", subreddit, phrase: "the", status: "backfilling" });
    expect(backfill_estimate.upstream_pages).toBeGreaterThanOrEqual(1);

    const listed = await call(owner.key, "GET", "/v1/monitors");
    expect(listed.json.data.monitors.map((m: { id: string }) => m.id)).toEqual([monitor.id]);
    expect((await call(other.key, "GET", "/v1/monitors")).json.data.monitors).toEqual([]);
    for (const [method, path] of [
      ["GET", `/v1/monitors/${monitor.id}`],
      ["DELETE", `/v1/monitors/${monitor.id}`],
      ["GET", `/v1/monitors/${monitor.id}/items`],
    ] as const)
      expect(await call(other.key, method, path)).toMatchObject({
        status: 404,
        json: { error: "monitor not found" },
      });
    expect((await call(other.key, "PATCH", `/v1/monitors/${monitor.id}`, { paused: true })).status).toBe(404);

    const patched = await call(owner.key, "PATCH", `/v1/monitors/${monitor.id}`, { paused: true });
    expect(patched.json.data.monitor.status).toBe("paused");
    expect((await call(owner.key, "DELETE", `/v1/monitors/${monitor.id}`)).status).toBe(200);
    expect((await call(owner.key, "GET", `/v1/monitors/${monitor.id}`)).status).toBe(404);
    expect(await stack.balanceOf(owner.id)).toBe(10);
    expect((await call(undefined, "GET", "/v1/monitors")).status).toBe(401);
  });

  it("refuses a bad body with one clear error naming every bad field, and an oversized body with 413", async () => {
    const key = await stack.createKey({ credits: 5, burst: 50 });
    const bad = await call(key.key, "POST", "/v1/monitors", {
      kind: "video",
      subreddit: "r/x",
      interval_seconds: 10,
      backfill_from: "someday",
    });
    expect(bad.status).toBe(400);
    for (const field of ["kind", "subreddit", "interval_seconds: must be at least 60", "backfill_from"])
      expect(bad.json.error).toContain(field);
    expect((await call(key.key, "POST", "/v1/monitors", "{not json")).status).toBe(400);
    const huge = await call(key.key, "POST", "/v1/monitors", { kind: "post", phrase: "x".repeat(20_000) });
    expect(huge.status).toBe(413);
    expect(typeof huge.json.error).toBe("string");
    const body = { kind: "comment", author: "someone", interval_seconds: 60 };
    for (let index = 0; index < 3; index += 1)
      expect((await call(key.key, "POST", "/v1/monitors", body)).status).toBe(201);
    const fourth = await call(key.key, "POST", "/v1/monitors", body);
    expect(fourth).toMatchObject({
      status: 409,
      json: { error: "a key may hold at most 3 monitors; delete one first" },
    });
    expect(await stack.balanceOf(key.id)).toBe(5);
  });

  it("counts the limit per account across its keys, refuses the one past it uncharged, and frees a place on delete", async () => {
    const account = `acct_${Date.now().toString(36).padStart(16, "0").slice(-16)}`;
    const [first, second] = [await accountKey(account), await accountKey(account)];
    const balances = [await stack.balanceOf(first.id), await stack.balanceOf(second.id)];
    const body = {
      kind: "post",
      subreddit: stack.simulator.corpus.subreddits[2]!.name,
      interval_seconds: 60,
    };
    const made = [];
    for (const key of [first, first, second]) {
      const answer = await call(key.key, "POST", "/v1/monitors", body);
      expect(answer.status).toBe(201);
      made.push(answer.json.data.monitor.id);
    }
    const past = await call(second.key, "POST", "/v1/monitors", body);
    expect(past).toMatchObject({
      status: 409,
      json: { error: "an account may hold at most 3 monitors across its keys; delete one first" },
    });
    expect(past.headers.get("x-credits-used")).toBeNull();
    const listed = await call(second.key, "GET", "/v1/monitors");
    expect(listed.json.data).toMatchObject({ limit: 3, limit_used: 3 });
    expect(listed.json.data.monitors).toHaveLength(1);
    // A key of another account, and an operator's key, have places of their own.
    const stranger = await accountKey(`acct_${"z".repeat(16)}`);
    expect((await call(stranger.key, "POST", "/v1/monitors", body)).status).toBe(201);

    expect((await call(first.key, "DELETE", `/v1/monitors/${made[0]}`)).status).toBe(200);
    expect((await call(second.key, "POST", "/v1/monitors", body)).status).toBe(201);
    expect([await stack.balanceOf(first.id), await stack.balanceOf(second.id)]).toEqual(balances);
  });

  it("charges 1 credit for a pulled page holding items, nothing for an empty one", async () => {
    const key = await stack.createKey({ credits: 10, qps: 50, burst: 100 });
    const subreddit = stack.simulator.corpus.subreddits[0]!.name;
    const created = await call(key.key, "POST", "/v1/monitors", {
      kind: "post",
      subreddit,
      interval_seconds: 60,
      backfill_from: "3d",
    });
    const { id } = created.json.data.monitor;
    await waitFor(
      async () => {
        const answer = await call(key.key, "GET", `/v1/monitors/${id}`);
        return answer.json.data.monitor.status === "live";
      },
      "the backfill",
      30_000,
    );
    const first = await call(key.key, "GET", `/v1/monitors/${id}/items`);
    expect(first.status).toBe(200);
    expect(first.json.data.items.length).toBeGreaterThan(0);
    expect(first.json.data.items.length).toBeLessThanOrEqual(100);
    expect(first.json._service.credits_used).toBe(1);
    let cursor: string = first.json.data.cursor;
    let pages = 1;
    for (;;) {
      const page = await call(
        key.key,
        "GET",
        `/v1/monitors/${id}/items?cursor=${encodeURIComponent(cursor)}`,
      );
      if (page.json.data.items.length === 0) {
        expect(page.json._service.credits_used).toBe(0);
        expect(page.json.data.cursor).toBe(cursor);
        break;
      }
      pages += 1;
      cursor = page.json.data.cursor;
    }
    await waitFor(async () => (await stack.balanceOf(key.id)) === 10 - pages, "the settled balance", 10_000);
    const badCursor = await call(key.key, "GET", `/v1/monitors/${id}/items?cursor=nonsense`);
    expect(badCursor.status).toBe(400);
    // Every charge made so far is final (none pending, no refund queued): the refused pull cost nothing.
    await waitForSettled(stack);
    expect(await stack.balanceOf(key.id)).toBe(10 - pages);
  }, 60_000);
});
