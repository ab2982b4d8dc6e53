import type { ConfigError } from "@rda/service-kit";
import { describe, expect, it } from "vitest";
import { loadPortalConfig, settingsFrom, smtpUrlOf } from "../src/index.ts";

const problemsOf = (env: Record<string, string>) => {
  try {
    loadPortalConfig(env);
    return [];
  } catch (error) {
    return (error as ConfigError).problems;
  }
};

describe("the portal's configuration", () => {
  it("defaults to the local stack: port 8060, the capture inbox on 1025, the API on 8080", () => {
    const config = loadPortalConfig({});
    expect(config.PORTAL_PORT).toBe(8060);
    expect(smtpUrlOf(config)).toBe("smtp://127.0.0.1:1025");
    const settings = settingsFrom(config);
    expect(settings).toMatchObject({
      publicUrl: "http://127.0.0.1:8060",
      apiUrl: "http://127.0.0.1:8080",
      supportEmail: "portal@localhost",
      mailLimits: { perAddress: 5, perClient: 20, windowSeconds: 3_600 },
      sessionTtlMs: 7 * 24 * 3_600_000,
      trustProxy: false,
    });
  });

  it("takes a real mail server, an https address, a support address and a proxy hop count", () => {
    const config = loadPortalConfig({
      SMTP_URL: "smtps://user%40example.com:secret@smtp.example.com:465",
      PORTAL_URL: "https://portal.example.com/",
      MAIL_FROM: "Example API <portal@example.com>",
      PORTAL_TRUST_PROXY: "1",
    });
    expect(smtpUrlOf(config)).toBe("smtps://user%40example.com:secret@smtp.example.com:465");
    expect(settingsFrom(config)).toMatchObject({
      publicUrl: "https://portal.example.com",
      supportEmail: "portal@example.com",
      trustProxy: 1,
    });
  });

  it.each([
    ["PORTAL_URL", "https://example.com/portal"],
    ["PORTAL_URL", "portal.example.com"],
    ["SMTP_URL", "http://smtp.example.com"],
    ["MAIL_FROM", "not an address"],
    ["SUPPORT_EMAIL", "nobody"],
    ["PORTAL_TRUST_PROXY", "everyone"],
    ["PORTAL_MAIL_PER_ADDRESS_PER_HOUR", "0"],
  ])("refuses %s=%s at start, naming it", (name, value) => {
    const problems = problemsOf({ [name]: value });
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.join("\n")).toContain(name);
  });

  it("takes Stripe keys with the simulator's address, and payments stay off without them", () => {
    expect(settingsFrom(loadPortalConfig({})).payments).toBeUndefined();
    const config = loadPortalConfig({
      STRIPE_SECRET_KEY: "sk_test_local_0123456789",
      STRIPE_WEBHOOK_SECRET: "whsec_local_0123456789",
      STRIPE_API_URL: "http://127.0.0.1:8075/",
    });
    expect(settingsFrom(config).payments).toEqual({
      secretKey: "sk_test_local_0123456789",
      webhookSecret: "whsec_local_0123456789",
      apiUrl: "http://127.0.0.1:8075",
    });
  });

  it.each([
    [{ STRIPE_SECRET_KEY: "pk_test_0123456789" }, "STRIPE_SECRET_KEY"],
    [{ STRIPE_SECRET_KEY: "sk_test_0123456789" }, "STRIPE_WEBHOOK_SECRET"],
    [{ STRIPE_WEBHOOK_SECRET: "whsec_0123456789" }, "STRIPE_SECRET_KEY"],
    [
      {
        STRIPE_SECRET_KEY: "sk_live_0123456789",
        STRIPE_WEBHOOK_SECRET: "whsec_0123456789",
        STRIPE_API_URL: "http://10.0.0.1:8075",
      },
      "STRIPE_API_URL",
    ],
  ])("refuses incomplete or unsafe Stripe settings %j at start, naming %s", (env, name) => {
    expect(problemsOf(env).join("\n")).toContain(name);
  });
});
