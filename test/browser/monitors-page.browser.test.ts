/**
 * A key's monitors page in the portal, as a person uses it in a real headless Chromium: signed up
 * through the emailed link, they fill the form, see the backfill's estimate before anything is
 * created, confirm, and find the monitor listed with its status and the items it holds; a deleted
 * monitor leaves the list. Screenshots land in test-artifacts/monitors/.
 */
import { silentLogger, waitFor } from "@rda/service-kit/testing";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningMonitors, startMonitors } from "../../services/monitors/src/index.ts";
import { expectAccessibleBasics, launchBrowser, screenshotter, signUpWithKey } from "../support/browser.ts";
import { type PortalParts, type Stack, startStack } from "../support/stack.ts";

let stack: Stack;
let portal: PortalParts;
let monitors: RunningMonitors;
let browser: Browser;
const shot = screenshotter("monitors");

beforeAll(async () => {
  stack = await startStack({ portal: true });
  portal = stack.portal!;
  monitors = await startMonitors({
    nats: stack.nats,
    redis: stack.redis,
    namespace: stack.namespace,
    subjects: stack.subjects,
    logger: silentLogger(),
    settings: { tickMs: 100 },
  });
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
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
    const pages = Number((await page.locator("#estimate-pages").textContent())?.replace(/,/g, ""));
    const credits = Number((await page.locator("#estimate-credits").textContent())?.replace(/,/g, ""));
    expect(pages).toBeGreaterThanOrEqual(1);
    expect(credits).toBeGreaterThanOrEqual(pages);
    await shot(page, "estimate");
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
        await page.reload();
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
});
