import { afterEach, describe, expect, it } from "vitest";
import { type HealthServer, startHealthServer } from "../src/index.ts";

describe("health server", () => {
  let server: HealthServer | undefined;
  afterEach(async () => server?.close());

  it("answers /livez always and /readyz 503 until every check passes", async () => {
    let natsUp = false;
    server = await startHealthServer(0, "127.0.0.1", { nats: () => natsUp, redis: async () => true });
    const base = `http://127.0.0.1:${server.port}`;
    expect((await fetch(`${base}/livez`)).status).toBe(200);
    const notReady = await fetch(`${base}/readyz`);
    expect(notReady.status).toBe(503);
    expect(await notReady.json()).toEqual({ ready: false, checks: { nats: false, redis: true } });
    natsUp = true;
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
  });

  it("counts a check that throws as not ready", async () => {
    server = await startHealthServer(0, "127.0.0.1", {
      redis: () => {
        throw new Error("down");
      },
    });
    expect((await fetch(`http://127.0.0.1:${server.port}/readyz`)).status).toBe(503);
  });
});
