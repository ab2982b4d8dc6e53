/**
 * Services started as operators start them (their own `main.ts`, credentials in the environment)
 * against NATS and Redis running the shipped configuration: with the right passwords they connect
 * and are ready; with a wrong one they stop at once saying why; and no line they write, either way,
 * shows a password.
 */
import { once } from "node:events";
import { buildSubjects, exportJobReplySchema, exportListSchema } from "@rda/contracts";
import { connectNats, requestJson } from "@rda/service-kit";
import { freePort, silentLogger, waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ServiceProcess, spawnService } from "../support/service-processes.ts";
import {
  NATS_IDENTITIES,
  type NatsIdentityName,
  newPassword,
  REDIS_USERS,
  type RedisUserName,
  type ShippedServer,
  startShippedNats,
  startShippedRedis,
} from "../support/shipped-servers.ts";

const natsPasswords = Object.fromEntries(
  Object.keys(NATS_IDENTITIES).map((user) => [user, newPassword()]),
) as Record<NatsIdentityName, string>;
const redisPasswords = Object.fromEntries(
  Object.keys(REDIS_USERS).map((user) => [user, newPassword()]),
) as Record<RedisUserName, string>;
const everyPassword = [...Object.values(natsPasswords), ...Object.values(redisPasswords)];

let nats: ShippedServer;
let redis: ShippedServer;
const processes: ServiceProcess[] = [];

beforeAll(async () => {
  [nats, redis] = await Promise.all([startShippedNats(natsPasswords), startShippedRedis(redisPasswords)]);
});

afterAll(async () => {
  await Promise.all(processes.map((service) => service.stop()));
  await Promise.all([nats?.stop(), redis?.stop()]);
});

const redisUrl = (user: RedisUserName, password: string) =>
  redis.url.replace("redis://", `redis://${user}:${password}@`);

async function start(name: string, env: Record<string, string>): Promise<ServiceProcess> {
  const service = spawnService(name, {
    ...process.env,
    NATS_URL: nats.url,
    RDA_NAMESPACE: "",
    LOG_LEVEL: "info",
    LOG_FORMAT: "json",
    HEALTH_PORT: String(await freePort()),
    METRICS_PORT: String(await freePort()),
    ...env,
  });
  processes.push(service);
  return service;
}

const leaked = (service: ServiceProcess) =>
  everyPassword.filter((password) => service.lines().some((line) => line.includes(password)));

// Independent processes: run side by side, so the file costs one start-up rather than four.
describe.concurrent("services with their NATS and Redis credentials", () => {
  it("connects billing as its own identity to both servers, ready, with no password in any log line", async () => {
    const healthPort = await freePort();
    const billing = await start("billing", {
      NATS_USER: "billing",
      NATS_PASSWORD: natsPasswords.billing,
      REDIS_URL: redisUrl("billing", redisPasswords.billing),
      HEALTH_PORT: String(healthPort),
    });

    await billing.waitForLine(/"msg":"billing ready"/, 30_000);
    const ready = await waitFor(async () => {
      const response = await fetch(`http://127.0.0.1:${healthPort}/readyz`).catch(() => undefined);
      return response?.status === 200;
    }, "billing's readiness");
    await billing.stop();

    expect(ready).toBe(true);
    expect(billing.logs()).toContainEqual(
      expect.objectContaining({ msg: "connected to NATS", user: "billing" }),
    );
    expect(leaked(billing)).toEqual([]);
  });

  it("stops the gateway at start on a wrong Redis password, saying WRONGPASS, with the password redacted", async () => {
    const gateway = await start("gateway", {
      PORT: String(await freePort()),
      NATS_USER: "gateway",
      NATS_PASSWORD: natsPasswords.gateway,
      REDIS_URL: redisUrl("gateway", redisPasswords.portal),
    });

    const [code] = (await once(gateway.child, "exit")) as [number];

    expect(code).toBe(1);
    const output = gateway.lines().join("\n");
    expect(output).toMatch(/cannot reach Redis at redis:\/\/gateway:\*\*\*@127\.0\.0\.1:\d+\/0: WRONGPASS/);
    expect(leaked(gateway)).toEqual([]);
  });

  it("stops an adapter at start on a wrong NATS password, and one given a user without a password", async () => {
    const wrong = await start("adapter-posts", {
      NATS_USER: "adapter-posts",
      NATS_PASSWORD: natsPasswords["adapter-tree"],
    });
    const half = await start("adapter-tree", { NATS_USER: "adapter-tree" });

    const [[wrongCode], [halfCode]] = (await Promise.all([
      once(wrong.child, "exit"),
      once(half.child, "exit"),
    ])) as [[number], [number]];

    expect(wrongCode).toBe(1);
    expect(wrong.lines().join("\n")).toMatch(/Authorization Violation/);
    expect(halfCode).toBe(1);
    expect(half.lines().join("\n")).toMatch(/NATS_PASSWORD: must be set with NATS_USER/);
    expect([...leaked(wrong), ...leaked(half)]).toEqual([]);
  });

  it("runs the exports service as its own identity: it makes its work queue, and answers the gateway", async () => {
    const exportsPort = await freePort();
    const exports = await start("exports", {
      NATS_USER: "exports",
      NATS_PASSWORD: natsPasswords.exports,
      REDIS_URL: redisUrl("exports", redisPasswords.exports),
      EXPORTS_PORT: String(exportsPort),
      EXPORTS_DIR: `/tmp/rda-exports-credentials-${exportsPort}`,
    });
    await exports.waitForLine(/"msg":"exports listening"/, 30_000);
    const gateway = await connectNats(nats.url, "test-gateway", silentLogger(), {
      user: "gateway",
      password: natsPasswords.gateway,
    });
    // A job the exports service looks up in its own Redis family (as its ACL user) and does not find.
    const command = { key_id: "key_0000000000000000", id: `exp_${"0".repeat(24)}` };
    const reply = await requestJson(
      gateway,
      buildSubjects("").exports.commands.show,
      command,
      exportJobReplySchema,
      5_000,
    );
    // A key's exports (`GET /v1/exports`, the portal's list too), read from the exports service's own
    // Redis family.
    const listed = await requestJson(
      gateway,
      buildSubjects("").exports.commands.list,
      { key_id: "key_0000000000000000" },
      exportListSchema,
      5_000,
    );
    await gateway.close();
    const ready = await fetch(`http://127.0.0.1:${exportsPort}/readyz`);
    await exports.stop();

    expect(reply).toEqual({
      ok: true,
      value: { outcome: "refused", status: 404, code: "resource_not_found", message: "no such export" },
    });
    expect(listed).toEqual({ ok: true, value: { jobs: [] } });
    expect(ready.status).toBe(200);
    expect(leaked(exports)).toEqual([]);
  });
});
