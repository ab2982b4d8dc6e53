import { buildSubjects } from "@rda/contracts";
import { requestWithProgress } from "@rda/service-kit";
import { capturingLogger, connectTestNats, testNamespace } from "@rda/service-kit/testing";
import { simControl } from "@rda/upstream-client/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSimulator, startSimulator } from "../../../services/upstream-sim/src/index.ts";
import { failureReply, okReply, type RunningAdapter, startAdapter } from "../src/index.ts";

describe("an adapter's log lines", () => {
  const subjects = buildSubjects(testNamespace("kit"));
  const capture = capturingLogger("adapter-test");
  let sim: RunningSimulator;
  let nats: Awaited<ReturnType<typeof connectTestNats>>;
  let adapter: RunningAdapter;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 5, scale: 0.02 });
    nats = await connectTestNats();
    adapter = await startAdapter(
      { nats, subjects, upstreamUrl: sim.url, logger: capture.logger, upstream: { deadlineMs: 600 } },
      "kit-test",
      {
        getUserProfile: async (client, params, context) => {
          context.logger.info("looking the user up");
          const result = await client.get("/api/users/search", { author: params.name, limit: 1 }, context);
          return result.outcome === "ok" ? okReply("{}") : failureReply(result);
        },
      },
    );
  });
  afterAll(async () => {
    await adapter.stop();
    await nats.close();
    await sim.close();
  });

  it("carry the gateway's request id, the operation's own lines and the upstream client's failure lines", async () => {
    await simControl(sim.url).addFault({ mode: "error", rate: 1, path: "/api/users/search" });
    const request = { request_id: "req-follow-me-1", params: { name: "someone" } };
    const reply = await requestWithProgress(nats, subjects.adapter.getUserProfile, JSON.stringify(request), {
      timeoutMs: 5_000,
      silenceMs: 5_000,
    });
    expect(reply.ok).toBe(true);
    const lines = capture
      .lines()
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const own = lines.find((line) => line.msg === "looking the user up");
    const upstream = lines.find((line) => line.msg === "upstream call needed retries or failed");
    expect(own).toMatchObject({ request_id: "req-follow-me-1" });
    expect(upstream).toMatchObject({ request_id: "req-follow-me-1", outcome: "unavailable" });
  });
});
