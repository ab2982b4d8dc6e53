/**
 * A key's monitors page in the portal, as a person uses it in a real headless Chromium: signed up
 * through the emailed link, they fill the form, see the backfill's estimate before anything is
 * created, confirm, and find the monitor listed with its status and the items it holds; a deleted
 * monitor leaves the list. With a webhook URL (a real local receiver, which the monitors service
 * here may reach as local development allows), the signing secret is shown once, a test event
 * shows in the delivery log with the receiver's status code and verifies with that secret, and a
 * failing monitor's failed batch is redelivered from its page. NATS runs as deployed, with the
 * shipped permissions and each service on its own identity: the pages work while the portal's
 * identity is refused every monitors subject. Screenshots land in test-artifacts/monitors/.
 */
import { randomBytes } from "node:crypto";
import { MONITORS_RPC } from "@rda/contracts";
import { requestJson } from "@rda/service-kit";
import { silentLogger, waitFor } from "@rda/service-kit/testing";
import type { Browser, Page } from "playwright-core";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningMonitors, startMonitors } from "../../services/monitors/src/index.ts";
import { type Receiver, startReceiver } from "../e2e/monitor-webhooks.support.ts";
import { expectAccessibleBasics, launchBrowser, screenshotter, signUpWithKey } from "../support/browser.ts";
import { refusedRequest } from "../support/shipped-servers.ts";
import { type PortalParts, type Stack, startStack } from "../support/stack.ts";

let stack: Stack;
let portal: PortalParts;
let monitors: RunningMonitors;
let browser: Browser;
const shot = screenshotter("monitors");

/**
 * Reloads as a person might while waiting, not in a tight loop: each view of a monitor page asks the
 * gateway with the key, as the key's own API calls do, and so spends its rate limit (a person's key
 * allows 2 a second on average; a monitor's page makes two calls).
 */
async function pacedReload(page: Page): Promise<void> {
  await page.waitForTimeout(1_000);
  await page.reload();
}

beforeAll(async () => {
  stack = await startStack({ portal: true, shippedNats: true });
  portal = stack.portal!;
  monitors = await startMonitors({
    nats: await stack.natsAs("monitors"),
    redis: stack.redis,
    namespace: stack.namespace,
    subjects: stack.subjects,
    logger: silentLogger(),
    settings: {
      tickMs: 100,
      // Short retries, so a receiver that keeps failing makes the monitor `failing` within seconds.
      webhooks: {
        sealingKey: randomBytes(32),
        allowLoopback: true,
        tickMs: 100,
        firstRetryMs: 100,
        maxRetryDelayMs: 300,
        retryWindowMs: 1_500,
        attemptTimeoutMs: 3_000,
        leaseMs: 3_000,
      },
    },
  });
  browser = await launchBrowser();
}, 120_000);
const receivers: Receiver[] = [];

afterAll(async () => {
  for (const receiver of receivers) await receiver.stop();
  await browser?.close();
  await monitors?.stop();
  await stack?.stop();
});

const statusCell = (page: Page) => page.locator("tr[data-monitor-id] td[data-label='Status']");

