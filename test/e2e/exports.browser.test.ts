/**
 * Exports in the developer portal, in a real browser against the real stack with the exports
 * service beside it: a developer asks for a quote, sees it before starting, starts the export,
 * watches the progress bar reach 100 % without the page reloading, and downloads the file, whose
 * rows are the ones paging the public API returns for the same window. NATS runs as deployed, with
 * the shipped permissions and each service on its own identity: the pages work while the portal's
 * identity is refused every exports subject.
 */
import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { EXPORTS_RPC } from "@rda/contracts";
import { requestJson } from "@rda/service-kit";
import { waitFor } from "@rda/service-kit/testing";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectAccessibleBasics, launchBrowser, screenshotter, signUpWithKey } from "../support/browser.ts";
import { refusedRequest } from "../support/shipped-servers.ts";
import { type Stack, startStack } from "../support/stack.ts";
import { type ExportsBeside, pageThroughApi, startExportsBeside } from "./exports.support.ts";

let stack: Stack;
let browser: Browser;
let service: ExportsBeside;
const screenshot = screenshotter("exports");
const DAY = 86_400;

beforeAll(async () => {
  [stack, browser] = await Promise.all([startStack({ portal: true, shippedNats: true }), launchBrowser()]);
  // Slow enough that the bar is seen part-way, fast enough to finish in seconds.
  service = await startExportsBeside(stack, {
    pagesPerSecond: 2,
    ackWaitMs: 2_000,
    pageRetryMs: 200,
    balanceRetryMs: 500,
  });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await service?.stop();
  await stack?.stop();
});

const isoDay = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 10);

