/**
 * A dead adapter is not expensive: requests in flight on an adapter replica that is killed (SIGKILL,
 * a real child process) while its upstream calls are slow each answer a refunded 502 within two
 * seconds of the death, however long those calls were allowed to take. Before the death, the same
 * slow calls are not given up: the replica's progress messages keep them waiting.
 */
import { randomUUID } from "node:crypto";
import { ADAPTER_PROGRESS } from "@rda/contracts";
import { freePort, testNatsUrl, testRedisUrl, waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { simControl } from "../../packages/upstream-client/src/testing/index.ts";
import { withKey } from "../support/http.ts";
import { type ServiceProcess, spawnService } from "../support/service-processes.ts";
import { type Stack, startStack } from "../support/stack.ts";

/** Upstream calls may take this long: far longer than the two seconds a dead replica may cost. */
const UPSTREAM_DEADLINE_MS = 20_000;

let stack: Stack;
let adapter: ServiceProcess;

beforeAll(async () => {
  stack = await startStack({ inProcessAdapters: false, upstreamDeadlineMs: UPSTREAM_DEADLINE_MS });
  adapter = spawnService("adapter-posts", {
    ...process.env,
    NATS_URL: testNatsUrl(),
    REDIS_URL: testRedisUrl(),
    RDA_NAMESPACE: stack.namespace,
    UPSTREAM_URL: stack.simulatorUrl,
    UPSTREAM_DEADLINE_MS: String(UPSTREAM_DEADLINE_MS),
    UPSTREAM_ATTEMPT_TIMEOUT_MS: String(UPSTREAM_DEADLINE_MS),
    ADAPTER_TIMEOUT_MS: String(UPSTREAM_DEADLINE_MS + 2_000),
    HEALTH_PORT: String(await freePort()),
    METRICS_PORT: String(await freePort()),
    LOG_LEVEL: "info",
  });
  await adapter.waitForLine(/adapter ready/);
}, 90_000);
afterAll(async () => {
  await adapter?.stop();
  await stack?.stop();
});

describe("an adapter replica killed with slow upstream calls in flight", () => {
  it("costs each of them a refunded 502 within 2 s of its death, not the upstream's allowed time", async () => {
    const control = simControl(stack.simulatorUrl);
    // The upstream holds every listing without answering: the calls are as slow as allowed.
    await control.addFault({ mode: "timeout", path: "/api/posts/search" });
    const key = await stack.createKey({ credits: 10 });
    const subreddits = stack.simulator.probe.subredditNames().slice(0, 2);
    // A copy of each of the gateway's requests to the adapter, for the subject its progress goes to.
    const requests = stack.nats.subscribe(stack.subjects.adapter.listPosts, { max: subreddits.length });
    await stack.nats.flush();
    const answered: { status: number; refunded: string | null; at: number }[] = [];
    const asks = subreddits.map(async (subreddit) => {
      const response = await fetch(`${stack.gatewayUrl}/v1/posts?subreddit=${subreddit}`, {
        headers: { ...withKey(key.key), "x-request-id": randomUUID() },
      });
      await response.arrayBuffer();
      answered.push({
        status: response.status,
        refunded: response.headers.get("x-credits-refunded"),
        at: Date.now(),
      });
    });
    await waitFor(
      async () => ((await control.requestsOn("/api/posts/search")) >= 2 ? true : undefined),
      "both calls reaching the upstream",
    );
    // Each call hears progress for longer than the gateway waits on a silent adapter: only the
    // progress keeps them waiting.
    const beatsPastSilence = Math.floor(ADAPTER_PROGRESS.silenceMs / ADAPTER_PROGRESS.everyMs) + 2;
    const replySubjects: string[] = [];
    for await (const request of requests) replySubjects.push(request.reply ?? "");
    await Promise.all(
      replySubjects.map(async (replySubject) => {
        const beats = stack.nats.subscribe(replySubject, { max: beatsPastSilence });
        for await (const _beat of beats);
      }),
    );
    expect(answered).toEqual([]);

    const exited = new Promise<number>((resolve) => adapter.child.once("exit", () => resolve(Date.now())));
    adapter.child.kill("SIGKILL");
    const diedAt = await exited;
    await Promise.all(asks);

    expect(answered.map((answer) => answer.status)).toEqual([502, 502]);
    for (const answer of answered) {
      expect(answer.refunded).toBe("1");
      expect(answer.at - diedAt).toBeLessThan(2_000);
    }
    expect(await stack.balanceOf(key.id)).toBe(10);
  }, 60_000);
});
