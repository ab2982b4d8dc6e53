/**
 * `Idempotency-Key` when the service that carries a command out answers too late
 * (docs/api.md#idempotency), through the whole stack: a confirmed export whose quote waits past the
 * gateway's deadline for a turn of the upstream budget is answered 503, yet made and started once the
 * turn comes; the client's retry under the same key gets that export (no second job, no second quote,
 * one stream of page charges) and the balance is exactly what its pages cost.
 */
import { waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRedisPacer } from "../../packages/upstream-client/src/index.ts";
import type { RunningGateway } from "../../services/gateway/src/index.ts";
import { withKey } from "../support/http.ts";
import { type Stack, startStack } from "../support/stack.ts";
import {
  call,
  type ExportsBeside,
  type Job,
  jobOf,
  startExportsBeside,
  verifyLedger,
  waitForState,
} from "./exports.support.ts";

const DAY = 86_400;
/** One place in flight; a quote waits for a turn up to 8 s, well past the late gateway's deadline. */
const BUDGET = { requestsPerSecond: 100, concurrency: 1, interactiveWaitMs: 8_000 };
/** How long the gateway that meets the late answer waits for the exports service. */
const GATEWAY_WAIT_MS = 2_000;

let stack: Stack;
let exportsService: ExportsBeside;
let lateGateway: RunningGateway;
beforeAll(async () => {
  stack = await startStack({ upstreamBudget: BUDGET, upstreamDeadlineMs: 10_000 });
  exportsService = await startExportsBeside(stack);
  lateGateway = await stack.startGateway({ managedCommandTimeoutMs: GATEWAY_WAIT_MS });
}, 120_000);
afterAll(async () => {
  await lateGateway?.stop();
  await exportsService?.stop();
  await stack?.stop();
});

const before = Math.floor(Date.now() / 1000) - 10 * DAY;
const confirmed = JSON.stringify({
  kind: "posts",
  subreddit: "dataisbeautiful",
  after: before - 2 * DAY,
  before,
  confirm: true,
});

/** `POST /v1/exports` with confirm, under `idempotencyKey`, on the gateway that waits briefly. */
async function createExport(key: string, idempotencyKey: string) {
  const response = await fetch(`${lateGateway.url}/v1/exports`, {
    method: "POST",
    headers: { ...withKey(key), "content-type": "application/json", "idempotency-key": idempotencyKey },
    body: confirmed,
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function listed(key: string): Promise<Job[]> {
  const answer = await call(stack, key, "GET", "/v1/exports");
  expect(answer.status).toBe(200);
  return (answer.body.data as { jobs: Job[] }).jobs;
}

describe("a confirmed export answered too late", () => {
  it("is made once: the retry under the same Idempotency-Key after the 503 gets the same job, charged once", async () => {
    const { key, id: keyId } = await stack.createKey({ credits: 100 });
    const idempotencyKey = `late-${keyId}`;
    // Another account's request holds the budget's one place: the quote waits for its turn.
    const other = createRedisPacer(stack.redis, stack.keys.upstreamPacer, BUDGET);
    const held = await other.turn({ waitUntilMs: Date.now() + 5_000, account: "acct_other" });
    if (!held.granted) throw new Error("the test could not take the budget's place");
    let first: Awaited<ReturnType<typeof createExport>>;
    try {
      first = await createExport(key, idempotencyKey);
    } finally {
      held.finish();
    }
    expect(first.status, JSON.stringify(first.body)).toBe(503);
    expect(first.body.code).toBe("service_unavailable");

    // The first attempt goes on behind the 503: its quote gets the turn, and its job is made and started.
    const [made] = await waitFor(
      async () => {
        const jobs = await listed(key);
        return jobs.length > 0 && jobs[0]!.state !== "quoted" ? jobs : undefined;
      },
      "the late attempt's export to be made and started",
      30_000,
    );

    // The client retries as told (503, Retry-After), with the same key and body.
    const retried = await waitFor(
      async () => {
        const answer = await createExport(key, idempotencyKey);
        return answer.status === 503 ? undefined : answer;
      },
      "the retry to be answered",
      30_000,
    );
    expect(retried.status, JSON.stringify(retried.body)).toBe(202);
    expect(jobOf(retried).id).toBe(made!.id);

    const done = await waitForState(stack, key, made!.id, ["done"]);
    expect((await listed(key)).map((job) => job.id)).toEqual([made!.id]);
    expect(done.progress.credits_spent).toBe(done.progress.pages_done);
    expect(await stack.balanceOf(keyId)).toBe(100 - done.progress.credits_spent);
    expect(await verifyLedger(stack)).toMatchObject({ ok: true });
  }, 120_000);
});
