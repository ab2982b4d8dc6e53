/**
 * An export's life beyond the happy path: pause, resume and cancel; a balance that runs out pauses
 * the job and a top-up resumes it; and a worker killed with SIGKILL mid-job, whose job another
 * replica finishes from its last checkpoint with every row exactly once and every page charged
 * once. The crash test runs the exports service as real processes, as production does.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { topUpReplySchema } from "@rda/contracts";
import { requestJson } from "@rda/service-kit";
import { testNatsUrl, testRedisUrl, waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withKey } from "../support/http.ts";
import { type ServiceProcess, spawnService } from "../support/service-processes.ts";
import { type Stack, startStack } from "../support/stack.ts";
import {
  call,
  type ExportsBeside,
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

describe("pause, resume, cancel and a balance that runs out", () => {
  let stack: Stack;
  let service: ExportsBeside;
  beforeAll(async () => {
    stack = await startStack();
    service = await startExportsBeside(stack, {
      pagesPerSecond: 4,
      ackWaitMs: 2_000,
      pageRetryMs: 200,
      balanceRetryMs: 300,
    });
  }, 120_000);
  afterAll(async () => {
    await service?.stop();
    await stack?.stop();
  });

  it("pauses, resumes after a top-up when the balance ran out, and charges exactly the pages fetched", async () => {
    const after = before - 5 * DAY;
    const { key, id: keyId } = await stack.createKey({ credits: 200 });
    const job = jobOf(
      await call(stack, key, "POST", "/v1/exports", {
        kind: "comments",
        subreddit,
        after,
        before,
        confirm: true,
      }),
    );
    await waitFor(
      async () => jobOf(await call(stack, key, "GET", `/v1/exports/${job.id}`)).progress.pages_done >= 2,
      "two pages",
    );
    const paused = await call(stack, key, "POST", `/v1/exports/${job.id}/pause`);
    expect(jobOf(paused).state).toBe("paused");
    // The worker lets the job go once the page under way when the pause came, if any, is done.
    await waitForWorkersIdle(stack);
    const held = jobOf(await call(stack, key, "GET", `/v1/exports/${job.id}`));
    expect(held.state).toBe("paused");

    // Spend the rest of the balance elsewhere, then resume: the job pauses at zero, and says so.
    let balance = await stack.balanceOf(keyId);
    while (balance > 0) {
      await fetch(`${stack.gatewayUrl}/v1/posts?subreddit=${subreddit}&limit=1`, { headers: withKey(key) });
      balance = await stack.balanceOf(keyId);
    }
    // The loop above may have emptied the key's own rate bucket too: resume once it has a token.
    let resumed = await call(stack, key, "POST", `/v1/exports/${job.id}/resume`);
    await waitFor(async () => {
      if (resumed.status !== 429) return true;
      resumed = await call(stack, key, "POST", `/v1/exports/${job.id}/resume`);
      return false;
    }, "a token of the key's rate limit");
    expect(resumed.status, JSON.stringify(resumed.body)).toBe(200);
    expect(jobOf(resumed).state).toBe("queued");
    // Nothing moved while it was paused: the resume finds it where the pause left it.
    const { pages_done, rows_done, credits_spent } = held.progress;
    expect(jobOf(resumed).progress).toMatchObject({ pages_done, rows_done, credits_spent });
    const starved = await waitForState(stack, key, job.id, ["paused"]);
    expect(starved.reason).toMatch(/balance is 0/);
    const spentBefore = starved.progress.credits_spent;

    const topUp = await requestJson(
      stack.nats,
      stack.subjects.billing.topUp,
      { id: keyId, usd_cents: 500, request_id: `topup-${job.id}` },
      topUpReplySchema,
      5_000,
    );
    expect(topUp.ok).toBe(true);
    const toppedUp = await stack.balanceOf(keyId);
    const done = await waitForState(stack, key, job.id, ["done", "failed"], 90_000);
    expect(done.state, done.reason ?? "").toBe("done");
    expect(done.progress.credits_spent).toBe(done.progress.pages_done);
    expect(await stack.balanceOf(keyId)).toBe(toppedUp - (done.progress.pages_done - spentBefore));

    const reference = await pageThroughApi(stack, key, "comments", `subreddit=${subreddit}`, after, before);
    const file = await fetch(`${stack.gatewayUrl}${done.result?.file_url}`, { headers: withKey(key) });
    const rows = (await file.text())
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(rows).toEqual(reference.rows);
    expect(await verifyLedger(stack)).toMatchObject({ ok: true });
  }, 180_000);

  it("cancels: no page is charged after it, and it cannot be resumed", async () => {
    const { key, id: keyId } = await stack.createKey({ credits: 300 });
    const job = jobOf(
      await call(stack, key, "POST", "/v1/exports", {
        kind: "comments",
        subreddit,
        after: before - 20 * DAY,
        before,
        confirm: true,
      }),
    );
    await waitFor(
      async () => jobOf(await call(stack, key, "GET", `/v1/exports/${job.id}`)).progress.pages_done >= 1,
      "a page",
    );
    const cancelled = await call(stack, key, "POST", `/v1/exports/${job.id}/cancel`);
    expect(jobOf(cancelled).state).toBe("cancelled");
    // The worker refunds a page under way when the cancel came, if any, and lets the job go.
    await waitForWorkersIdle(stack);
    const settled = jobOf(await call(stack, key, "GET", `/v1/exports/${job.id}`));
    expect(settled.state).toBe("cancelled");
    expect(await stack.balanceOf(keyId)).toBe(300 - settled.progress.credits_spent);
    expect((await call(stack, key, "POST", `/v1/exports/${job.id}/resume`)).status).toBe(409);
    expect(await verifyLedger(stack)).toMatchObject({ ok: true });
  }, 60_000);
});

describe("a worker killed mid-job", () => {
  let stack: Stack;
  let dir: string;
  const replicas: ServiceProcess[] = [];
  beforeAll(async () => {
    stack = await startStack();
    dir = await mkdtemp(join(tmpdir(), "rda-exports-crash-"));
  }, 120_000);
  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
    await stack?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  /** `pagesPerSecond`: the first replica goes slowly, so it is still mid-job however slowly the
   * second one starts on a busy machine. */
  function startReplica(pagesPerSecond = 5): ServiceProcess {
    const replica = spawnService(
      "exports",
      {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        RDA_NAMESPACE: stack.namespace,
        REDIS_URL: testRedisUrl(),
        NATS_URL: testNatsUrl(),
        EXPORTS_DIR: dir,
        EXPORTS_PORT: "0",
        METRICS_PORT: "0",
        EXPORTS_PAGES_PER_SECOND: String(pagesPerSecond),
        EXPORTS_CONCURRENCY: "1",
        LOG_LEVEL: "info",
        LOG_FORMAT: "json",
      },
      {
        entry: "services/exports/test/support/replica-main.ts",
        args: [JSON.stringify({ ackWaitMs: 2_000 })],
      },
    );
    replicas.push(replica);
    return replica;
  }

  it("resumes on another replica from the last page: each row once, credits equal to pages, ledger clean", async () => {
    const first = startReplica(1);
    await first.waitForLine(/exports listening/);
    const after = before - 10 * DAY;
    const { key, id: keyId } = await stack.createKey({ credits: 500 });
    const job = jobOf(
      await call(stack, key, "POST", "/v1/exports", {
        kind: "comments",
        subreddit,
        after,
        before,
        confirm: true,
      }),
    );
    await first.waitForLine(new RegExp(`export running.*${job.id}|${job.id}.*export running`));
    await waitFor(
      async () => jobOf(await call(stack, key, "GET", `/v1/exports/${job.id}`)).progress.pages_done >= 4,
      "four pages",
    );
    const second = startReplica();
    await second.waitForLine(/exports listening/);
    first.child.kill("SIGKILL");
    await new Promise((resolve) => first.child.once("exit", resolve));
    const killedAt = jobOf(await call(stack, key, "GET", `/v1/exports/${job.id}`)).progress.pages_done;

    const done = await waitForState(stack, key, job.id, ["done", "failed"], 120_000);
    expect(done.state, done.reason ?? "").toBe("done");
    expect(second.lines().some((line) => line.includes(job.id) && line.includes("export running"))).toBe(
      true,
    );
    expect(done.progress.pages_done).toBeGreaterThan(killedAt);

    const reader = await stack.createKey({ credits: 500 });
    const reference = await pageThroughApi(
      stack,
      reader.key,
      "comments",
      `subreddit=${subreddit}`,
      after,
      before,
    );
    const file = await fetch(`${stack.gatewayUrl}${done.result?.file_url}`, { headers: withKey(key) });
    const rows = (await file.text())
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(new Set(rows.map((row) => row.id)).size).toBe(rows.length);
    expect(rows).toEqual(reference.rows);
    expect(done.progress.pages_done).toBe(reference.pages);
    expect(done.progress.credits_spent).toBe(reference.pages);
    expect(await stack.balanceOf(keyId)).toBe(500 - reference.pages);
    expect(await verifyLedger(stack)).toMatchObject({ ok: true });
  }, 180_000);
});
