/**
 * A key's monitors page over HTTP against real billing, the monitors service, Redis, NATS and SMTP:
 * the limit counts across the account's keys and its refusal is a clear page, another account's key
 * is not found, and a monitors service that does not answer is a clear 503 that changed nothing.
 */
import { randomBytes } from "node:crypto";
import type { NatsConnection } from "@rda/service-kit";
import { connectTestNats, silentLogger } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningMonitors, startMonitors } from "../../monitors/src/index.ts";
import { type BrowserlessClient, uniqueClientIp } from "./support/client.ts";
import { type PortalHarness, startPortalHarness } from "./support/harness.ts";

let h: PortalHarness;
let nats: NatsConnection;
let monitors: RunningMonitors | undefined;

const startMonitorsService = async () =>
  startMonitors({
    nats,
    redis: h.redis,
    namespace: h.namespace,
    subjects: h.subjects,
    logger: silentLogger(),
    settings: { limits: { maxMonitorsPerAccount: 2, minIntervalSeconds: 60 } },
  });

beforeAll(async () => {
  h = await startPortalHarness("portal-monitors");
  nats = await connectTestNats();
  monitors = await startMonitorsService();
});
afterAll(async () => {
  await monitors?.stop();
  await nats?.close();
  await h?.close();
});

async function signedInClient(): Promise<BrowserlessClient> {
  const client = h.client({ ip: uniqueClientIp() });
  await client.signUp(`mon-${randomBytes(4).toString("hex")}@example.com`, h.inbox);
  return client;
}

/** Confirms a monitor on `subreddit` (no backfill: the estimate needs no upstream page). */
function confirm(client: BrowserlessClient, keyId: string, subreddit: string) {
  const page = `/keys/${keyId}/monitors`;
  const form = {
    kind: "post",
    watch: "subreddit",
    name: subreddit,
    phrase: "",
    interval_seconds: "300",
    backfill_from: "",
  };
  return client.submit(page, page, form);
}

describe("the monitors page", () => {
  it("counts the limit across the account's keys and refuses one more with a page that says so", async () => {
    const client = await signedInClient();
    const first = await client.createKey("first");
    const second = await client.createKey("second");
    const preview = await client.submit(`/keys/${first.id}/monitors`, `/keys/${first.id}/monitors/preview`, {
      kind: "post",
      watch: "subreddit",
      name: "pics",
      interval_seconds: "300",
      backfill_from: "",
    });
    expect(preview.status).toBe(200);
    expect(preview.body).toContain("No history to collect");
    expect((await confirm(client, first.id, "pics")).status).toBe(303);
    expect((await confirm(client, second.id, "aww")).status).toBe(303);
    const refused = await confirm(client, second.id, "news");
    expect(refused.status).toBe(409);
    expect(refused.body).toContain(
      "an account may hold at most 2 monitors across its keys; delete one first",
    );
    const page = await client.get(`/keys/${second.id}/monitors`);
    expect(page.body).toContain("Your account holds 2 of the 2 monitors");
    expect(page.body.match(/data-monitor-id=/g)).toHaveLength(1);
  });

  it("answers 404 for another account's key, and shows or changes nothing of it", async () => {
    const owner = await signedInClient();
    const key = await owner.createKey("mine");
    expect((await confirm(owner, key.id, "pics")).status).toBe(303);
    const stranger = await signedInClient();
    expect((await stranger.get(`/keys/${key.id}/monitors`)).status).toBe(404);
    const ownPage = `/keys/${(await stranger.createKey("theirs")).id}/monitors`;
    const form = { kind: "post", watch: "subreddit", name: "aww", interval_seconds: "300" };
    expect((await stranger.submit(ownPage, `/keys/${key.id}/monitors`, form)).status).toBe(404);
    const listed = await owner.get(`/keys/${key.id}/monitors`);
    const id = /data-monitor-id="(mon_[A-Za-z0-9]+)"/.exec(listed.body)?.[1];
    expect((await stranger.submit(ownPage, `/keys/${key.id}/monitors/${id}/delete`, {})).status).toBe(404);
    expect((await owner.get(`/keys/${key.id}/monitors`)).body).toContain(`data-monitor-id="${id}"`);
  });

  it("answers a clear 503 when the monitors service does not answer", async () => {
    const client = await signedInClient();
    const key = await client.createKey("offline");
    await monitors?.stop();
    monitors = undefined;
    try {
      const page = await client.get(`/keys/${key.id}/monitors`);
      expect(page.status).toBe(503);
      expect(page.body).toContain("Your monitors are out of reach for a moment");
    } finally {
      monitors = await startMonitorsService();
    }
  });
});
