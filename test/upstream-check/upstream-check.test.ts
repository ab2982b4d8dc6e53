/**
 * `pnpm upstream:check` (docs/upstream.md#checking-the-upstream) against both simulator profiles: it
 * names each reading, passes where the product's assumptions hold, stays within about 20 requests at
 * the pace it is given, and exits 1 when the upstream blocks it. Every request it sends takes a turn
 * in the product's one upstream budget (the adapters' pacer in Redis), as the operator's own flow: it
 * waits while the budget is taken, and does not run without it.
 */
import { execFile } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { openRedis, type Redis, redisKeys } from "@rda/service-kit";
import {
  deleteNamespaceKeys,
  silentLogger,
  testNamespace,
  testRedisUrl,
  waitFor,
} from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRedisPacer } from "../../packages/upstream-client/src/index.ts";
import { CHECK_BUDGET_ACCOUNT } from "../../scripts/upstream-check/checks.ts";
import { type RunningSimulator, startSimulator } from "../../services/upstream-sim/src/index.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const run = promisify(execFile);
const namespace = testNamespace("upstream-check");
const pacerKeys = redisKeys(namespace).upstreamPacer;
/** The check's flow in the budget's fair queue (`<class>|<account>`). */
const checkFlow = `interactive|${CHECK_BUDGET_ACCOUNT}`;

async function check(url: string, intervalMs: number, budget: Record<string, string> = {}) {
  const started = performance.now();
  const env = {
    ...process.env,
    UPSTREAM_URL: url,
    UPSTREAM_USER_AGENT: "rda-test/1 (ops@example.test)",
    REDIS_URL: testRedisUrl(),
    RDA_NAMESPACE: namespace,
    // Out of the way unless a test sizes the budget: the pace under test is --interval-ms.
    UPSTREAM_REQUESTS_PER_SECOND: "50",
    UPSTREAM_CONCURRENCY: "2",
    ...budget,
  };
  const args = [
    "--import",
    "tsx",
    "scripts/upstream-check.ts",
    "--subreddit",
    "AskHistorians",
    "--interval-ms",
    String(intervalMs),
  ];
  try {
    const { stdout, stderr } = await run(process.execPath, args, { cwd: ROOT, env });
    return { code: 0, stdout, stderr, ms: performance.now() - started };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return {
      code: failed.code,
      stdout: failed.stdout,
      stderr: failed.stderr,
      ms: performance.now() - started,
    };
  }
}

async function simulatorRequests(sim: RunningSimulator): Promise<number> {
  return ((await (await fetch(`${sim.url}/__sim/stats`)).json()) as { total: number }).total;
}

const requestsOf = (stdout: string) => Number(/(\d+) requests;/.exec(stdout)?.[1]);
const line = (stdout: string, topic: string) =>
  stdout.split("\n").find((text) => text.includes(` ${topic}:`)) ?? "";

let defaultSim: RunningSimulator;
let strictSim: RunningSimulator;
let redis: Redis;
const now = Math.floor(Date.now() / 1000);

beforeAll(async () => {
  redis = await openRedis(testRedisUrl(), "upstream-check-test", silentLogger());
  defaultSim = await startSimulator({ seed: 5, scale: 0.1 });
  // The strict cutoff moved inside the corpus (laid from 180 days back), so the oldest items are strings.
  const quirks = { stringEpochsBefore: now - 60 * 86_400, transientEmptyPageRate: 0.3 };
  strictSim = await startSimulator({ seed: 5, scale: 0.1, profile: "strict", quirks });
});
afterAll(async () => {
  await defaultSim.close();
  await strictSim.close();
  await deleteNamespaceKeys(redis, namespace);
  redis.disconnect();
});

