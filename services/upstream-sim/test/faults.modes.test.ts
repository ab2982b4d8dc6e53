import { waitFor } from "@rda/service-kit/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { fetchAnswer, startTestSim, type TestSim } from "./support.ts";

let sim: TestSim;
const API = "/api/posts/search?limit=1";

beforeAll(async () => {
  sim = await startTestSim();
});
afterAll(() => sim.close());
afterEach(async () => {
  await fetch(`${sim.url}/__sim/faults`, { method: "DELETE" });
});

const addFault = (spec: unknown) =>
  fetchAnswer(`${sim.url}/__sim/faults`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(spec),
  });

describe("POST /__sim/faults", () => {
  it.each([
    [{ mode: "explode" }],
    [{ mode: "error", rate: 1.5 }],
    [{ mode: "error", count: 0 }],
    [{ mode: "error", path: "api/no-slash" }],
    [{ mode: "error", colour: "red" }],
    [{}],
  ])("answers 400 for the invalid fault %j", async (spec) => {
    const answer = await addFault(spec);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ data: null, error: expect.stringContaining("Invalid fault") });
  });

  it("answers 400 for a body that is not JSON", async () => {
    const answer = await fetchAnswer(`${sim.url}/__sim/faults`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{not json",
    });
    expect(answer.status).toBe(400);
  });

  it("lists active faults, and DELETE clears them all", async () => {
    expect((await addFault({ mode: "busy", count: 2 })).status).toBe(201);
    await addFault({ mode: "error", path: "/api/comments", rate: 0.5 });
    const listed = await fetchAnswer(`${sim.url}/__sim/faults`);
    expect(listed.body.faults).toMatchObject([
      { mode: "busy", count: 2, remaining: 2, rate: 1 },
      { mode: "error", path: "/api/comments", rate: 0.5, remaining: null },
    ]);
    await fetch(`${sim.url}/__sim/faults`, { method: "DELETE" });
    expect((await fetchAnswer(`${sim.url}/__sim/faults`)).body).toEqual({ faults: [] });
    expect((await sim.get(API)).status).toBe(200);
  });
});

describe("fault modes", () => {
  it("error: answers 500, 502 then 503 with an error body, then recovers after count", async () => {
    await addFault({ mode: "error", count: 3 });
    const answers = [await sim.get(API), await sim.get(API), await sim.get(API), await sim.get(API)];
    expect(answers.map((a) => a.status)).toEqual([500, 502, 503, 200]);
    for (const answer of answers.slice(0, 3))
      expect(answer.body).toEqual({ data: null, error: expect.any(String) });
  });

  it("garbage: answers a non-JSON Cloudflare 52x page", async () => {
    await addFault({ mode: "garbage", count: 5 });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const answer = await sim.get(API);
      statuses.push(answer.status);
      expect(answer.body).toBeUndefined();
      expect(answer.headers.get("content-type")).toContain("text/html");
      expect(answer.text).toContain("cloudflare");
    }
    expect(statuses).toEqual([520, 521, 522, 523, 524]);
  });

  it("busy: answers 422, then 200, both with the upstream's timeout message", async () => {
    await addFault({ mode: "busy", count: 2 });
    const answers = [await sim.get(API), await sim.get(API)];
    expect(answers.map((a) => a.status)).toEqual([422, 200]);
    for (const answer of answers)
      expect(answer.body).toEqual({ data: null, error: "Timeout. Maybe slow down a bit" });
  });

  it("ratelimit: answers 429 with the seconds left in the minute and the minute boundary", async () => {
    const saved = sim.clock.seconds;
    sim.clock.seconds = Math.floor(saved / 60) * 60 + 45;
    try {
      await addFault({ mode: "ratelimit", count: 1 });
      const answer = await sim.get(API);
      expect(answer.status).toBe(429);
      expect(answer.headers.get("x-ratelimit-reset")).toBe("15");
      expect(answer.headers.get("x-ratelimit-reset-at")).toBe(String((Math.floor(saved / 60) + 1) * 60_000));
      expect(answer.body).toEqual({ data: null, error: expect.any(String) });
    } finally {
      sim.clock.seconds = saved;
    }
  });

  it("timeout: never answers, and the simulator still closes promptly", async () => {
    const own = await startTestSim();
    await fetchAnswer(`${own.url}/__sim/faults`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ mode: "timeout" }),
    });
    const pending = fetch(`${own.url}${API}`).then(
      () => "answered",
      () => "connection closed",
    );
    // The request has met the fault: it is held, and closing finds it unanswered.
    await waitFor(
      async () => (await fetchAnswer(`${own.url}/__sim/stats`)).body.faults_injected === 1,
      "the request held by the fault",
    );
    const started = Date.now();
    await own.close();
    // Closing must not wait for the held request (that would be forever); the bound is generous.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await pending).toBe("connection closed");
  });

  it("timeout: a client that gives up sees an error, and the next request is answered", async () => {
    await addFault({ mode: "timeout", count: 1 });
    await expect(fetch(`${sim.url}${API}`, { signal: AbortSignal.timeout(200) })).rejects.toThrow();
    expect((await sim.get(API)).status).toBe(200);
  });
});

