/**
 * Spend controls in a real browser against the real stack: a developer sets a key's monthly spend
 * cap on its page and a low-balance threshold on the notifications page, and the API's account
 * endpoint shows both; the cap then refuses past it.
 */
import { randomBytes } from "node:crypto";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, screenshotter, signUpWithKey } from "../support/browser.ts";
import { getJson, withKey } from "../support/http.ts";
import { type Stack, startStack } from "../support/stack.ts";

let stack: Stack;
let browser: Browser;
const screenshot = screenshotter("spend-controls");
const SETTLE = { timeout: 15_000 };

beforeAll(async () => {
  [stack, browser] = await Promise.all([startStack({ portal: true }), launchBrowser()]);
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe("spend controls in the portal", () => {
  it("sets a key's cap and the account's threshold, and /v1/account shows both", async () => {
    const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    const page = await context.newPage();
    const portal = stack.portal!;
    await signUpWithKey(page, portal, `caps-${randomBytes(4).toString("hex")}@example.com`, "agent");
    const secret = await page.getByLabel("Your API key").inputValue();
    const keyId = /key_[0-9a-z]{16}/.exec(await page.content())![0];

    await page.goto(`${portal.url}/keys/${keyId}`);
    await page.getByLabel("Credits per month").fill("2");
    await page.getByRole("button", { name: "Save the cap" }).click();
    await page.getByText("The monthly spend cap is saved.").waitFor(SETTLE);
    expect(await page.locator("#month-spend").textContent()).toMatch(
      /0\s+credits spent of a\s+2-credit monthly cap/,
    );
    await screenshot(page, "key-with-cap");

    await page.getByRole("link", { name: "Notifications" }).click();
    await page.getByLabel("Tell me when a key's balance falls below (credits)").fill("150");
    await page.getByRole("button", { name: "Save the threshold" }).click();
    await page.getByText("The low-balance threshold is saved for all your keys.").waitFor(SETTLE);
    expect(await page.getByLabel("Tell me when a key's balance falls below (credits)").inputValue()).toBe(
      "150",
    );
    await screenshot(page, "notifications");

    const account = await getJson(`${stack.gatewayUrl}/v1/account`, withKey(secret));
    expect(account.body.data).toMatchObject({
      credits_balance: 333,
      low_balance_threshold: 150,
      spend: { credits_spent: 0, monthly_cap: 2 },
    });
    const statuses = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await getJson(`${stack.gatewayUrl}/v1/subreddits/search?q=a`, withKey(secret))).status);
    expect(statuses).toEqual([200, 200, 402]);
    await page.goto(`${portal.url}/keys/${keyId}`);
    expect(await page.locator("#month-spend").textContent()).toMatch(
      /2\s+credits spent of a\s+2-credit monthly cap/,
    );
    await context.close();
  });
});
