/**
 * A revoked key's exports, over the whole stack: billing's revocation (the event every gateway drops
 * its cached key on) pauses the key's running export for good within a second, takes it out of its
 * owner's active exports, and no page is charged after it.
 */
import { waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportKeys, type JobRecord } from "../../services/exports/src/job-store.ts";
import { type Stack, startStack } from "../support/stack.ts";
import { call, type ExportsBeside, jobOf, startExportsBeside, verifyLedger } from "./exports.support.ts";

const DAY = 86_400;
const subreddit = "dataisbeautiful";
const before = Math.floor(Date.now() / 1000) - 10 * DAY;

describe("a revoked key's export", () => {
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

  it("pauses for good within a second, no longer counts as active, and is charged nothing more", async () => {
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
    const keys = exportKeys(stack.namespace);
    const record = async () => JSON.parse((await stack.redis.get(keys.job(job.id))) ?? "null") as JobRecord;
    await waitFor(async () => (await record()).checkpoint.pages >= 1, "a page", 30_000);
    expect(await stack.redis.sismember(keys.activeJobs(keyId), job.id)).toBe(1);

    await stack.revokeKey(keyId);
    const revokedAt = Date.now();
    await waitFor(
      async () => {
        const now = await record();
        return now.state === "paused" && now.pausedBy === "revoked";
      },
      "the export to pause",
      5_000,
    );
    expect(Date.now() - revokedAt).toBeLessThan(1_000);
    expect(await stack.redis.sismember(keys.activeJobs(keyId), job.id)).toBe(0);

    // A page already fetched joins the job and is settled; after it, nothing is charged.
    await waitFor(
      async () => (await stack.balanceOf(keyId)) === 300 - (await record()).checkpoint.credits,
      "the balance to equal the pages kept",
      10_000,
    );
    const paused = await record();
    expect(paused.reason).toContain("revoked");
    expect(await verifyLedger(stack)).toMatchObject({ ok: true });
    // The key answers 401 now; the job stays paused and out of the active set.
    expect((await call(stack, key, "POST", `/v1/exports/${job.id}/resume`)).status).toBe(401);
    expect((await record()).state).toBe("paused");
  }, 90_000);
});