describe("fault selection", () => {
  it("only fails paths under the fault's prefix", async () => {
    await addFault({ mode: "error", path: "/api/comments" });
    expect((await sim.get(API)).status).toBe(200);
    expect((await sim.get("/api/comments/search?limit=1")).status).toBe(500);
    expect((await sim.get("/__sim/stats")).status).toBe(200);
  });

  it("keeps several faults active at once, first match first", async () => {
    await addFault({ mode: "busy", path: "/api/posts", count: 1 });
    await addFault({ mode: "error", count: 2 });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await sim.get(API)).status);
    expect(statuses).toEqual([422, 500, 502]);
  });

  it("draws rate-based faults from a seeded sequence: two simulators fail the same requests", async () => {
    const pattern = async () => {
      const own = await startTestSim();
      await fetchAnswer(`${own.url}/__sim/faults`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ mode: "error", rate: 0.5 }),
      });
      const statuses: number[] = [];
      for (let i = 0; i < 30; i++) statuses.push((await own.get(API)).status);
      await own.close();
      return statuses;
    };
    const first = await pattern();
    expect(await pattern()).toEqual(first);
    const failures = first.filter((status) => status !== 200).length;
    expect(failures).toBeGreaterThan(5);
    expect(failures).toBeLessThan(25);
  });

  it("with a count, considers only that many matching requests", async () => {
    await addFault({ mode: "error", rate: 0, count: 2 });
    await sim.get(API);
    await sim.get(API);
    expect((await fetchAnswer(`${sim.url}/__sim/faults`)).body).toEqual({ faults: [] });
  });
});

describe("GET /__sim/stats", () => {
  it("counts requests per path and injected faults until reset", async () => {
    await fetch(`${sim.url}/__sim/stats`, { method: "DELETE" });
    await sim.get(API);
    await sim.get("/api/posts/search?limit=2");
    await sim.get("/api/posts/ids?ids=abc");
    await addFault({ mode: "busy", count: 1 });
    await sim.get("/api/users/search?author=x");
    const stats = await fetchAnswer(`${sim.url}/__sim/stats`);
    expect(stats.body).toEqual({
      requests: { "/api/posts/search": 2, "/api/posts/ids": 1, "/api/users/search": 1 },
      total: 4,
      faults_injected: 1,
    });
    const reset = await fetchAnswer(`${sim.url}/__sim/stats`, { method: "DELETE" });
    expect(reset.body).toEqual({ requests: {}, total: 0, faults_injected: 0 });
  });

  it("stops adding paths after 200 distinct ones, counting the rest under (other)", async () => {
    await fetch(`${sim.url}/__sim/stats`, { method: "DELETE" });
    await Promise.all(Array.from({ length: 230 }, (_, i) => sim.get(`/probe/${i}`)));
    const stats = await fetchAnswer(`${sim.url}/__sim/stats`);
    const requests = stats.body.requests as Record<string, number>;
    expect(Object.keys(requests)).toHaveLength(201);
    expect(requests["(other)"]).toBe(30);
    expect(stats.body.total).toBe(230);
  });
});

describe("every upstream answer", () => {
  it("carries the rate-limit headers", async () => {
    const answer = await sim.get(API);
    expect(Number(answer.headers.get("x-ratelimit-reset"))).toBeGreaterThan(0);
    expect(Number(answer.headers.get("x-ratelimit-reset-at")) % 60_000).toBe(0);
  });

  it("answers 404 with an error body on unknown paths", async () => {
    for (const path of ["/api/nope", "/", "/api/time_series"]) {
      const answer = await sim.get(path);
      expect(answer.status).toBe(404);
      expect(answer.body).toEqual({ data: null, error: "Not found" });
    }
  });

  it("waits latencyMs before answering /api, but not /__sim", async () => {
    // A wide gap between the latency and the bound keeps this true on a loaded machine.
    const slow = await startTestSim({ latencyMs: 2_000 });
    try {
      let started = Date.now();
      await slow.get(API);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_990);
      started = Date.now();
      await slow.get("/__sim/stats");
      expect(Date.now() - started).toBeLessThan(1_500);
    } finally {
      await slow.close();
    }
  });
});
