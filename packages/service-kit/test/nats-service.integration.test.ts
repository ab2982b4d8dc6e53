import { buildSubjects, QUEUE_GROUPS } from "@rda/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type NatsConnection, requestRaw, ServiceError, serveSubject } from "../src/index.ts";
import { connectTestNats, silentLogger, testNamespace, waitFor } from "../src/testing/index.ts";

describe("serveSubject over real NATS", () => {
  let nats: NatsConnection;
  const subjects = buildSubjects(testNamespace("kit"));
  const subject = subjects.adapter.listPosts;
  const logger = silentLogger();

  beforeAll(async () => {
    nats = await connectTestNats();
  });
  afterAll(async () => {
    await nats.drain();
  });

  it("spreads requests over the replicas of one queue group", async () => {
    const served = { a: 0, b: 0 };
    const replicas = (["a", "b"] as const).map((name) =>
      serveSubject(nats, {
        subject,
        queue: QUEUE_GROUPS.adapterPosts,
        logger,
        handler: async () => {
          served[name] += 1;
          return name;
        },
      }),
    );
    await nats.flush();
    for (let i = 0; i < 200; i++) await requestRaw(nats, subject, "x", 2_000);
    await Promise.all(replicas.map((replica) => replica.stop()));
    expect(served.a + served.b).toBe(200);
    expect(served.a).toBeGreaterThan(0);
    expect(served.b).toBeGreaterThan(0);
  });

  it("finishes a request already in flight when stopped", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const replica = serveSubject(nats, {
      subject,
      queue: QUEUE_GROUPS.adapterPosts,
      logger,
      handler: async () => {
        await gate;
        return "finished";
      },
    });
    await nats.flush();
    const reply = requestRaw(nats, subject, "x", 10_000);
    await waitFor(() => replica.inFlight() === 1, "the request in flight");
    const stopped = replica.stop();
    release();
    await stopped;
    const outcome = await reply;
    expect(outcome.ok && new TextDecoder().decode(outcome.value)).toBe("finished");
  });

  it("tells 'nobody serves this subject' apart from 'too slow'", async () => {
    const nobody = await requestRaw(nats, `${subject}.nobody`, "x", 2_000);
    expect(nobody).toMatchObject({ ok: false, error: { kind: "no_responders" } });
    const slow = serveSubject(nats, {
      subject: `${subject}.slow`,
      queue: "slow",
      logger,
      handler: () => new Promise(() => {}),
    });
    await nats.flush();
    expect(await requestRaw(nats, `${subject}.slow`, "x", 200)).toMatchObject({
      ok: false,
      error: { kind: "timeout" },
    });
    void slow;
  });

  it("answers a service error 500 that any caller decodes, instead of silence, when a handler throws", async () => {
    const replica = serveSubject(nats, {
      subject: `${subject}.broken`,
      queue: "broken",
      logger,
      handler: async () => {
        throw new Error("bug");
      },
    });
    await nats.flush();
    const outcome = await requestRaw(nats, `${subject}.broken`, "x", 2_000);
    expect(outcome).toEqual({
      ok: false,
      error: { kind: "service_error", code: 500, message: "internal error" },
    });
    await replica.stop();
  });

  it("passes a handler's ServiceError code and message to the caller", async () => {
    const replica = serveSubject(nats, {
      subject: `${subject}.refusing`,
      queue: "refusing",
      logger,
      handler: async () => {
        throw new ServiceError(400, "invalid request: id\nis missing");
      },
    });
    await nats.flush();
    const outcome = await requestRaw(nats, `${subject}.refusing`, "x", 2_000);
    expect(outcome).toEqual({
      ok: false,
      error: { kind: "service_error", code: 400, message: "invalid request: id is missing" },
    });
    await replica.stop();
  });
});
