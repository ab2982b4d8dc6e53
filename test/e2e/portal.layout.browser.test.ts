/**
 * The portal as it reads on a phone (390 px) and on a laptop (1280 px), in real Chromium against the
 * real stack with card payments: every signed-in page with something in it (a key with usage by
 * endpoint, the price table and the balances on Billing, an app in Connected apps) fits the screen:
 * neither the page nor any of its tables needs sideways scrolling. Each page is saved under
 * test-artifacts/portal-layout/ for a person to look at. And a key's usage moves on its own while the
 * page is open, with no click.
 */
import { createHash, randomBytes } from "node:crypto";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConnectionStore } from "../../services/portal/src/oauth/connections.ts";
import { launchBrowser, screenshotter, signUpWithKey } from "../support/browser.ts";
import { type Stack, startStack } from "../support/stack.ts";

let stack: Stack;
let browser: Browser;
const screenshot = screenshotter("portal-layout");

beforeAll(async () => {
  [stack, browser] = await Promise.all([startStack({ payments: true }), launchBrowser()]);
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

const WIDTHS = [
  { name: "phone", viewport: { width: 390, height: 844 }, isMobile: true },
  { name: "laptop", viewport: { width: 1280, height: 800 }, isMobile: false },
] as const;

/** Runs in the page (as text: the tests have no DOM types): what sticks out sideways, if anything. */
const OVERFLOW = `(() => {
  const page = document.scrollingElement;
  const tables = [...document.querySelectorAll(".table-wrap")]
    .filter((wrap) => wrap.scrollWidth > wrap.clientWidth + 1)
    .map((wrap) => (wrap.getAttribute("aria-labelledby") ?? "table") + ": " + wrap.scrollWidth + " > " + wrap.clientWidth);
  return { page: page.scrollWidth, innerWidth: window.innerWidth, tables };
})()`;

async function expectNoSidewaysScrolling(page: Page, what: string) {
  const found = (await page.evaluate(OVERFLOW)) as { page: number; innerWidth: number; tables: string[] };
  expect(found.page, `${what}: the page is wider than the screen`).toBeLessThanOrEqual(found.innerWidth);
  expect(found.tables, `${what}: tables that scroll sideways`).toEqual([]);
}

/** An app connected to the account through OAuth, as the consent page records it. */
async function connectAnApp(email: string, keyId: string) {
  const accountId = await stack.redis.get(
    stack.keys.portal.accountByEmail(createHash("sha256").update(email).digest("hex")),
  );
  await createConnectionStore(stack.redis, stack.keys.portal).save(
    {
      grantId: `grant-${randomBytes(6).toString("hex")}`,
      accountId: accountId!,
      clientId: "client-layout",
      clientName: "Claude Desktop research assistant with a long name",
      redirectHost: "claude.ai.callback.example.com",
      keyId,
      createdAt: new Date().toISOString(),
      kind: "authorization",
    },
    600,
  );
}

describe("the portal at 390 px and at 1280 px", () => {
  for (const { name, viewport, isMobile } of WIDTHS) {
    it(`reads on a ${name} (${viewport.width} px): keys, a key's usage, billing and connected apps fit`, async () => {
      const email = `${name}-${randomBytes(4).toString("hex")}@example.com`;
      const context = await browser.newContext({ viewport, isMobile });
      const page = await context.newPage();
      await signUpWithKey(page, stack.portal!, email, `${name} key with a fairly long label`);
      const secret = await page.getByLabel("Your API key").inputValue();
      await screenshot(page, `${name}-new-key`);
      await expectNoSidewaysScrolling(page, "the new key's page");
      const paths = [
        "/v1/posts?subreddit=typescript&limit=2",
        "/v1/subreddits/search?q=type",
        "/v1/users/someone",
      ];
      for (const path of paths)
        await fetch(`${stack.gatewayUrl}${path}`, { headers: { "x-api-key": secret } });
      await page.getByRole("link", { name: "See this key's balance and usage" }).click();
      await page.getByRole("heading", { name: "By endpoint" }).waitFor();
      const keyId = /key_[0-9a-z]{16}/.exec(page.url())![0];
      await connectAnApp(email, keyId);
      for (const [path, heading] of [
        [`/keys/${keyId}`, "By endpoint"],
        ["/keys", "Your API keys"],
        ["/billing", "Billing"],
        ["/connections", "Connected apps"],
        ["/agents", "Agent clients"],
        ["/account", "Account"],
      ] as const) {
        await page.goto(`${stack.portal!.url}${path}`);
        await page.getByRole("heading", { name: heading }).first().waitFor();
        await screenshot(page, `${name}${path.replace(/\//g, "-").replace(/key_[0-9a-z]+/, "key")}`);
        await expectNoSidewaysScrolling(page, path);
      }
      // The connection's whole row is there to read, its Disconnect button included.
      await page.goto(`${stack.portal!.url}/connections`);
      const disconnect = page.getByRole("button", { name: /^Disconnect / });
      expect(await disconnect.isVisible()).toBe(true);
      const box = (await disconnect.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(viewport.width);
      await context.close();
    });
  }

  it("moves a key's usage on its own while its page is open, with no click", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await signUpWithKey(page, stack.portal!, `live-${randomBytes(4).toString("hex")}@example.com`, "live");
    const secret = await page.getByLabel("Your API key").inputValue();
    await page.getByRole("link", { name: "See this key's balance and usage" }).click();
    await page.locator("#balance").waitFor();
    expect(await page.locator("#balance").textContent()).toBe("333");
    const urlBefore = page.url();
    for (let i = 0; i < 2; i++) {
      const answer = await fetch(`${stack.gatewayUrl}/v1/posts?subreddit=typescript&limit=2`, {
        headers: { "x-api-key": secret },
      });
      expect(answer.status).toBe(200);
    }
    // The panel refreshes itself every few seconds; a generous bound for a busy machine.
    await expect.poll(() => page.locator("#balance").textContent(), { timeout: 30_000 }).toBe("331");
    await expect
      .poll(() => page.locator("#usage-summary").textContent(), { timeout: 10_000 })
      .toContain("2 requests charged");
    expect(page.url()).toBe(urlBefore);
    await context.close();
  }, 60_000);
});
