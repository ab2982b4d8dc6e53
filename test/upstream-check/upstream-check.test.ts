/**
 * `pnpm upstream:check` (docs/upstream.md#checking-the-upstream) against both simulator profiles: it
 * names each reading, passes where the product's assumptions hold, stays within about 20 requests at
 * the pace it is given, and exits 1 when the upstream blocks it.
 */
import { execFile } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSimulator, startSimulator } from "../../services/upstream-sim/src/index.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const run = promisify(execFile);

async function check(url: string, intervalMs: number) {
  const started = performance.now();
  const env = { ...process.env, UPSTREAM_URL: url, UPSTREAM_USER_AGENT: "rda-test/1 (ops@example.test)" };
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
    const { stdout } = await run(process.execPath, args, { cwd: ROOT, env });
    return { code: 0, stdout, ms: performance.now() - started };
  } catch (error) {
    const failed = error as { code: number; stdout: string };
    return { code: failed.code, stdout: failed.stdout, ms: performance.now() - started };
  }
}

const requestsOf = (stdout: string) => Number(/(\d+) requests;/.exec(stdout)?.[1]);
const line = (stdout: string, topic: string) =>
  stdout.split("\n").find((text) => text.includes(` ${topic}:`)) ?? "";

let defaultSim: RunningSimulator;
let strictSim: RunningSimulator;
const now = Math.floor(Date.now() / 1000);

beforeAll(async () => {
  defaultSim = await startSimulator({ seed: 5, scale: 0.1 });
  // The strict cutoff moved inside the corpus (laid from 180 days back), so the oldest items are strings.
  const quirks = { stringEpochsBefore: now - 60 * 86_400, transientEmptyPageRate: 0.3 };
  strictSim = await startSimulator({ seed: 5, scale: 0.1, profile: "strict", quirks });
});
afterAll(async () => {
  await defaultSim.close();
  await strictSim.close();
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
