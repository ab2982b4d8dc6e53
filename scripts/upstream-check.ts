/**
 * `pnpm upstream:check`: asks the upstream at UPSTREAM_URL which reading of each uncertain behaviour
 * holds (docs/upstream.md#checking-the-upstream), at most one request a second and about 15 requests,
 * prints one line per finding, and exits 1 when an assumption the product depends on fails.
 *
 *   UPSTREAM_URL=https://arctic-shift.photon-reddit.com pnpm upstream:check [--subreddit name] [--interval-ms 1000]
 *
 * UPSTREAM_USER_AGENT is sent as the product sends it. `--interval-ms` below 1000 is for tests against
 * the simulator only.
 */
import { parseArgs } from "node:util";
import { DEFAULT_APP_NAME, DEFAULT_USER_AGENT } from "../packages/upstream-client/src/index.ts";
import { runChecks } from "./upstream-check/checks.ts";

const DEFAULT_UPSTREAM = "https://arctic-shift.photon-reddit.com";

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
  const baseUrl = process.env.UPSTREAM_URL || DEFAULT_UPSTREAM;
  const userAgent = process.env.UPSTREAM_USER_AGENT || DEFAULT_USER_AGENT;
  console.log(`checking ${baseUrl} as "${userAgent}", one request every ${intervalMs} ms`);
  const { findings, requests } = await runChecks({
    baseUrl,
    userAgent,
    appName: DEFAULT_APP_NAME,
    subreddit: values.subreddit,
    intervalMs,
  });
  for (const finding of findings) {
    console.log(`${finding.verdict.toUpperCase().padEnd(4)}  ${finding.topic}: ${finding.reading}`);
  }
  const failed = findings.filter((finding) => finding.verdict === "fail").length;
  console.log(
    `${requests} requests; ${failed === 0 ? "every assumption of the product holds" : `${failed} assumptions fail`}`,
  );
  return failed === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`upstream check failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(2);
  },
);
