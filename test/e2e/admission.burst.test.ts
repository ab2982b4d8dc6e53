/**
 * A burst on one key is answered with what the key can pay for, and nothing else: 1,000 concurrent
 * requests through two gateway replicas on a key holding 50 credits get exactly 50 answers and 950
 * refusals for want of credit, never "the service is unavailable", while another process keeps a
 * core busy. What an admission costs, and why batching them was not the fix: bench/README.md.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getJson, withKey } from "../support/http.ts";
import { type Stack, startStack } from "../support/stack.ts";

let stack: Stack;
let hog: ChildProcess | undefined;
beforeAll(async () => {
  stack = await startStack();
  // Another CPU-heavy process on the same machine, as a second stack or a benchmark would be.
  hog = spawn(process.execPath, ["-e", "for (;;) Math.sqrt(Math.random());"], { stdio: "ignore" });
});
afterAll(async () => {
  hog?.kill("SIGKILL");
  await stack?.stop();
});

describe("a burst of 1,000 requests on a key with 50 credits", () => {
  it("answers exactly 50 with data and 950 with 402, none with 503, and charges exactly 50", async () => {
    const key = await stack.createKey({ credits: 50, qps: 10_000, burst: 10_000 });
    const second = await stack.startGateway();
    const gateways = [stack.gatewayUrl, second.url];
    const answers = await Promise.all(
      Array.from({ length: 1_000 }, (_, i) =>
        getJson(`${gateways[i % 2]}/v1/users/someone`, withKey(key.key)).then((answer) => answer.status),
      ),
    );
    const counts: Record<number, number> = {};
    for (const status of answers) counts[status] = (counts[status] ?? 0) + 1;
    expect(counts).toEqual({ 200: 50, 402: 950 });
    expect(await stack.balanceOf(key.id)).toBe(0);
  }, 120_000);
});
