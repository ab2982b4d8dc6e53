/**
 * An export that ends early keeps what it paid for (docs/api.md#exports): stopped at its ceiling,
 * cancelled, or paused, its file holds exactly the rows of the pages charged, the manifest says
 * `complete: false` and the window those rows cover, and a job stopped at its ceiling goes on from
 * its checkpoint when resumed with a higher one, to the same file paging the API gives.
 */

import { waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withKey } from "../support/http.ts";
import { type Stack, startStack } from "../support/stack.ts";
import {
  call,
  type ExportsBeside,
  type Job,
  jobOf,
  pageThroughApi,
  startExportsBeside,
  verifyLedger,
  waitForState,
  waitForWorkersIdle,
} from "./exports.support.ts";

const DAY = 86_400;
const subreddit = "dataisbeautiful";
const before = Math.floor(Date.now() / 1000) - 10 * DAY;
const after = before - 30 * DAY;

let stack: Stack;
let service: ExportsBeside;
beforeAll(async () => {
  stack = await startStack();
  service = await startExportsBeside(stack, {
    // Fast enough that a pause often lands while a page is under way.
    pagesPerSecond: 10,
    ackWaitMs: 2_000,
    pageRetryMs: 200,
    balanceRetryMs: 300,
  });
}, 120_000);
afterAll(async () => {
  await service?.stop();
  await stack?.stop();
});

