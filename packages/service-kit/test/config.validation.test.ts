import { describe, expect, it } from "vitest";
import { ConfigError, env, loadConfig } from "../src/index.ts";

const shape = { PORT: env.port(8080), REDIS_URL: env.redisUrl(), NATS_URL: env.natsUrl() };

describe("loadConfig", () => {
  it("applies DESIGN.md defaults when variables are unset or empty", () => {
    expect(loadConfig(shape, { PORT: "" })).toEqual({
      PORT: 8080,
      REDIS_URL: "redis://127.0.0.1:6379",
      NATS_URL: "nats://127.0.0.1:4222",
    });
  });

  it("names every bad variable in one error", () => {
    const load = () => loadConfig(shape, { PORT: "eighty", REDIS_URL: "nonsense", NATS_URL: "http://x" });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(/PORT: must be a port number/);
    expect(load).toThrow(/REDIS_URL: must be a URL like redis:\/\/127.0.0.1:6379/);
    expect(load).toThrow(/NATS_URL: must be a nats:\/\/ URL/);
  });

  it("honours a Redis database number and refuses a path that is not one", () => {
    expect(loadConfig(shape, { REDIS_URL: "redis://cache:6379/3" }).REDIS_URL).toBe("redis://cache:6379/3");
    expect(() => loadConfig(shape, { REDIS_URL: "redis://cache:6379/x" })).toThrow(
      /database must be a number/,
    );
  });

  it("accepts a comma-separated list of NATS cluster seeds", () => {
    const urls = "nats://n1:4222,nats://n2:4222";
    expect(loadConfig(shape, { NATS_URL: urls }).NATS_URL).toBe(urls);
  });

  it("returns a frozen object", () => {
    expect(Object.isFrozen(loadConfig(shape, {}))).toBe(true);
  });
});
