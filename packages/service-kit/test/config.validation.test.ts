import { describe, expect, it } from "vitest";
import { ConfigError, env, inboxPrefixOf, loadConfig, natsIdentity, redactUrl } from "../src/index.ts";

const shape = { PORT: env.port(8080), REDIS_URL: env.redisUrl(), NATS_URL: env.natsUrl() };

describe("loadConfig", () => {
  it("applies the documented defaults when variables are unset or empty", () => {
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

  it("refuses credentials inside NATS_URL, pointing at NATS_USER and NATS_PASSWORD", () => {
    expect(() => loadConfig(shape, { NATS_URL: "nats://gateway:secret@nats:4222" })).toThrow(
      /NATS_URL: must not carry credentials: set NATS_USER and NATS_PASSWORD/,
    );
  });

  it("takes NATS_USER and NATS_PASSWORD as a pair, and gives the user a private inbox prefix", () => {
    const natsShape = { NATS_USER: env.natsUser(), NATS_PASSWORD: env.natsPassword() };
    expect(natsIdentity(loadConfig(natsShape, {}))).toBeUndefined();
    const identity = natsIdentity(loadConfig(natsShape, { NATS_USER: "gateway", NATS_PASSWORD: "p-secret" }));
    expect(identity).toEqual({ user: "gateway", password: "p-secret" });
    expect(inboxPrefixOf(identity)).toBe("_INBOX_gateway");
    expect(inboxPrefixOf(undefined)).toBe("_INBOX");
    expect(() => natsIdentity(loadConfig(natsShape, { NATS_USER: "gateway" }))).toThrow(
      /NATS_PASSWORD: must be set with NATS_USER/,
    );
    expect(() => natsIdentity(loadConfig(natsShape, { NATS_PASSWORD: "p-secret" }))).toThrow(
      /NATS_USER: must be set with NATS_PASSWORD/,
    );
    expect(() => loadConfig(natsShape, { NATS_USER: "gate way" })).toThrow(/NATS_USER: must be 1 to 64/);
  });

  it("redacts the password of every URL in a list before it is logged, keeping the rest", () => {
    expect(redactUrl("redis://gateway:s3cret@redis:6379/0")).toBe("redis://gateway:***@redis:6379/0");
    const seeds = redactUrl("nats://a:s3cret@n1:4222,nats://a:t0ps3cret@n2:4222");
    expect(seeds).toBe("nats://a:***@n1:4222,nats://a:***@n2:4222");
    expect(redactUrl("smtps://user:pa%40ss@smtp.example.com:465")).not.toContain("pa%40ss");
  });

  it("returns a frozen object", () => {
    expect(Object.isFrozen(loadConfig(shape, {}))).toBe(true);
  });
});