async function rowsOfFile(key: string, id: string): Promise<Record<string, unknown>[]> {
  const response = await fetch(`${stack.gatewayUrl}/v1/exports/${id}/file`, { headers: withKey(key) });
  expect(response.status, await response.clone().text()).toBe(200);
  const text = await response.text();
  return text
    .trimEnd()
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

type Manifest = {
  rows: number;
  pages: number;
  complete: boolean;
  covered: { after: number; before: number; first_created_utc: number; last_created_utc: number };
};
const manifestOf = (job: Job) => job.result?.manifest as unknown as Manifest;

/** The reference rows of the window the manifest says the file covers. */
function rowsWithin(rows: Record<string, unknown>[], covered: Manifest["covered"]) {
  return rows.filter(
    (row) => (row.created_utc as number) > covered.after && (row.created_utc as number) < covered.before,
  );
}

describe("an export stopped at its ceiling", () => {
  it("keeps a file of exactly the paid rows, marked partial, and goes on from its checkpoint under a higher ceiling", async () => {
    const { key, id: keyId } = await stack.createKey({ credits: 500 });
    const reference = await pageThroughApi(stack, key, "posts", `subreddit=${subreddit}`, after, before);
    expect(reference.pages).toBeGreaterThan(3);
    const balanceBefore = await stack.balanceOf(keyId);

    const created = await call(stack, key, "POST", "/v1/exports", {
      kind: "posts",
      subreddit,
      after,
      before,
      max_credits: 2,
      confirm: true,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const id = jobOf(created).id;
    const stopped = (await waitFor(
      async () => {
        const job = jobOf(await call(stack, key, "GET", `/v1/exports/${id}`));
        return job.state === "failed" && job.result !== null ? job : undefined;
      },
      "the stopped export's partial file",
      60_000,
    )) as Job;
    expect(stopped.reason).toMatch(/credit ceiling of 2/);
    expect(stopped.progress.credits_spent).toBe(2);
    expect(await stack.balanceOf(keyId)).toBe(balanceBefore - 2);

    const manifest = manifestOf(stopped);
    expect(manifest.complete).toBe(false);
    expect(manifest.pages).toBe(2);
    expect(manifest.covered.after).toBe(after);
    expect(manifest.covered.before).toBeLessThan(before);
    const partial = await rowsOfFile(key, id);
    // Exactly the rows of the two paid pages: the first rows paging gives, all of the covered window.
    expect(partial).toEqual(reference.rows.slice(0, partial.length));
    expect(partial).toEqual(rowsWithin(reference.rows, manifest.covered));
    expect(manifest.rows).toBe(partial.length);
    expect(stopped.progress.rows_done).toBe(partial.length);

    // Without a higher ceiling, resuming is refused and charges nothing.
    const refused = await call(stack, key, "POST", `/v1/exports/${id}/resume`);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatch(/max_credits above the 2 credits/);

    const resumed = await call(stack, key, "POST", `/v1/exports/${id}/resume`, { max_credits: 200 });
    expect(resumed.status, JSON.stringify(resumed.body)).toBe(200);
    expect(jobOf(resumed).state).toBe("queued");
    expect(jobOf(resumed).quote.ceiling_credits).toBe(200);
    const done = await waitForState(stack, key, id, ["done", "failed"], 90_000);
    expect(done.state, done.reason ?? "").toBe("done");
    expect(done.progress.pages_done).toBe(reference.pages);
    expect(done.progress.credits_spent).toBe(reference.pages);
    expect(await stack.balanceOf(keyId)).toBe(balanceBefore - reference.pages);
    expect(manifestOf(done)).toMatchObject({ complete: true, covered: { after, before } });
    expect(await rowsOfFile(key, id)).toEqual(reference.rows);
    expect(await verifyLedger(stack)).toMatchObject({ ok: true });
  }, 240_000);

  it("refuses a higher ceiling the balance cannot pay for, with the shortfall, and a bad one with a 400", async () => {
    const { key } = await stack.createKey({ credits: 10 });
    const created = await call(stack, key, "POST", "/v1/exports", {
      kind: "posts",
      subreddit,
      after,
      before,
      max_credits: 1,
      confirm: true,
    });
    const id = jobOf(created).id;
    await waitForState(stack, key, id, ["failed"], 60_000);
    const short = await call(stack, key, "POST", `/v1/exports/${id}/resume`, { max_credits: 50 });
    expect(short.status).toBe(402);
    expect(short.body.error).toMatch(/49 more credits.*balance is 9: 40 more/);
    const bad = await call(stack, key, "POST", `/v1/exports/${id}/resume`, { max_credits: "lots" });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/max_credits/);
    const unknown = await call(stack, key, "POST", `/v1/exports/${id}/resume`, { ceiling: 5 });
    expect(unknown.status).toBe(400);
    expect(jobOf(await call(stack, key, "GET", `/v1/exports/${id}`)).state).toBe("failed");
  }, 90_000);
});

describe("an export cancelled or paused after paid pages", () => {
  it("cancelled: its file holds exactly the paid rows and the ledger took exactly those pages", async () => {
    const { key, id: keyId } = await stack.createKey({ credits: 300 });
    const reference = await pageThroughApi(
      stack,
      key,
      "comments",
      `subreddit=${subreddit}`,
      before - 5 * DAY,
      before,
    );
    const balanceBefore = await stack.balanceOf(keyId);
    const id = jobOf(
      await call(stack, key, "POST", "/v1/exports", {
        kind: "comments",
        subreddit,
        after: before - 5 * DAY,
        before,
        confirm: true,
      }),
    ).id;
    await waitFor(
      async () => jobOf(await call(stack, key, "GET", `/v1/exports/${id}`)).progress.pages_done >= 2,
      "two pages",
    );
    expect(jobOf(await call(stack, key, "POST", `/v1/exports/${id}/cancel`)).state).toBe("cancelled");
    const cancelled = (await waitFor(
      async () => {
        const job = jobOf(await call(stack, key, "GET", `/v1/exports/${id}`));
        return job.result !== null ? job : undefined;
      },
      "the cancelled export's partial file",
      60_000,
    )) as Job;
    expect(cancelled.state).toBe("cancelled");
    const manifest = manifestOf(cancelled);
    expect(manifest.complete).toBe(false);
    expect(manifest.pages).toBe(cancelled.progress.pages_done);
    const rows = await rowsOfFile(key, id);
    expect(rows).toEqual(rowsWithin(reference.rows, manifest.covered));
    expect(rows).toEqual(reference.rows.slice(0, rows.length));
    expect(await stack.balanceOf(keyId)).toBe(balanceBefore - cancelled.progress.credits_spent);
    expect(cancelled.progress.credits_spent).toBe(manifest.pages);
    expect(await verifyLedger(stack)).toMatchObject({ ok: true });
  }, 120_000);

  it("paused: progress.credits_spent equals what the ledger took, pause after pause", async () => {
    const { key, id: keyId } = await stack.createKey({ credits: 300 });
    const balanceBefore = await stack.balanceOf(keyId);
    const id = jobOf(
      await call(stack, key, "POST", "/v1/exports", {
        kind: "comments",
        subreddit,
        after: before - 8 * DAY,
        before,
        confirm: true,
      }),
    ).id;
    // A pause can land while a page is under way or between pages; several pauses see both.
    for (let round = 1; round <= 4; round++) {
      const from = jobOf(await call(stack, key, "GET", `/v1/exports/${id}`)).progress.pages_done;
      await waitFor(
        async () => jobOf(await call(stack, key, "GET", `/v1/exports/${id}`)).progress.pages_done > from,
        "one more page",
      );
      await call(stack, key, "POST", `/v1/exports/${id}/pause`);
      // Its worker lets it go once the page under way, if any, is written and paid for.
      await waitForWorkersIdle(stack);
      const held = jobOf(await call(stack, key, "GET", `/v1/exports/${id}`));
      expect(held.state).toBe("paused");
      expect(await stack.balanceOf(keyId)).toBe(balanceBefore - held.progress.credits_spent);
      expect((await call(stack, key, "POST", `/v1/exports/${id}/resume`)).status).toBe(200);
    }
    await call(stack, key, "POST", `/v1/exports/${id}/cancel`);
  }, 120_000);
});
