/**
 * The API reference at /docs, as a person sees it: a real headless Chromium loads the page from the
 * gateway, every operation of the OpenAPI document shows up, and the page asks nothing of any other
 * server (no CDN, no web fonts, no telemetry), so it renders on a machine without internet.
 * The screenshot lands in test-artifacts/docs/ for a person to look at.
 */
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OPERATIONS } from "@rda/contracts";
import { type BrowserContext, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM, CHROMIUM_ARGS } from "../support/browser.ts";
import { type Stack, startStack } from "../support/stack.ts";

const ARTIFACTS = new URL("../../test-artifacts/docs/", import.meta.url).pathname;

let stack: Stack;
let browser: BrowserContext;
let profile: string;
beforeAll(async () => {
  stack = await startStack();
  profile = await mkdtemp(join(tmpdir(), "rda-chromium-"));
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1400, height: 900 },
    args: CHROMIUM_ARGS,
  });
});
afterAll(async () => {
  await browser?.close();
  if (profile) await rm(profile, { recursive: true, force: true });
  await stack?.stop();
});

describe("GET /docs in a real browser", () => {
  it("renders every operation from /openapi.json without a single request to another server", async () => {
    const gateway = new URL(stack.gatewayUrl).origin;
    const elsewhere: string[] = [];
    await browser.route("**/*", async (route) => {
      const url = route.request().url();
      if (url.startsWith(`${gateway}/`) || url.startsWith("data:")) return route.continue();
      elsewhere.push(url);
      return route.abort();
    });
    const page = await browser.newPage();
    const refusedByPolicy: string[] = [];
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) refusedByPolicy.push(message.text());
    });
    const response = await page.goto(`${stack.gatewayUrl}/docs`);
    expect(response?.headers()["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect(response?.status()).toBe(200);
    expect(new URL(page.url()).pathname).toBe("/docs/");

    const summaries = [
      ...Object.values(OPERATIONS).map((operation) => operation.summary),
      "Remote MCP server (Streamable HTTP, JSON-RPC)",
    ];
    for (const summary of summaries) {
      await page.getByText(summary, { exact: true }).first().waitFor({ state: "attached", timeout: 20_000 });
    }
    await page.getByText("fewer rows than", { exact: false }).first().waitFor({ state: "attached" });
    // Where the key every example needs comes from, first thing on the page.
    const getAKey = page.getByRole("link", { name: "Get a key" }).first();
    await getAKey.waitFor();
    expect(await getAKey.getAttribute("href")).toMatch(/^https?:\/\/[^/]+\/signup$/);
    await mkdir(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, "docs.png") });
    // The first operation opened, with its parameters, example request and example response.
    await page.getByRole("link", { name: OPERATIONS.listPosts.summary }).first().click();
    await page.getByText("1795", { exact: false }).first().waitFor({ state: "attached" });
    await page.screenshot({ path: join(ARTIFACTS, "docs-list-posts.png") });
    expect(elsewhere).toEqual([]);
    // The page's security policy lets the reference do everything it needs.
    expect(refusedByPolicy).toEqual([]);
  }, 60_000);
});
