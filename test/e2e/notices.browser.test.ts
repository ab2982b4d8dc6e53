/**
 * The notice webhook's delivery log in a real browser against the real stack: a developer sets a
 * webhook whose receiver fails the first attempt, sends a test notice, and the notifications page
 * lists it delivered with both attempts' status codes; rotating the secret shows a new one once.
 */
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import { freePort, waitFor } from "@rda/service-kit/testing";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectAccessibleBasics, launchBrowser, screenshotter, signUpWithKey } from "../support/browser.ts";
import { type Stack, startStack } from "../support/stack.ts";

let stack: Stack;
let browser: Browser;
let receiver: Server;
let receiverUrl: string;
const screenshot = screenshotter("notices");
const SETTLE = { timeout: 15_000 };
const seen = new Map<string, number>();

beforeAll(async () => {
  [stack, browser] = await Promise.all([
    startStack({
      portal: true,
      noticeWebhooks: {
        schedule: { retryWindowMs: 60_000, firstRetryMs: 100, maxRetryDelayMs: 500 },
        tickMs: 50,
      },
    }),
    launchBrowser(),
  ]);
  const port = await freePort();
  // Refuses each webhook-id's first attempt, accepts the next.
  receiver = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      const id = String(request.headers["webhook-id"]);
      const count = (seen.get(id) ?? 0) + 1;
      seen.set(id, count);
      response.writeHead(count === 1 ? 503 : 204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(port, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${port}/notices`;
}, 90_000);
afterAll(async () => {
  await browser?.close();
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve));
  await stack?.stop();
});

describe("the notifications page", () => {
  it("shows the notice webhook's delivery log, each attempt with its status code, and rotates the secret", async () => {
    const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    const page = await context.newPage();
    const portal = stack.portal!;
    await signUpWithKey(page, portal, `notice-log-${randomBytes(4).toString("hex")}@example.com`, "hooks");

    await page.goto(`${portal.url}/notifications`);
    await page.getByText("Nothing was sent to a webhook yet.").waitFor(SETTLE);
    await page.getByLabel("Also send notices to (https URL)").fill(receiverUrl);
    await page.getByRole("button", { name: "Save the webhook" }).click();
    const first = await page.getByLabel("Webhook signing secret").inputValue();
    expect(first).toMatch(/^whsec_/);

    await page.getByRole("button", { name: "Send a test notice" }).click();
    await page
      .getByText("A test notice is on its way: emailed, and queued for your webhook.")
      .waitFor(SETTLE);
    const delivered = page.locator('#notice-delivery-log tbody[data-state="delivered"]');
    // The worker sends it in the background: the page shows it once reloaded after that.
    await waitFor(
      async () => {
        await page.reload();
        return (await delivered.count()) === 1 || undefined;
      },
      "the log to list the test notice delivered",
      30_000,
    );
    await expect(delivered.count()).resolves.toBe(1);
    expect(await delivered.locator(".delivery-state").textContent()).toBe("Delivered");
    expect(await delivered.textContent()).toContain("notice.test");
    expect(await delivered.locator(".status-code").allTextContents()).toEqual(["503", "204"]);
    await expectAccessibleBasics(page);
    await screenshot(page, "notice-delivery-log");

    await page.getByRole("button", { name: "Rotate the signing secret" }).click();
    const rotated = await page.getByLabel("Webhook signing secret").inputValue();
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(first);
    await context.close();
  }, 120_000);
});
