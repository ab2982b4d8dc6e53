/**
 * A key's monitors page over HTTP, through the whole chain it needs (the portal asks the gateway's
 * internal listener, which asks the monitors service with the key; billing owns the keys):
 * the limit counts across the account's keys and its refusal is a clear page, another account's key
 * is not found, and a monitors service that does not answer is a clear 503 that changed nothing.
 * With webhooks: a bad webhook URL is a clear message that creates nothing, the signing secret is
 * shown once after a redirect, and another account's monitor (its page, test event, redelivery,
 * rotation, secret page) is not found and sends nothing to its receiver.
 */
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import { silentLogger } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningMonitors, startMonitors } from "../../services/monitors/src/index.ts";
import { BrowserlessClient, uniqueClientIp } from "../../services/portal/test/support/client.ts";
import { type PortalParts, type Stack, startStack } from "../support/stack.ts";

let stack: Stack;
let portal: PortalParts;
let monitors: RunningMonitors | undefined;
const SEALING_KEY = randomBytes(32);
/** A local receiver that counts the requests it gets and accepts them. */
let receiverUrl: string;
const received: string[] = [];
const receiver = createServer((request, response) => {
  received.push(String(request.headers["webhook-id"]));
  request.resume().on("end", () => response.writeHead(204).end());
});

const startMonitorsService = async () =>
  startMonitors({
    nats: stack.nats,
    redis: stack.redis,
    namespace: stack.namespace,
    subjects: stack.subjects,
    logger: silentLogger(),
    settings: {
      limits: { maxMonitorsPerAccount: 2, minIntervalSeconds: 60 },
      webhooks: { sealingKey: SEALING_KEY, allowLoopback: true },
    },
  });