describe("the monitors page", () => {
  it("creates a monitor after showing its backfill estimate, then lists it with its status and items", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signUpWithKey(page, portal, "monitors@example.com", "watching");
    const keyId = new URL(page.url()).pathname.split("/")[2]!;

    await page.goto(`${portal.url}/keys/${keyId}`);
    await page.getByRole("link", { name: "Monitors" }).click();
    await page.getByRole("heading", { name: /^Monitors of/ }).waitFor();
    await expect(page.locator("#no-monitors")).toBeDefined();
    await expectAccessibleBasics(page);

    const subreddit = stack.simulator.corpus.subreddits[0]!.name;
    await page.getByLabel("Items").selectOption("post");
    await page.getByLabel("Of", { exact: true }).selectOption("subreddit");
    await page.getByLabel("Community or author").fill(`r/${subreddit}`);
    await page.getByLabel("Collect history since (optional)").fill("7d");
    await page.getByRole("button", { name: "See the estimate" }).click();
    await page.getByRole("heading", { name: "Confirm the new monitor" }).waitFor();
    await expectAccessibleBasics(page);
    const pages = Number((await page.locator("#estimate-pages").textContent())?.replace(/\D/g, ""));
    const credits = Number((await page.locator("#estimate-credits").textContent())?.replace(/\D/g, ""));
    expect(pages).toBeGreaterThanOrEqual(1);
    expect(credits).toBeGreaterThanOrEqual(1);
    // Said with one plural rule: "1 upstream page", "2 credits".
    expect(await page.locator("#estimate-pages").textContent()).toBe(
      `${pages.toLocaleString("en-US")} upstream page${pages === 1 ? "" : "s"}`,
    );
    expect(await page.locator("#estimate-credits").textContent()).toBe(
      `${credits.toLocaleString("en-US")} credit${credits === 1 ? "" : "s"}`,
    );
    expect(await page.locator("#estimate-method").textContent()).toMatch(/How it was estimated: .+/);
    // The breadcrumb names the key by its label, as the exports pages do.
    expect(await page.locator(".crumbs").textContent()).toMatch(/^Keys \/ watching \/ Monitors/);
    await shot(page, "estimate");
    const icon = await page.request.get(`${portal.url}/favicon.ico`);
    expect(icon.status()).toBe(200);
    expect(icon.headers()["content-type"]).toMatch(/^image\/svg\+xml/);
    // Nothing exists until the person confirms.
    expect((await stack.redis.keys(`${stack.namespace}:rda:monitors:monitor:*`)).length).toBe(0);

    await page.getByRole("button", { name: "Create the monitor" }).click();
    await page.getByText("The monitor is created.").waitFor();
    const row = page.locator("tr[data-monitor-id]");
    expect(await row.count()).toBe(1);
    expect(await row.locator("th").textContent()).toBe(`Posts of r/${subreddit}`);
    expect(await statusCell(page).textContent()).toMatch(/^Active/);
    expect(await page.locator("#monitor-limits").textContent()).toMatch(/holds 1 of the 25 monitors/);

    await waitFor(
      async () => {
        await pacedReload(page);
        const held = Number(
          (await row.locator("td[data-label='Items held']").textContent())?.replace(/,/g, ""),
        );
        return (await statusCell(page).getAttribute("data-status")) === "live" && held > 0;
      },
      "the backfill to finish and its items to show",
      30_000,
    );
    expect(await statusCell(page).textContent()).toBe("Active");
    await shot(page, "listed");

    page.on("dialog", (dialog) => void dialog.accept());
    await row.getByRole("button", { name: "Delete" }).click();
    await page.getByText("The monitor is deleted").waitFor();
    expect(await page.locator("tr[data-monitor-id]").count()).toBe(0);
    await context.close();
  }, 120_000);

  it("shows a bad field's error above the form, keeping what was typed, and creates nothing", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signUpWithKey(page, portal, "monitors-bad@example.com", "typos");
    const keyId = new URL(page.url()).pathname.split("/")[2]!;
    await page.goto(`${portal.url}/keys/${keyId}/monitors`);
    await page.getByLabel("Community or author").fill("no spaces allowed");
    await page.getByLabel("Check every (seconds)").fill("5");
    await page.getByRole("button", { name: "See the estimate" }).click();
    await page.getByRole("heading", { name: "Check the monitor's fields" }).waitFor();
    const message = await page.getByRole("alert").textContent();
    expect(message).toContain("subreddit");
    expect(message).toContain("interval_seconds");
    expect(await page.getByLabel("Community or author").inputValue()).toBe("no spaces allowed");
    expect(await page.locator("tr[data-monitor-id]").count()).toBe(0);
    await context.close();
  }, 60_000);
  it("creates a monitor with a webhook, shows its secret once, and lists a test event with its status code", async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    const context = await browser.newContext();
    const page = await context.newPage();
    await signUpWithKey(page, portal, "monitors-hooks@example.com", "hooks");
    const keyId = new URL(page.url()).pathname.split("/")[2]!;
    await page.goto(`${portal.url}/keys/${keyId}/monitors`);

    const subreddit = stack.simulator.corpus.subreddits[1]!.name;
    await page.getByLabel("Community or author").fill(subreddit);
    await page.getByLabel("Collect history since (optional)").fill("");
    await page.getByLabel("Webhook URL (optional)").fill(receiver.url);
    await page.getByRole("button", { name: "See the estimate" }).click();
    await page.getByRole("heading", { name: "Confirm the new monitor" }).waitFor();
    expect(await page.locator("#confirm-delivery").textContent()).toContain(receiver.url);
    await page.getByRole("button", { name: "Create the monitor" }).click();

    // The secret, once: on a page of its own whose address does not carry it.
    await page.getByRole("heading", { name: "Your webhook's signing secret" }).waitFor();
    await expectAccessibleBasics(page);
    const secret = await page.getByLabel("Webhook signing secret").inputValue();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
    expect(page.url()).not.toContain(secret);
    expect(await page.locator("#snippet-verify").textContent()).toContain("verifyWebhook(");
    await shot(page, "webhook-secret");
    await page.reload();
    await page.getByText("The webhook's signing secret is shown only once").waitFor();
    expect(await page.content()).not.toContain(secret);
    const monitorPath = new URL(page.url()).pathname;
    expect(monitorPath).toMatch(new RegExp(`^/keys/${keyId}/monitors/mon_[A-Za-z0-9]+$`));

    expect(await page.locator("#monitor-webhook").textContent()).toBe(receiver.url);
    expect(await page.locator("#monitor-status").textContent()).toMatch(/^Active/);
    await page.getByRole("button", { name: "Send test event" }).click();
    await page.getByText("The test event was delivered").waitFor();
    const test = page.locator("#delivery-log tbody[data-delivery-id]", { hasText: "Test event" });
    expect(await test.count()).toBe(1);
    expect(await test.getAttribute("data-state")).toBe("delivered");
    expect(await test.locator("td.status-code").textContent()).toBe("204");
    await expectAccessibleBasics(page);
    await shot(page, "delivery-log");

    // The receiver checks the request with the secret the page showed, as the snippet does.
    const tests = receiver.received.filter((request) => request.body.includes('"monitor.test"'));
    expect(tests).toHaveLength(1);
    const event = new Webhook(secret).verify(tests[0]!.body, tests[0]!.headers as Record<string, string>) as {
      type: string;
      data: { delivery_id: string };
    };
    expect(event.type).toBe("monitor.test");
    expect(await test.getAttribute("data-delivery-id")).toBe(event.data.delivery_id);
    await context.close();
  }, 120_000);

  it("shows a failing monitor, rotates its secret once, and redelivers its failed batch", async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    let failing = true;
    receiver.answer = () => (failing ? 500 : 204);
    const context = await browser.newContext();
    const page = await context.newPage();
    page.on("dialog", (dialog) => void dialog.accept());
    await signUpWithKey(page, portal, "monitors-failing@example.com", "failing");
    const keyId = new URL(page.url()).pathname.split("/")[2]!;
    await page.goto(`${portal.url}/keys/${keyId}/monitors`);
    await page.getByLabel("Community or author").fill(stack.simulator.corpus.subreddits[0]!.name);
    await page.getByLabel("Collect history since (optional)").fill("7d");
    await page.getByLabel("Webhook URL (optional)").fill(receiver.url);
    await page.getByRole("button", { name: "See the estimate" }).click();
    await page.getByRole("button", { name: "Create the monitor" }).click();
    const first = await page.getByLabel("Webhook signing secret").inputValue();
    await page.getByRole("link", { name: "See the monitor and its delivery log" }).click();

    await waitFor(
      async () => {
        await pacedReload(page);
        return (await page.locator("#monitor-status").getAttribute("data-status")) === "failing";
      },
      "the batch to fail for good and the monitor to show failing",
      30_000,
    );
    expect(await page.locator("#monitor-status").textContent()).toBe("Failing");
    const failed = page.locator("#delivery-log tbody[data-state='failed']");
    expect(await failed.count()).toBe(1);
    expect(await failed.locator("td.status-code").first().textContent()).toBe("500");
    await shot(page, "failing");

    await page.getByRole("button", { name: "Rotate secret" }).click();
    await page.getByRole("heading", { name: "Your webhook's new signing secret" }).waitFor();
    const second = await page.getByLabel("Webhook signing secret").inputValue();
    expect(second).toMatch(/^whsec_/);
    expect(second).not.toBe(first);
    await page.getByRole("link", { name: "See the monitor and its delivery log" }).click();

    failing = false;
    const batchId = await failed.getAttribute("data-delivery-id");
    await failed.getByRole("button", { name: "Redeliver" }).click();
    await page.getByText("The batch is queued to be sent again").waitFor();
    await waitFor(
      async () => {
        await pacedReload(page);
        const batch = page.locator(`#delivery-log tbody[data-delivery-id='${batchId}']`);
        return (await batch.getAttribute("data-state")) === "delivered";
      },
      "the redelivered batch to be accepted",
      30_000,
    );
    const accepted = receiver.received.filter((request) => request.headers["webhook-id"] === batchId);
    const last = accepted.at(-1)!;
    // During the overlap both secrets sign the batch sent again, with the same webhook-id.
    for (const secret of [first, second])
      expect(new Webhook(secret).verify(last.body, last.headers as Record<string, string>)).toMatchObject({
        type: "monitor.items",
      });
    expect(await page.locator("#monitor-status").textContent()).not.toBe("Failing");
    await context.close();
  }, 120_000);

  it("works while the portal's own NATS identity is refused every monitors subject", async () => {
    // The pages above ran with the portal on its shipped identity; asked directly, that identity
    // is refused every call of the monitors service, and gets no answer.
    const asker = { key_id: `key_${"0".repeat(16)}` };
    const portalNats = await stack.natsAs("portal");
    const refusals = await Promise.all(
      Object.values(stack.subjects.monitors).map((subject) => refusedRequest(portalNats, subject, asker)),
    );
    expect(refusals.length).toBe(Object.keys(MONITORS_RPC).length);
    for (const { answered, refusal } of refusals) {
      expect(answered).toBe(false);
      expect(refusal).toMatch(/Permissions Violation for Publish/);
    }
    // The gateway's identity is answered there: the refusal is the portal's, not the subject's.
    const gateway = await stack.natsAs("gateway");
    const listed = await requestJson(
      gateway,
      stack.subjects.monitors.list,
      asker,
      MONITORS_RPC.list.reply,
      5_000,
    );
    expect(listed).toMatchObject({ ok: true, value: { ok: true, value: { monitors: [] } } });
  });
});