describe("pnpm upstream:check", () => {
  it("passes against the default profile and names each reading", async () => {
    const { code, stdout } = await check(defaultSim.url, 0);
    expect(code, stdout).toBe(0);
    expect(line(stdout, "user-agent")).toMatch(/^PASS .*accepted; without one: accepted/);
    expect(line(stdout, "tree prefix")).toMatch(/^PASS .*the prefix is optional/);
    expect(line(stdout, "after boundary")).toMatch(/excludes second/);
    expect(line(stdout, "before boundary")).toMatch(/excludes second/);
    expect(line(stdout, "epoch type, oldest post")).toMatch(/^PASS .*an integer/);
    expect(line(stdout, "x-ratelimit-reset")).toMatch(/^PASS .*seconds left/);
    expect(line(stdout, "x-ratelimit-reset-at")).toMatch(/^PASS .*epoch milliseconds/);
    expect(line(stdout, "x-ratelimit-remaining")).toMatch(/^INFO .*not sent/);
    expect(line(stdout, "author case")).toMatch(/ignores case/);
    expect(requestsOf(stdout)).toBeLessThanOrEqual(20);
  });

  it("passes against the strict profile, naming the readings that differ, one request per interval", async () => {
    const intervalMs = 100;
    const { code, stdout, ms } = await check(strictSim.url, intervalMs);
    expect(code, stdout).toBe(0);
    expect(line(stdout, "user-agent")).toMatch(/^PASS .*accepted; without one: refused \(HTTP 403, not JSON/);
    expect(line(stdout, "tree prefix")).toMatch(/^PASS .*bare \w+: 0 nodes: the tree needs t3_/);
    expect(line(stdout, "after boundary")).toMatch(/includes second/);
    expect(line(stdout, "before boundary")).toMatch(/excludes second/);
    expect(line(stdout, "epoch type, oldest post")).toMatch(/^PASS .*a numeric string/);
    expect(line(stdout, "epoch type, oldest comment")).toMatch(/^PASS .*a numeric string/);
    const requests = requestsOf(stdout);
    expect(requests).toBeLessThanOrEqual(20);
    expect(ms).toBeGreaterThanOrEqual((requests - 1) * intervalMs);
  });

  it("takes a turn in the upstream budget for every request: sends nothing while the budget is taken, then runs within it", async () => {
    // Another request of the product holds the budget's one place in flight.
    const budget = { UPSTREAM_CONCURRENCY: "1" };
    const pacer = createRedisPacer(redis, pacerKeys, { requestsPerSecond: 50, concurrency: 1 });
    const held = await pacer.turn({ waitUntilMs: Date.now() + 5_000, account: "acct_customer" });
    if (!held.granted) throw new Error("the test could not take the budget's place");
    const turnsBefore = Number((await redis.hget(pacerKeys.shares, checkFlow)) ?? 0);
    const sentBefore = await simulatorRequests(defaultSim);
    const checked = check(defaultSim.url, 0, budget);
    let seenWaiting = false;
    try {
      // The check is a process of its own (node with tsx): on a busy machine it takes a while to start.
      await waitFor(
        async () => (await redis.zscore(pacerKeys.queued, checkFlow)) !== null,
        "the check waiting for a turn in the budget",
        60_000,
      );
      seenWaiting = true;
      // Waiting for its turn, it has sent nothing.
      expect(await simulatorRequests(defaultSim)).toBe(sentBefore);
    } finally {
      held.finish();
      // A check never seen waiting still runs: it ends before the next test counts requests.
      if (!seenWaiting) await checked.catch(() => undefined);
    }
    const { code, stdout } = await checked;
    expect(code, stdout).toBe(0);
    const requests = requestsOf(stdout);
    expect(await simulatorRequests(defaultSim)).toBe(sentBefore + requests);
    // One turn of its own flow for each request it sent: the operator's, apart from every customer.
    expect(Number(await redis.hget(pacerKeys.shares, checkFlow)) - turnsBefore).toBe(requests);
  }, 150_000);

  it("exits 2 without sending anything when the budget's Redis cannot be reached", async () => {
    const sentBefore = await simulatorRequests(defaultSim);
    const result = await check(defaultSim.url, 0, { REDIS_URL: "redis://127.0.0.1:1" });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /upstream check failed: the upstream budget's Redis at REDIS_URL cannot be reached .*nothing was sent/,
    );
    expect(await simulatorRequests(defaultSim)).toBe(sentBefore);
  });

  it("exits 1 and says so when the upstream blocks every request", async () => {
    const server = createServer((_request, response) => {
      response
        .writeHead(403, { "content-type": "text/html" })
        .end("<html><title>Attention Required! | Cloudflare</title></html>");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const { code, stdout } = await check(`http://127.0.0.1:${port}`, 0);
      expect(code).toBe(1);
      expect(line(stdout, "user-agent")).toMatch(
        /^FAIL .*HTTP 403, not JSON \("Attention Required! \| Cloudflare"\)/,
      );
    } finally {
      server.close();
    }
  });
});
