/**
 * `pnpm upstream:check`: asks the upstream at UPSTREAM_URL which reading of each uncertain behaviour
 * holds (docs/upstream.md#checking-the-upstream), at most one request a second and about 15 requests,
 * prints one line per finding, and exits 1 when an assumption the product depends on fails.
 *
 *   UPSTREAM_URL=https://arctic-shift.photon-reddit.com pnpm upstream:check [--subreddit name] [--interval-ms 1000]
 *
 * Every request takes a turn in the product's one upstream budget, the adapters' pacer in the Redis
 * at REDIS_URL (namespace RDA_NAMESPACE, sized by UPSTREAM_REQUESTS_PER_SECOND and
 * UPSTREAM_CONCURRENCY: give it the adapters' values), so a check run beside a serving deployment
 * takes its share and no more (docs/operations.md#the-upstream-budget). UPSTREAM_USER_AGENT is sent
 * as the product sends it. `--interval-ms` below 1000 is for tests against the simulator only.
 */
import { parseArgs } from "node:util";
import { createLogger, loadConfig, openRedis, redisKeys } from "@rda/service-kit";
import { adapterEnvShape } from "../packages/adapter-kit/src/index.ts";
import {
  createRedisPacer,
  DEFAULT_APP_NAME,
  DEFAULT_USER_AGENT,
} from "../packages/upstream-client/src/index.ts";
import { runChecks } from "./upstream-check/checks.ts";

const DEFAULT_UPSTREAM = "https://arctic-shift.photon-reddit.com";

/** The adapters' own variables for the budget, read with their defaults and rules. */
function budgetSettings() {
  const shape = adapterEnvShape(0, 0);
  return loadConfig({
    REDIS_URL: shape.REDIS_URL,
    RDA_NAMESPACE: shape.RDA_NAMESPACE,
    UPSTREAM_REQUESTS_PER_SECOND: shape.UPSTREAM_REQUESTS_PER_SECOND,
    UPSTREAM_CONCURRENCY: shape.UPSTREAM_CONCURRENCY,
  });
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      subreddit: { type: "string", default: "AskHistorians" },
      "interval-ms": { type: "string", default: "1000" },
    },
  });
  const intervalMs = Number(values["interval-ms"]);
  if (!Number.isInteger(intervalMs) || intervalMs < 0) {
    console.error("--interval-ms must be an integer >= 0");
    return 2;
  }
  const settings = budgetSettings();
  const baseUrl = process.env.UPSTREAM_URL || DEFAULT_UPSTREAM;
  const userAgent = process.env.UPSTREAM_USER_AGENT || DEFAULT_USER_AGENT;
  const logger = createLogger("upstream-check", { level: "silent" });
  const redis = await openRedis(settings.REDIS_URL, "upstream-check", logger, {
    connectTimeoutMs: 5_000,
  }).catch((error: unknown) => {
    throw new Error(
      `the upstream budget's Redis at REDIS_URL cannot be reached (${error instanceof Error ? error.message : String(error)}); every request of the check takes a turn there, so nothing was sent`,
    );
  });
  try {
    const budget = createRedisPacer(redis, redisKeys(settings.RDA_NAMESPACE).upstreamPacer, {
      requestsPerSecond: settings.UPSTREAM_REQUESTS_PER_SECOND,
      concurrency: settings.UPSTREAM_CONCURRENCY,
    });
    console.log(
      `checking ${baseUrl} as "${userAgent}", one request every ${intervalMs} ms at most, each on a turn of the upstream budget (${settings.UPSTREAM_REQUESTS_PER_SECOND} a second, ${settings.UPSTREAM_CONCURRENCY} in flight)`,
    );
    const { findings, requests } = await runChecks({
      baseUrl,
      userAgent,
      appName: DEFAULT_APP_NAME,
      subreddit: values.subreddit,
      intervalMs,
      budget,
      onWait: (reason) => console.log(`      ${reason}`),
    });
    for (const finding of findings) {
      console.log(`${finding.verdict.toUpperCase().padEnd(4)}  ${finding.topic}: ${finding.reading}`);
    }
    const failed = findings.filter((finding) => finding.verdict === "fail").length;
    console.log(
      `${requests} requests; ${failed === 0 ? "every assumption of the product holds" : `${failed} assumptions fail`}`,
    );
    return failed === 0 ? 0 : 1;
  } finally {
    await redis.quit().catch(() => redis.disconnect());
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`upstream check failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(2);
  },
);
