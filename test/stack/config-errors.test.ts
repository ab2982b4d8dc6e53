import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, runServiceMain } from "./support.ts";

/**
 * Bad values, by service: the process stops at start-up with a message naming every variable it
 * refused, all at once (a deployer fixes them in one go, not one per restart). One process per
 * service: how each service's loader refuses a combination of two settings is checked in process
 * (test/contract/deadline-settings.test.ts), since it is the same `runMain` that stops it.
 */
const BAD_VALUES: readonly (readonly [string, Record<string, string>])[] = [
  ["gateway", { REDIS_URL: "nonsense", PORT: "eighty", PORTAL_URL: "portal" }],
  ["billing", { REDIS_URL: "nonsense", FREE_CREDITS: "-5" }],
  ["adapter-posts", { NATS_URL: "http://not-nats" }],
  ["adapter-tree", { UPSTREAM_URL: "not a url", UPSTREAM_USER_AGENT: "agent\u00e9" }],
  ["adapter-communities", { NATS_URL: "nonsense" }],
  ["adapter-users", { UPSTREAM_URL: "ftp://x" }],
  ["mcp", { MCP_PORT: "99999" }],
  ["upstream-sim", { SIM_PORT: "-1", SIM_PROFILE: "lenient", SIM_NULL_RULE_DESCRIPTIONS: "2" }],
  [
    "portal",
    { PORTAL_URL: "not a url", SMTP_URL: "http://mail.example.com", PORTAL_TRUST_PROXY: "everyone" },
  ],
  ["exports", { EXPORTS_PORT: "port", UPSTREAM_DEADLINE_MS: "soon" }],
  ["monitors", { NATS_URL: "nonsense" }],
];

describe("a misconfigured service", () => {
  const present = BAD_VALUES.filter(([service]) =>
    existsSync(join(ROOT, "services", service, "src", "main.ts")),
  );

  it("exists for every service the table names", () => {
    expect(present.map(([service]) => service)).toEqual(BAD_VALUES.map(([service]) => service));
  });

  it.each(present)("%s with %o exits at once naming each of them", async (service, badValues) => {
    const outcome = await runServiceMain(service, {
      ...process.env,
      // Any free port, should one be bound before the bad value is read: a stack may hold the defaults.
      METRICS_PORT: "0",
      HEALTH_PORT: "0",
      ...badValues,
      RDA_NAMESPACE: "t-config",
    });
    expect(outcome.timedOut).toBe(false);
    expect(outcome.code).not.toBe(0);
    for (const variable of Object.keys(badValues)) expect(outcome.stderr).toContain(`${variable}:`);
    expect(outcome.stderr).not.toContain("failed to start");
  });
});