describe("a key's exports in the portal", () => {
  it("quotes, starts, shows the bar reaching 100 % without a reload, and downloads the rows the API pages", async () => {
    const context = await browser.newContext({
      viewport: { width: 1100, height: 900 },
      acceptDownloads: true,
    });
    const page = await context.newPage();
    const portal = stack.portal!;
    await signUpWithKey(page, portal, `exports-${randomBytes(4).toString("hex")}@example.com`, "research");
    const secret = await page.getByLabel("Your API key").inputValue();
    const keyId = /key_[0-9a-z]{16}/.exec(await page.content())![0];

    await page.goto(`${portal.url}/keys/${keyId}`);
    await page.getByRole("link", { name: "Exports" }).click();
    await page.getByRole("heading", { name: "Exports", level: 1 }).waitFor();
    await expectAccessibleBasics(page);
    // A form without dates, then one with both a community and an author: each says what to change.
    await page.getByRole("button", { name: "Get a quote" }).click();
    await page.getByText("Give the first and the last day of the window as dates.").waitFor();
    await page.getByLabel("Community").fill("dataisbeautiful");
    await page.getByLabel("Or an author").fill("someone");
    await page.getByLabel("First day (UTC)").fill("2026-01-01");
    await page.getByLabel("Last day (UTC)").fill("2026-01-02");
    await page.getByRole("button", { name: "Get a quote" }).click();
    await page.getByText("Give exactly one source: subreddit or author.").waitFor();
    expect(await page.getByLabel("Community").inputValue()).toBe("dataisbeautiful");
    await page.getByLabel("Or an author").fill("");
    // Twenty whole days (UTC) of the simulator's busiest community, ending ten days ago.
    const today = Math.floor(Date.now() / 1000 / DAY) * DAY;
    const firstDay = today - 30 * DAY;
    const lastDay = today - 11 * DAY;
    await page.getByLabel("Community").fill("dataisbeautiful");
    await page.getByLabel("First day (UTC)").fill(isoDay(firstDay));
    await page.getByLabel("Last day (UTC)").fill(isoDay(lastDay));
    // The form as the browser sends it, its one-time token (the Idempotency-Key) included.
    const sent = (await page
      .locator(`form[action="/keys/${keyId}/exports"]`)
      .evaluate((form) => [
        ...new (
          globalThis as unknown as { FormData: new (form: unknown) => Iterable<[string, string]> }
        ).FormData(form),
      ])) as [string, string][];
    expect(sent.find(([name]) => name === "idempotency_key")?.[1]).toMatch(/^[0-9a-f-]{36}$/);
    await page.getByRole("button", { name: "Get a quote" }).click();

    // The quote comes first: nothing is fetched or charged until the developer starts it.
    await page.getByRole("button", { name: "Start the export" }).waitFor();
    // The same form sent again (a double submit) is the first one's answer: the same export.
    const again = await page.request.post(`${portal.url}/keys/${keyId}/exports`, {
      form: Object.fromEntries(sent),
      maxRedirects: 0,
    });
    expect(again.status()).toBe(303);
    expect(again.headers().location).toBe(new URL(page.url()).pathname);
    await expectAccessibleBasics(page);
    expect(await page.locator("#quote-estimate").textContent()).toMatch(/rows in \d+ pages/);
    const ceiling = Number((await page.locator("#quote-ceiling").textContent())!.replace(/\D/g, ""));
    expect(ceiling).toBeGreaterThan(0);
    expect(await page.locator("#export-bar").count()).toBe(0);
    await screenshot(page, "quote");
    await page.getByRole("button", { name: "Start the export" }).click();
    await page.locator("#export-bar").waitFor();
    const startedAt = Number(await page.locator("#export-bar").getAttribute("value"));
    expect(startedAt).toBeLessThan(100);

    // From here on the page is never reloaded: a mark set in it now is still there at 100 %.
    await page.evaluate("window.notReloaded = true");
    const seen: number[] = [startedAt];
    await waitFor(
      async () => {
        const value = Number(await page.locator("#export-bar").getAttribute("value"));
        if (value !== seen.at(-1)) seen.push(value);
        return value === 100;
      },
      "the progress bar to reach 100 %",
      60_000,
    );
    expect(await page.evaluate("window.notReloaded === true")).toBe(true);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    await page.locator("#export-state", { hasText: "done" }).waitFor();
    await screenshot(page, "done");

    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "Download the file" }).click(),
    ]);
    const bytes = await readFile((await download.path())!);
    const rows = bytes
      .toString("utf8")
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as { id: string });
    const api = await pageThroughApi(
      stack,
      secret,
      "posts",
      "subreddit=dataisbeautiful",
      firstDay - 1,
      lastDay + DAY,
    );
    expect(rows.length).toBeGreaterThan(100);
    expect(rows.map((row) => row.id)).toEqual(api.rows.map((row) => row.id));

    // The list shows the finished export with its credits.
    const exportPath = new URL(page.url()).pathname;
    await page.getByRole("link", { name: "Exports" }).click();
    const listed = page.locator("tr[data-export-id]");
    expect(await listed.count()).toBe(1);
    expect(await listed.first().textContent()).toMatch(/done[\s\S]*100 %/);
    await screenshot(page, "list");

    // Another account sees none of it: the key's exports, the export, its progress and its file are 404.
    const stranger = await browser.newContext();
    const strangerPage = await stranger.newPage();
    await signUpWithKey(strangerPage, portal, `other-${randomBytes(4).toString("hex")}@example.com`, "other");
    for (const path of [
      `/keys/${keyId}/exports`,
      exportPath,
      `${exportPath}/progress`,
      `${exportPath}/file`,
    ]) {
      const answer = await strangerPage.request.get(`${portal.url}${path}`);
      expect(answer.status(), path).toBe(404);
      expect(await answer.text()).not.toContain("dataisbeautiful");
    }
    await stranger.close();
    await context.close();
  }, 120_000);

  it("works while the portal's own NATS identity is refused every exports subject", async () => {
    // The pages above ran with the portal on its shipped identity; asked directly, that identity
    // is refused every call of the exports service, and gets no answer.
    const asker = { key_id: `key_${"0".repeat(16)}` };
    const portalNats = await stack.natsAs("portal");
    const refusals = await Promise.all(
      Object.values(stack.subjects.exports.commands).map((subject) =>
        refusedRequest(portalNats, subject, asker),
      ),
    );
    expect(refusals.length).toBe(Object.keys(EXPORTS_RPC).length);
    for (const { answered, refusal } of refusals) {
      expect(answered).toBe(false);
      expect(refusal).toMatch(/Permissions Violation for Publish/);
    }
    // The gateway's identity is answered there: the refusal is the portal's, not the subject's.
    const gateway = await stack.natsAs("gateway");
    const subject = stack.subjects.exports.commands.list;
    const listed = await requestJson(gateway, subject, asker, EXPORTS_RPC.list.reply, 5_000);
    expect(listed).toMatchObject({ ok: true, value: { jobs: [] } });
  });
});
