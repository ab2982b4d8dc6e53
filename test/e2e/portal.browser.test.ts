/**
 * A developer's whole first visit, in a real browser against the real stack (gateway, billing,
 * adapters, simulator, portal, an SMTP capture inbox): sign up, open the emailed link, create a key
 * and copy it, call the API and watch the balance and usage move, rotate, revoke, log out. Every page
 * is saved as a screenshot under test-artifacts/portal/.
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { waitFor } from "@rda/service-kit/testing";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  emailedLink,
  expectAccessibleBasics,
  launchBrowser,
  screenshotter,
  signUpWithKey,
} from "../support/browser.ts";
import { type Stack, startStack } from "../support/stack.ts";

let stack: Stack;
let browser: Browser;
let portalUrl: string;
const screenshot = screenshotter("portal");
/** Where the test writes what a developer would save from the page (gitignored). */
const ARTIFACTS = join(import.meta.dirname, "..", "..", "test-artifacts", "portal");

beforeAll(async () => {
  [stack, browser] = await Promise.all([startStack({ portal: true }), launchBrowser()]);
  portalUrl = stack.portal!.url;
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

const postsUrl = () => `${stack.gatewayUrl}/v1/posts?subreddit=typescript&limit=2`;
const callApi = (key: string) => fetch(postsUrl(), { headers: { "x-api-key": key } });

/** How wide the page's content is (a browser-side expression: the tests have no DOM types). */
const CONTENT_WIDTH = "document.documentElement.scrollWidth";
const PHONE = { width: 375, height: 740 };
/** How long a page may take to settle after a click on a busy CI machine (vitest's default is 1 s). */
const SETTLE = { timeout: 15_000 };

async function newContext(): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: portalUrl });
  return context;
}

/** The sign-in link of the newest email to `address`, read through the inbox's JSON API. */
async function accept(page: Page, click: () => Promise<void>) {
  page.once("dialog", (dialog) => void dialog.accept());
  await click();
}