beforeAll(async () => {
  // Each client names its own address (X-Forwarded-For), so the per-client mail limit is no matter;
  // and the keys allow a person's page views of a whole test at once.
  stack = await startStack({
    portal: true,
    portalSettings: { trustProxy: true },
    defaultRateLimit: { qps: 100, burst: 100 },
  });
  portal = stack.portal!;
  monitors = await startMonitorsService();
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hooks`;
}, 90_000);
afterAll(async () => {
  await new Promise((resolve) => receiver.close(resolve));
  await monitors?.stop();
  await stack?.stop();
});

async function signedInClient(): Promise<BrowserlessClient> {
  const client = new BrowserlessClient(portal.url, uniqueClientIp());
  await client.signUp(`mon-${randomBytes(4).toString("hex")}@example.com`, portal.inbox);
  return client;
}

/** Confirms a monitor on `subreddit` (no backfill: the estimate needs no upstream page). */
function confirm(client: BrowserlessClient, keyId: string, subreddit: string, webhookUrl = "") {
  const page = `/keys/${keyId}/monitors`;
  const form = {
    kind: "post",
    watch: "subreddit",
    name: subreddit,
    phrase: "",
    interval_seconds: "300",
    backfill_from: "",
    webhook_url: webhookUrl,
  };
  return client.submit(page, page, form);
}

/** The monitor ids a key's monitors page lists. */
async function listedIds(client: BrowserlessClient, keyId: string): Promise<string[]> {
  const page = await client.get(`/keys/${keyId}/monitors`);
  return [...page.body.matchAll(/data-monitor-id="(mon_[A-Za-z0-9]+)"/g)].map((match) => match[1]!);
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

  it("makes one monitor of a confirm form sent twice (its token is the Idempotency-Key)", async () => {
    const client = await signedInClient();
    const key = await client.createKey("twice");
    const page = `/keys/${key.id}/monitors`;
    const preview = await client.submit(page, `${page}/preview`, {
      kind: "post",
      watch: "subreddit",
      name: "pics",
      interval_seconds: "300",
      backfill_from: "",
    });
    const token = /name="idempotency_key" value="([^"]+)"/.exec(preview.body)?.[1];
    expect(token).toMatch(/^[0-9a-f-]{36}$/);
    const form = {
      kind: "post",
      watch: "subreddit",
      name: "pics",
      phrase: "",
      interval_seconds: "300",
      backfill_from: "",
      webhook_url: "",
      idempotency_key: token!,
    };
    const first = await client.submit(page, page, form);
    const second = await client.submit(page, page, form);
    expect([first.status, second.status]).toEqual([303, 303]);
    expect(await listedIds(client, key.id)).toHaveLength(1);
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
  it("refuses a bad webhook URL with a message that names it, keeping the form, and creates nothing", async () => {
    const client = await signedInClient();
    const key = await client.createKey("bad-hooks");
    const page = `/keys/${key.id}/monitors`;
    const cases = [
      ["not a url", "webhook_url: must be a URL"],
      ["http://example.com/hooks", "webhook_url: must be an https URL"],
      ["https://10.0.0.1/hooks", "webhook_url: must not be a non-public address"],
    ] as const;
    for (const [url, message] of cases) {
      const form = {
        kind: "post",
        watch: "subreddit",
        name: "pics",
        interval_seconds: "300",
        webhook_url: url,
      };
      for (const action of [`${page}/preview`, page]) {
        const answer = await client.submit(page, action, form);
        expect(answer.status).toBe(400);
        expect(answer.body).toContain("Check the monitor&#39;s fields");
        expect(answer.body).toContain(message);
        expect(answer.body).toContain(`value="${url}"`);
      }
    }
    expect(await listedIds(client, key.id)).toEqual([]);
  });

  it("shows a new webhook's secret once, after a redirect, and never in an address", async () => {
    const client = await signedInClient();
    const key = await client.createKey("hooks");
    const created = await confirm(client, key.id, "pics", receiverUrl);
    expect(created.status).toBe(303);
    const [id] = await listedIds(client, key.id);
    expect(created.location).toBe(`/keys/${key.id}/monitors/${id}/secret`);
    const shown = await client.follow(created);
    expect(shown.status).toBe(200);
    const secret = /id="webhook-secret"[^>]*value="(whsec_[^"]+)"/.exec(shown.body)?.[1];
    expect(secret).toBeDefined();
    expect(shown.body).toContain("verifyWebhook(");
    const again = await client.follow(created);
    expect(again.status).toBe(303);
    expect(again.location).toBe(`/keys/${key.id}/monitors/${id}?done=webhook-secret-shown`);
    const page = await client.follow(again);
    expect(page.body).toContain("shown only once, and it was shown already");
    expect(page.body).not.toContain(secret);
    expect(page.body).toContain(receiverUrl);
  });

  it("answers 404 for another account's monitor on every page and button, and sends nothing", async () => {
    const owner = await signedInClient();
    const key = await owner.createKey("owned-hooks");
    expect((await confirm(owner, key.id, "aww", receiverUrl)).status).toBe(303);
    const [id] = await listedIds(owner, key.id);
    const monitorPage = `/keys/${key.id}/monitors/${id}`;
    expect((await owner.get(monitorPage)).status).toBe(200);
    const stranger = await signedInClient();
    const strangersKey = await stranger.createKey("strangers");
    const ownPage = `/keys/${strangersKey.id}/monitors`;
    const sentBefore = received.length;
    // Through the owner's key (billing says it is not the stranger's), and through the stranger's
    // own key (the monitor is not that key's).
    for (const base of [monitorPage, `${ownPage}/${id}`]) {
      expect((await stranger.get(base)).status).toBe(404);
      expect((await stranger.get(`${base}/secret`)).status).toBe(404);
      for (const action of ["test", "rotate-secret", `deliveries/msg_${id}_t1/redeliver`]) {
        const answer = await stranger.submit(ownPage, `${base}/${action}`, {});
        expect(answer.status).toBe(404);
        expect(answer.body).toContain("no such key in your account");
      }
    }
    expect(received.length).toBe(sentBefore);
    // The owner's own test event reaches the receiver and shows in the log with its status code.
    const test = await owner.submit(monitorPage, `${monitorPage}/test`, {});
    expect(test.status).toBe(303);
    expect(test.location).toBe(`${monitorPage}?done=webhook-test-delivered#delivery-log`);
    expect(received.length).toBe(sentBefore + 1);
    const log = await owner.follow(test);
    expect(log.body).toContain("The test event was delivered");
    expect(log.body).toMatch(/class="num status-code">204</);
  });

  it("refuses a test event or a rotation for a monitor without a webhook, on its page", async () => {
    const client = await signedInClient();
    const key = await client.createKey("pull-only");
    expect((await confirm(client, key.id, "news")).status).toBe(303);
    const [id] = await listedIds(client, key.id);
    const monitorPage = `/keys/${key.id}/monitors/${id}`;
    const page = await client.get(monitorPage);
    expect(page.body).toContain("This monitor has no webhook");
    expect(page.body).not.toContain("Send test event");
    const test = await client.submit(monitorPage, `${monitorPage}/test`, {});
    expect(test.status).toBe(409);
    expect(test.body).toContain("the monitor has no webhook_url");
    expect((await client.submit(monitorPage, `${monitorPage}/rotate-secret`, {})).status).toBe(409);
    expect((await client.get(`${monitorPage}/unknown`)).status).toBe(404);
  });
});
