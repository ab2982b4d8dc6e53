/**
 * Buying credits in a real browser (Debian's Chromium through playwright-core) against the whole
 * stack, with the payments simulator in Stripe's place: sign in, pick a key and an amount and watch
 * the quote follow, pay on the simulator's hosted page, see the credits arrive on the portal, and
 * spend them through the API. Screenshots go to test-artifacts/payments/.
 */
import { randomBytes } from "node:crypto";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectAccessibleBasics, launchBrowser, screenshotter, signUpWithKey } from "../support/browser.ts";
import { type Stack, startStack } from "../support/stack.ts";

let stack: Stack;
let browser: Browser;
let portalUrl: string;
const screenshot = screenshotter("payments");
/** How long a page may take to settle on a busy CI machine. */
const SETTLE = { timeout: 15_000 };

beforeAll(async () => {
  [stack, browser] = await Promise.all([startStack({ payments: true }), launchBrowser()]);
  portalUrl = stack.portal!.url;
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe("buying credits in a browser", () => {
  it("buys $25 for a key on the simulator's checkout page, sees 19,230 credits arrive and spends one", async () => {
    const email = `buyer-${randomBytes(4).toString("hex")}@example.com`;
    const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    const page = await context.newPage();

    // 1. Sign in and make a key.
    await signUpWithKey(page, stack.portal!, email, "checkout");
    const secret = await page.getByLabel("Your API key").inputValue();

    // 2. The key's page leads to the billing page; the quote follows the amount as it is typed.
    await page.getByRole("link", { name: "See this key's balance and usage" }).click();
    await page.getByRole("link", { name: "Buy credits for this key" }).click();
    await page.getByRole("heading", { name: "Buy credits" }).waitFor();
    await expectAccessibleBasics(page);
    await page.getByLabel("Amount in US dollars").fill("50");
    await expect.poll(() => page.locator("#quote-credits").textContent(), SETTLE).toBe("41,666");
    await page.getByLabel("Amount in US dollars").fill("4");
    await expect
      .poll(() => page.locator("#quote").textContent(), SETTLE)
      .toContain("The smallest top-up is $5.00.");
    await page.getByLabel("Amount in US dollars").fill("25");
    await expect.poll(() => page.locator("#quote-credits").textContent(), SETTLE).toBe("19,230");
    await screenshot(page, "billing-quote");

    // 3. Pay on the simulator's hosted page.
    await page.getByRole("button", { name: "Pay by card" }).click();
    await page.getByRole("button", { name: "Pay $25.00" }).waitFor(SETTLE);
    expect(page.url()).toContain(`${stack.payments!.sim.url}/c/pay/cs_test_`);
    expect(await page.textContent("h1")).toBe("19,230 API credits");
    await screenshot(page, "simulator-checkout");
    await page.getByRole("button", { name: "Pay $25.00" }).click();

    // 4. Back on the portal, the credits arrive.
    await page.getByText("19,230 credits added").waitFor(SETTLE);
    expect(new URL(page.url()).pathname).toBe("/billing/return");
    expect(await page.locator("#new-balance").textContent()).toBe("19,563");
    await expectAccessibleBasics(page);
    await screenshot(page, "payment-credited");
    await page.getByRole("link", { name: "Back to billing" }).click();
    const row = page.locator("#payments tbody tr");
    await expect.poll(() => row.count(), SETTLE).toBe(1);
    expect(await row.textContent()).toContain("$25.00");
    expect(await row.textContent()).toContain("19,230");
    expect(await row.textContent()).toContain("Paid");
    expect(await row.getByRole("link", { name: "Receipt" }).getAttribute("href")).toContain("/receipts/ch_");
    await screenshot(page, "billing-history");

    // 5. Spend them through the API.
    const answer = await fetch(`${stack.gatewayUrl}/v1/posts?subreddit=typescript&limit=1`, {
      headers: { "x-api-key": secret },
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("x-credits-remaining")).toBe("19562");
    await context.close();
  });

  it("credits nothing when the card is declined, and says so on the way back", async () => {
    const email = `declined-${randomBytes(4).toString("hex")}@example.com`;
    const context = await browser.newContext();
    const page = await context.newPage();
    await signUpWithKey(page, stack.portal!, email, "declined");
    await page.goto(`${portalUrl}/billing`);
    await page.getByRole("button", { name: "Pay by card" }).click();
    await page.getByRole("button", { name: "Decline" }).click(SETTLE);
    await page.getByText("Your card was declined.").waitFor(SETTLE);
    await screenshot(page, "simulator-declined");
    await page.getByRole("link", { name: "← Back" }).click();
    await page.getByText("The payment was canceled: nothing was charged.").waitFor(SETTLE);
    expect(await page.locator("#payments-heading + p").textContent()).toBe("No payments yet.");
    expect(await page.locator("td[data-balance]").textContent()).toBe("333 credits");
    await context.close();
  });
});