describe("the developer portal in a browser", () => {
  it("takes a new developer from sign-up to a working key, usage on the page, rotation, revocation and log out", async () => {
    const email = `dev-${randomBytes(4).toString("hex")}@example.com`;
    const context = await newContext();
    const page = await context.newPage();

    // 1. Sign up, with the keyboard.
    await page.goto(portalUrl);
    await expectAccessibleBasics(page);
    await screenshot(page, "home");
    await page.getByRole("link", { name: "Create an account" }).first().click();
    await expect.poll(() => page.url(), SETTLE).toBe(`${portalUrl}/signup`);
    await expectAccessibleBasics(page);
    await page.getByLabel("Email address").focus();
    await page.keyboard.type(email);
    await screenshot(page, "signup");
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Check your inbox" }).waitFor();
    expect(await page.textContent("main")).toContain(email);
    await screenshot(page, "check-inbox");

    // 2. The link from the captured email.
    const link = await emailedLink(stack.portal!, email);
    const inboxPage = await context.newPage();
    await inboxPage.goto(stack.portal!.inbox.webUrl);
    await inboxPage.getByText("Confirm your email").first().waitFor();
    await screenshot(inboxPage, "captured-email-inbox");
    await inboxPage.close();
    await page.goto(link);
    await expectAccessibleBasics(page);
    await screenshot(page, "confirm-address");
    await page.getByRole("button", { name: "Confirm and create my account" }).click();
    await page.getByRole("heading", { name: "Your API keys" }).waitFor();
    expect(await page.textContent("main")).toContain("Your address is confirmed");
    await expectAccessibleBasics(page);
    await screenshot(page, "keys-welcome");

    // 3. Create a key and copy it.
    await page.getByLabel("Label").fill("laptop");
    await page.getByRole("button", { name: "Create key" }).click();
    await page.getByRole("heading", { name: "Your new API key" }).waitFor();
    await expectAccessibleBasics(page);
    const secret = await page.getByLabel("Your API key").inputValue();
    expect(secret).toMatch(/^rdk_[A-Za-z0-9_-]{43}$/);
    await page.locator("button[data-copy=secret]").click();
    await page.getByText("Copied to the clipboard.").waitFor();
    expect(await page.evaluate("navigator.clipboard.readText()")).toBe(secret);
    expect(await page.locator("#snippet-curl").textContent()).toContain(secret);
    expect(await page.locator("#snippet-curl").textContent()).toContain(stack.gatewayUrl);
    expect(await page.locator("#snippet-sdk").textContent()).toContain(`apiKey: "${secret}"`);
    await screenshot(page, "new-key");

    // 4. Call the API with it, and see balance and usage move on the page.
    for (let i = 0; i < 2; i++) expect((await callApi(secret)).status).toBe(200);
    await page.getByRole("link", { name: "See this key's balance and usage" }).click();
    await page.locator("#balance").waitFor();
    expect(await page.locator("#balance").textContent()).toBe("331");
    expect(await page.locator("#usage-summary").textContent()).toContain("2 requests charged");
    expect(await page.getByRole("row", { name: /GET \/v1\/posts/ }).textContent()).toContain("2");
    expect((await callApi(secret)).status).toBe(200);
    const urlBefore = page.url();
    await page.getByRole("link", { name: "Refresh" }).click();
    await expect.poll(() => page.locator("#balance").textContent(), SETTLE).toBe("330");
    expect(page.url()).toBe(urlBefore);
    expect(await page.locator("#usage-summary").textContent()).toContain("3 requests charged");
    await expectAccessibleBasics(page);
    await screenshot(page, "key-usage");
    const keyId = /key_[0-9a-z]{16}/.exec(page.url())![0];
    const json = await fetch(`${portalUrl}/keys/${keyId}/usage.json`, { headers: { "x-api-key": secret } });
    expect(json.status).toBe(200);
    const report = (await json.json()) as { key: { credits_balance: number }; totals: { charged: object } };
    expect(report.key.credits_balance).toBe(330);
    expect(report.totals.charged).toEqual({ listPosts: 3 });

    // 5. Rotate: the old secret is refused, the new one works, the balance is kept.
    await accept(page, () => page.getByRole("button", { name: "Rotate secret" }).click());
    await page.getByRole("heading", { name: "Your key's new secret" }).waitFor();
    const rotated = await page.getByLabel("Your API key").inputValue();
    expect(rotated).not.toBe(secret);
    await screenshot(page, "rotated");
    expect((await callApi(secret)).status).toBe(401);
    const afterRotation = await callApi(rotated);
    expect(afterRotation.status).toBe(200);
    expect(afterRotation.headers.get("x-credits-remaining")).toBe("329");

    // 6. Revoke: refused within a second, and the page says so.
    await page.goto(`${portalUrl}/keys/${keyId}`);
    await accept(page, () => page.getByRole("button", { name: "Revoke key" }).click());
    await page.getByText("The key is revoked.").waitFor();
    expect(await page.locator("h1 .status").textContent()).toBe("Revoked");
    await screenshot(page, "revoked");
    await waitFor(
      async () => (await callApi(rotated)).status === 401,
      "the revoked key to be refused",
      1_000,
    );
    await page.getByRole("link", { name: "Billing" }).click();
    await page.getByRole("heading", { name: "Billing" }).waitFor();
    await expectAccessibleBasics(page);
    await screenshot(page, "billing");

    // 7. Log out.
    await page.getByRole("button", { name: "Log out" }).first().click();
    await page.getByText("You are logged out on this device.").waitFor();
    await screenshot(page, "logged-out");
    await page.goto(`${portalUrl}/keys`);
    await expect.poll(() => new URL(page.url()).pathname, SETTLE).toBe("/login");
    await context.close();
    // A whole first visit, seven pages and a dozen clicks: on a busy CI machine it takes over 30 s.
  }, 120_000);

  it("shows a first request that runs as shown: the curl command and the SDK program each get a page of posts", async () => {
    const email = `first-${randomBytes(4).toString("hex")}@example.com`;
    const context = await browser.newContext();
    const page = await context.newPage();
    await signUpWithKey(page, stack.portal!, email, "first request");
    const curl = (await page.locator("#snippet-curl").textContent())!;
    const program = (await page.locator("#snippet-sdk").textContent())!;
    await context.close();

    // Run asynchronously: the stack serving them lives in this very process.
    const run = promisify(execFile);
    const { stdout: curlOutput } = await run("sh", ["-c", curl], { encoding: "utf8" });
    expect(JSON.parse(curlOutput)).toMatchObject({ data: expect.any(Array), _service: { credits_used: 1 } });
    // Saved where the workspace's @rda/sdk resolves, and run as a developer would run it.
    mkdirSync(ARTIFACTS, { recursive: true });
    const file = join(ARTIFACTS, "first-request.mts");
    writeFileSync(file, program);
    const { stdout: sdkOutput } = await run(process.execPath, ["--import", "tsx", file], {
      encoding: "utf8",
    });
    expect(sdkOutput).toMatch(/^\[\s*'/);
    const account = await fetch(`${stack.gatewayUrl}/v1/account`, {
      headers: { "x-api-key": /rdk_[A-Za-z0-9_-]{43}/.exec(program)![0] },
    });
    expect(((await account.json()) as { data: { credits_balance: number } }).data.credits_balance).toBe(331);
  });

  it("reads on a phone: the keys page and a key's page fit the screen without sideways scrolling", async () => {
    const email = `phone-${randomBytes(4).toString("hex")}@example.com`;
    const context = await browser.newContext({ viewport: PHONE, isMobile: true });
    const page = await context.newPage();
    await signUpWithKey(page, stack.portal!, email, "phone");
    await screenshot(page, "phone-new-key");
    await page.getByRole("link", { name: "See this key's balance and usage" }).click();
    await page.locator("#balance").waitFor();
    await screenshot(page, "phone-key");
    expect(await page.evaluate(CONTENT_WIDTH)).toBeLessThanOrEqual(PHONE.width);
    await page.goto(`${portalUrl}/keys`);
    await screenshot(page, "phone-keys");
    expect(await page.evaluate(CONTENT_WIDTH)).toBeLessThanOrEqual(PHONE.width);
    await context.close();
  });
});
