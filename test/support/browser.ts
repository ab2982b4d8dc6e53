/**
 * A real browser for the end-to-end tests: Debian's Chromium (`/usr/bin/chromium`, which .ci/run
 * installs) driven by playwright-core, headless, with a fresh profile per launch. One browser per
 * test file; each test takes its own context (cookies, clipboard permission).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { expect } from "vitest";
import { linkIn } from "../../services/portal/test/support/client.ts";
import type { PortalParts } from "./stack.ts";

export const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium";

const ROOT = join(import.meta.dirname, "..", "..");

/** Headless, and nothing that reaches out to the network on its own (updates, sync, first-run pages). */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--headless",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
  "--disable-sync",
];

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}

/** Saves a full-page screenshot under test-artifacts/<folder>/ (gitignored) for a person to look at. */
export function screenshotter(folder: string) {
  const directory = join(ROOT, "test-artifacts", folder);
  mkdirSync(directory, { recursive: true });
  let count = 0;
  return async (page: Page, name: string) => {
    count += 1;
    const file = join(directory, `${String(count).padStart(2, "0")}-${name}.png`);
    await page.screenshot({ path: file, fullPage: true });
    return file;
  };
}

/** Runs in the page (as text: the tests have no DOM types): the fields no label names. */
const UNLABELLED_FIELDS = `[...document.querySelectorAll("input:not([type=hidden]), select, textarea")]
  .filter((field) => field.labels.length === 0 && !field.getAttribute("aria-label"))
  .map((field) => field.outerHTML)`;

/** Every visible form field has a label a screen reader announces, and the page has one h1. */
export async function expectAccessibleBasics(page: Page): Promise<void> {
  const unlabelled = await page.evaluate(UNLABELLED_FIELDS);
  expect(unlabelled, `unlabelled fields on ${page.url()}`).toEqual([]);
  expect(await page.locator("h1").count(), `h1 on ${page.url()}`).toBe(1);
  expect(await page.getAttribute("html", "lang")).toBe("en");
}

/** The sign-in link of the newest of the `count` emails the portal sent to `address`. */
export async function emailedLink(portal: Pick<PortalParts, "inbox">, address: string, count = 1) {
  const messages = await portal.inbox.waitForMessages(address, count);
  return linkIn(messages.at(-1)!.text);
}

/**
 * A new account, signed up in the browser as a person does it (the emailed link included), with
 * one key made under `label`; the page is left on the new key's secret.
 */
export async function signUpWithKey(
  page: Page,
  portal: Pick<PortalParts, "url" | "inbox">,
  email: string,
  label: string,
): Promise<void> {
  await page.goto(`${portal.url}/signup`);
  await page.getByLabel("Email address").fill(email);
  await page.getByRole("button", { name: "Email me a link" }).click();
  await page.getByRole("heading", { name: "Check your inbox" }).waitFor();
  await page.goto(await emailedLink(portal, email));
  await page.getByRole("button", { name: "Confirm and create my account" }).click();
  await page.getByLabel("Label").fill(label);
  await page.getByRole("button", { name: "Create key" }).click();
  await page.getByRole("heading", { name: "Your new API key" }).waitFor();
}
