import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, runServiceMain } from "./support.ts";

/** A bad value stops the service at start-up with a clear message naming the variable. */
const CASES = [
  ["gateway", { REDIS_URL: "nonsense" }, "REDIS_URL"],
  ["gateway", { PORT: "eighty" }, "PORT"],
  ["billing", { REDIS_URL: "nonsense" }, "REDIS_URL"],
  ["billing", { FREE_CREDITS: "-5" }, "FREE_CREDITS"],
  ["adapter-posts", { NATS_URL: "http://not-nats" }, "NATS_URL"],
  ["adapter-tree", { UPSTREAM_URL: "not a url" }, "UPSTREAM_URL"],
  ["adapter-communities", { NATS_URL: "nonsense" }, "NATS_URL"],
  ["adapter-users", { UPSTREAM_URL: "ftp://x" }, "UPSTREAM_URL"],
  ["mcp", { MCP_PORT: "99999" }, "MCP_PORT"],
  ["upstream-sim", { SIM_PORT: "-1" }, "SIM_PORT"],
  ["upstream-sim", { SIM_PROFILE: "lenient" }, "SIM_PROFILE"],
  ["upstream-sim", { SIM_NULL_RULE_DESCRIPTIONS: "2" }, "SIM_NULL_RULE_DESCRIPTIONS"],
  ["adapter-tree", { UPSTREAM_USER_AGENT: "agent\u00e9" }, "UPSTREAM_USER_AGENT"],
  ["portal", { PORTAL_URL: "not a url" }, "PORTAL_URL"],
  ["portal", { SMTP_URL: "http://mail.example.com" }, "SMTP_URL"],
  ["portal", { PORTAL_TRUST_PROXY: "everyone" }, "PORTAL_TRUST_PROXY"],
  ["gateway", { PORTAL_URL: "portal" }, "PORTAL_URL"],
] as const;

/**
 * A combination two processes must agree on, refused at start by either side with one sentence that
 * names both variables (packages/contracts/src/bounds.ts).
 */
const COMBINATIONS = [
  ["gateway", { PENDING_DEBIT_MS: "700000" }, /PENDING_DEBIT_MS: must be at most 600000/],
  [
    "gateway",
    { ADAPTER_TIMEOUT_MS: "5000", PENDING_DEBIT_MS: "5000" },
    /PENDING_DEBIT_MS \(5000\) must exceed ADAPTER_TIMEOUT_MS \(5000\)/,
  ],
  [
    "gateway",
    { UPSTREAM_DEADLINE_MS: "40000" },
    /UPSTREAM_DEADLINE_MS \(40000\) must be below ADAPTER_TIMEOUT_MS \(35000\)/,
  ],
  [
    "adapter-posts",
    { UPSTREAM_DEADLINE_MS: "40000" },
    /UPSTREAM_DEADLINE_MS \(40000\) must be below ADAPTER_TIMEOUT_MS \(35000\)/,
  ],
  [
    "exports",
    { UPSTREAM_DEADLINE_MS: "40000" },
    /UPSTREAM_DEADLINE_MS \(40000\) must be below ADAPTER_TIMEOUT_MS \(35000\)/,
  ],
  [
    "exports",
    { ADAPTER_TIMEOUT_MS: "20000" },
    /UPSTREAM_DEADLINE_MS \(30000\) must be below ADAPTER_TIMEOUT_MS \(20000\)/,
  ],
  [
    "mcp",
    { ADAPTER_TIMEOUT_MS: "50000" },
    /GATEWAY_TIMEOUT_MS \(40000\) must exceed ADAPTER_TIMEOUT_MS \(50000\)/,
  ],
  [
    "billing",
    { REDIS_COMMAND_TIMEOUT_MS: "2500" },
    /REDIS_COMMAND_TIMEOUT_MS \(2500\) must be below BILLING_TIMEOUT_MS \(2000\)/,
  ],
] as const;

describe("a misconfigured service", () => {
  const present = CASES.filter(([service]) => existsSync(join(ROOT, "services", service, "src", "main.ts")));

  it.each(present)("%s with %o exits at once naming %s", async (service, badValues, variable) => {
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
    expect(outcome.stderr).toContain(variable);
  });

  it.each(COMBINATIONS)(
    "%s with %o exits at once with one sentence naming both",
    async (service, values, said) => {
      const outcome = await runServiceMain(service, { ...process.env, ...values, RDA_NAMESPACE: "t-config" });
      expect(outcome.timedOut).toBe(false);
      expect(outcome.code).not.toBe(0);
      expect(outcome.stderr).toMatch(said);
    },
  );
});
