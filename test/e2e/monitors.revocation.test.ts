/**
 * A key revoked in the developer portal, over the whole stack: its monitor stops, the portal shows
 * it stopped because the key was revoked, and the account's other key sees its place freed.
 */
import { randomBytes } from "node:crypto";
import { waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningMonitors } from "../../services/monitors/src/index.ts";
import { BrowserlessClient } from "../../services/portal/test/support/client.ts";
import { type Stack, startStack } from "../support/stack.ts";
import { call } from "./exports.support.ts";
import { startMonitorsBeside } from "./monitor-webhooks.support.ts";

let stack: Stack;
let monitors: RunningMonitors | undefined;

beforeAll(async () => {
  stack = await startStack({ portal: true, defaultRateLimit: { qps: 10_000, burst: 10_000 } });
  monitors = await startMonitorsBeside(stack);
}, 90_000);

afterAll(async () => {
  await monitors?.stop();
  await stack?.stop();
});

describe("revoking a key in the portal", () => {
  it("stops its monitors, says so on the key's monitors page, and frees their places in the account's limit", async () => {
    const portal = stack.portal!;
    const client = new BrowserlessClient(portal.url);
    await client.signUp(`revoke-${randomBytes(4).toString("hex")}@example.com`, portal.inbox);
    const revoked = await client.createKey("to revoke");
    const kept = await client.createKey("kept");
    const subreddit = stack.simulator.corpus.subreddits[0]!.name;
    const created = await call(stack, revoked.secret, "POST", "/v1/monitors", {
      kind: "post",
      subreddit,
      interval_seconds: 1,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const limitUsed = async () =>
      ((await call(stack, kept.secret, "GET", "/v1/monitors")).body.data as { limit_used: number })
        .limit_used;
    expect(await limitUsed()).toBe(1);

    const answer = await client.submit(`/keys/${revoked.id}`, `/keys/${revoked.id}/revoke`, {});
    expect(answer.status).toBe(303);
    await waitFor(
      async () => (await limitUsed()) === 0,
      "the revoked key's monitor to leave the limit",
      10_000,
    );
    expect((await call(stack, revoked.secret, "GET", "/v1/monitors")).status).toBe(401);
    const page = await client.get(`/keys/${revoked.id}/monitors`);
    expect(page.status).toBe(200);
    // The gateway answers nothing for a revoked key, the portal's pages included: the page says why.
    expect(page.body).toContain('id="key-revoked"');
    expect(page.body).toContain("Stopped: its key was revoked");
  }, 90_000);
});
